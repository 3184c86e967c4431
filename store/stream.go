package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/promptcanary/promptcanary"
)

// streamChunk is how much JSON encodeDrift holds before it hands it on.
const streamChunk = 64 << 10

// encodeStream hands write the compact JSON of v, the bytes of
// Marshal(v), a piece at a time: a drift report a few comparisons at a
// time (encodeDrift), any other value whole (encodeOnce).
func encodeStream(v any, write func([]byte) error) error {
	switch d := v.(type) {
	case *promptcanary.DriftReport:
		return encodeDrift(d, nil, write)
	case promptcanary.DriftReport:
		return encodeDrift(&d, nil, write)
	}
	return encodeOnce(v, write)
}

// encodeDrift hands write the compact JSON of d, the bytes of Marshal(d),
// a piece at a time, each under about streamChunk bytes: the report's
// JSON (32 MB for a compare of 2,000 prompts × 10 probes) is never held
// whole. The report without its comparisons is encoded first, and each
// comparison on its own where their list goes. edit, when set, changes a
// copy of each comparison before it is encoded. When a comparison cannot
// be encoded (Marshal fails on it, which a finite report never does),
// the pieces before it have been written.
func encodeDrift(d *promptcanary.DriftReport, edit func(*promptcanary.Comparison), write func([]byte) error) error {
	if d.Comparisons == nil {
		return encodeOnce(d, write)
	}
	head := *d
	head.Comparisons = []promptcanary.Comparison{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := encodePart(&buf, enc, head.JSONValue(), &head); err != nil {
		return err
	}
	hj := bytes.Clone(buf.Bytes())
	at := memberValue(hj, "comparisons")
	if at < 0 || !bytes.HasPrefix(hj[at:], []byte("[]")) {
		return errors.New("encode drift report: no comparisons in its JSON")
	}
	buf.Reset()
	buf.Write(hj[:at+1])
	c := new(promptcanary.Comparison) // one copy for all: a copy each would allocate as much as the JSON
	for i := range d.Comparisons {
		if i > 0 {
			buf.WriteByte(',')
		}
		*c = d.Comparisons[i]
		if edit != nil {
			edit(c)
		}
		if err := encodePart(&buf, enc, c, c); err != nil {
			return fmt.Errorf("comparison %d: %w", i, err)
		}
		if buf.Len() >= streamChunk {
			if err := write(buf.Bytes()); err != nil {
				return err
			}
			buf.Reset()
		}
	}
	buf.Write(hj[at+1:])
	return write(buf.Bytes())
}

// encodePart appends the compact JSON of v to buf with enc, an Encoder
// writing to buf: the bytes of Marshal(orig), where v is the value
// orig's MarshalJSON encodes (or orig itself). A NaN or infinite float
// takes Marshal's slower way.
func encodePart(buf *bytes.Buffer, enc *json.Encoder, v, orig any) error {
	n := buf.Len()
	err := enc.Encode(v)
	if err == nil {
		buf.Truncate(buf.Len() - 1) // the Encoder's newline
		return nil
	}
	if _, ok := errors.AsType[*json.UnsupportedValueError](err); !ok {
		return err
	}
	buf.Truncate(n) // an Encoder writes nothing of a value it failed on
	data, err := Marshal(orig)
	if err != nil {
		return err
	}
	buf.Write(data)
	return nil
}

// memberValue returns where the value of the member name starts in obj,
// a compact JSON object as encoding/json writes it; -1 when obj has no
// such member.
func memberValue(obj []byte, name string) int {
	key := `"` + name + `"`
	for i := 1; i < len(obj) && obj[i] != '}'; {
		if obj[i] == ',' {
			i++
		}
		end := skipValue(obj, i)
		if end >= len(obj) || obj[end] != ':' {
			return -1
		}
		if string(obj[i:end]) == key {
			return end + 1
		}
		i = skipValue(obj, end+1)
	}
	return -1
}
