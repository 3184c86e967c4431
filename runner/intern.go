package runner

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"sync"

	"github.com/promptcanary/promptcanary"
)

// interner shares equal probe details and metadata among the results of
// one run. Probes build a new map and a new details string for every
// answer they judge, yet most answers of a many-sample run repeat: a
// 200-prompt × 10-probe run at 30 samples makes 60,000 results with some
// thousands of distinct metadata objects. Shared, the run holds each
// once, as the compact layout stores it (see store.LayoutCompact), and
// its memory no longer grows with the samples.
//
// Metadata is shared only when it is equal value for value and type for
// type (an int is not a float64), and only when every value is of a type
// that JSON decoding or the probes produce; anything else keeps its own
// map. A shared map must not be changed: the metadata of a run's results
// is read-only once the run holds it.
type interner struct {
	mu      sync.Mutex
	details map[string]string
	meta    map[string]map[string]any
	key     []byte // scratch, under mu
}

func newInterner() *interner {
	return &interner{details: map[string]string{}, meta: map[string]map[string]any{}}
}

// results replaces the details and metadata of prs with equal ones the run
// already holds, and records theirs otherwise.
func (in *interner) results(prs []promptcanary.ProbeResult) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for i := range prs {
		in.result(&prs[i])
	}
}

func (in *interner) result(pr *promptcanary.ProbeResult) {
	if d, ok := in.details[pr.Details]; ok {
		pr.Details = d
	} else {
		in.details[pr.Details] = pr.Details
	}
	if pr.Metadata == nil {
		return
	}
	key, ok := appendKey(in.key[:0], pr.Metadata)
	in.key = key[:0]
	if !ok {
		return
	}
	if m, ok := in.meta[string(key)]; ok {
		pr.Metadata = m
		return
	}
	in.meta[string(key)] = pr.Metadata
}

// appendKey appends to b an encoding of v, tagged by type, that two
// values share exactly when they are equal and of the same types. ok is
// false when v holds a type it does not know.
func appendKey(b []byte, v any) (_ []byte, ok bool) {
	switch v := v.(type) {
	case nil:
		return append(b, 'n'), true
	case bool:
		if v {
			return append(b, 't'), true
		}
		return append(b, 'f'), true
	case string:
		return appendString(append(b, 's'), v), true
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, 'd'), math.Float64bits(v)), true
	case int:
		return binary.LittleEndian.AppendUint64(append(b, 'i'), uint64(v)), true
	case int64:
		return binary.LittleEndian.AppendUint64(append(b, 'I'), uint64(v)), true
	case json.Number:
		return appendString(append(b, 'N'), string(v)), true
	case []string:
		if v == nil {
			return append(b, 'z'), true // null, not []
		}
		b = binary.AppendUvarint(append(b, 'S'), uint64(len(v)))
		for _, s := range v {
			b = appendString(b, s)
		}
		return b, true
	case []any:
		if v == nil {
			return append(b, 'z'), true
		}
		b = binary.AppendUvarint(append(b, 'a'), uint64(len(v)))
		for _, e := range v {
			if b, ok = appendKey(b, e); !ok {
				return b, false
			}
		}
		return b, true
	case map[string]any:
		if v == nil {
			return append(b, 'z'), true // null, not {}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = binary.AppendUvarint(append(b, 'm'), uint64(len(v)))
		for _, k := range keys {
			b = appendString(b, k)
			if b, ok = appendKey(b, v[k]); !ok {
				return b, false
			}
		}
		return b, true
	}
	return b, false
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
