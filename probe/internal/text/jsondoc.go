package text

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/promptcanary/promptcanary/internal/jsonscan"
)

// JSONDoc is one JSON text as the probes read it, worked out once and
// shared by every probe that judges it, as Analysis is: whether it is JSON
// and of which kind, its top-level keys, encoding/json's error when it is
// not JSON, and its decoded value.
//
// Get one with ParseJSON and give it back with Release; it must not be
// used after Release. The values it returns are shared with the other
// probes of the response: a caller must not modify them, and gives a
// result its own copy of a slice it keeps.
type JSONDoc struct {
	src   string
	valid bool

	kind     JSONKind
	ok       bool
	rawKeys  []string // the literals of the top-level keys, as scanned
	keysDone bool
	keys     []string
	seen     map[string]struct{} // the keys, once there are many

	errDone bool
	err     error

	valueDone, numberDone bool
	value, number         any
	valueOK               bool
	depth                 int
	// wide is set when a number literal might not fit a float64.
	wide bool
}

// WideNumber implements jsonscan.WideVisitor: it notes a number literal
// that might not fit a float64.
func (d *JSONDoc) WideNumber() { d.wide = true }

// Src returns the text of the document.
func (d *JSONDoc) Src() string { return d.src }

// Decoded reports whether Value was already worked out.
func (d *JSONDoc) Decoded() bool { return d.valueDone }

// Narrow reports whether the text is JSON whose every number surely fits a
// float64 (no exponent, at most 300 characters): Value then succeeds, and
// Member decodes each member of an object as Value would.
func (d *JSONDoc) Narrow() bool { return d.ok && !d.wide }

// Member returns the value of the last member named key of the JSON object
// obj, decoded as JSONDoc.Value decodes it, and false when obj has no such
// member. obj must be a JSON object for which Narrow holds.
func Member(obj, key string) (any, bool) {
	val, found := "", false
	for k, v := range jsonscan.Members(obj) {
		if JSONUnquote(k[1:len(k)-1]) == key {
			val, found = v, true
		}
	}
	if !found {
		return nil, false
	}
	d := decoder{s: val}
	return d.value(), true
}

// docs keeps JSON documents for reuse, as pool keeps analyses.
var docs = sync.Pool{New: func() any { return new(JSONDoc) }}

// ParseJSON returns the document of src, reusing a kept one made for the
// same text. It scans src as ScanJSON does.
func ParseJSON(src string) *JSONDoc {
	d := docs.Get().(*JSONDoc)
	if d.valid && d.src == src {
		return d
	}
	*d = JSONDoc{src: src, valid: true, keys: d.keys[:0], rawKeys: d.rawKeys[:0]}
	d.kind, d.ok = ScanJSONKeys(src, d)
	return d
}

// Release gives d back for reuse.
func (d *JSONDoc) Release() {
	if cap(d.keys) > 1024 || cap(d.rawKeys) > 1024 {
		return
	}
	docs.Put(d)
}

// Key implements KeyVisitor: it notes the literals of the top-level keys
// of an object, which Keys decodes when asked.
func (d *JSONDoc) Key(depth int, lit string) {
	if depth == 1 {
		d.rawKeys = append(d.rawKeys, lit)
	}
}

// addKey adds the key of literal lit unless it is known already.
func (d *JSONDoc) addKey(lit string) {
	k := JSONUnquote(lit)
	if d.seen == nil && len(d.keys) < 32 {
		if !slices.Contains(d.keys, k) {
			d.keys = append(d.keys, k)
		}
		return
	}
	if d.seen == nil {
		d.seen = make(map[string]struct{}, 2*len(d.keys))
		for _, k := range d.keys {
			d.seen[k] = struct{}{}
		}
	}
	if _, dup := d.seen[k]; !dup {
		d.seen[k] = struct{}{}
		d.keys = append(d.keys, k)
	}
}

// Kind returns the kind of the top-level value and whether the text is
// JSON, as json.Valid decides it.
func (d *JSONDoc) Kind() (JSONKind, bool) { return d.kind, d.ok }

// Keys returns the keys of a top-level object in document order, each once
// (at its first occurrence), decoded as encoding/json decodes them; nil
// when the text is not a JSON object. The slice is the document's.
func (d *JSONDoc) Keys() []string {
	if !d.ok || d.kind != jsonscan.Object {
		return nil
	}
	if !d.keysDone {
		d.keysDone = true
		for _, lit := range d.rawKeys {
			d.addKey(lit)
		}
		if d.keys == nil {
			d.keys = []string{}
		}
	}
	return d.keys
}

// Err returns the error json.Unmarshal reports for the text, nil when it is
// JSON. Unmarshal checks the whole input before decoding anything, so the
// error is the first syntax error with its byte offset.
func (d *JSONDoc) Err() error {
	if d.ok {
		return nil
	}
	if !d.errDone {
		d.errDone = true
		// Unmarshal only reads its input when it is not valid JSON, so
		// the bytes of src are lent to it rather than copied.
		var b []byte
		if len(d.src) > 0 {
			b = unsafe.Slice(unsafe.StringData(d.src), len(d.src))
		}
		var v json.RawMessage
		if d.err = json.Unmarshal(b, &v); d.err == nil {
			d.err = errors.New("invalid JSON") // unreachable: ScanJSON agrees with json.Valid
		}
	}
	return d.err
}

// Value returns the text decoded as json.Unmarshal decodes it into an
// `any` (objects as map[string]any, arrays as []any, numbers as float64),
// and false where Unmarshal fails: text that is not JSON, or a number
// beyond the range of a float64.
func (d *JSONDoc) Value() (any, bool) {
	if !d.valueDone {
		d.valueDone = true
		if d.ok {
			dec := decoder{s: d.src}
			d.value = dec.value()
			d.valueOK = !dec.bad
			if dec.bad {
				d.value = nil
			}
			d.depth = dec.deepest
		}
	}
	return d.value, d.valueOK
}

// NumberValue returns the text decoded as a json.Decoder with UseNumber
// decodes it (numbers as json.Number), or false when it is not JSON.
func (d *JSONDoc) NumberValue() (any, bool) {
	if !d.numberDone {
		d.numberDone = true
		if d.ok {
			dec := decoder{s: d.src, numbers: true}
			d.number = dec.value()
			d.depth = dec.deepest
		}
	}
	return d.number, d.ok
}

// Depth returns the deepest nesting of arrays and objects in the text (0
// for a scalar), or 0 when it is not JSON.
func (d *JSONDoc) Depth() int {
	if !d.valueDone && !d.numberDone {
		d.NumberValue()
	}
	return d.depth
}

// DecodeJSON is JSONDoc.Value for a text no other probe reads: it neither
// takes nor keeps a document.
func DecodeJSON(s string) (any, bool) {
	if _, ok := ScanJSONKeys(s, nil); !ok {
		return nil, false
	}
	d := decoder{s: s}
	v := d.value()
	if d.bad {
		return nil, false
	}
	return v, true
}

// decoder decodes text that ScanJSON has found valid, so it meets no
// syntax error.
type decoder struct {
	s       string
	i       int
	numbers bool // json.Number instead of float64
	bad     bool // a number out of the range of a float64
	depth   int  // of the container being decoded
	deepest int
}

// enter notes one more level of nesting.
func (d *decoder) enter() {
	d.i++
	if d.depth++; d.depth > d.deepest {
		d.deepest = d.depth
	}
}

func (d *decoder) ws() { d.i = jsonscan.SpaceEnd(d.s, d.i) }

// empty steps over the white space after an opening bracket and reports
// whether close follows, which it steps over too (see JSONEmpty).
func (d *decoder) empty(close byte) (done bool) { d.i, done = JSONEmpty(d.s, d.i, close); return done }

// next steps over the white space and the comma or close after a member
// or item, and reports whether it was close (see JSONNext).
func (d *decoder) next(close byte) (done bool) { d.i, done = JSONNext(d.s, d.i, close); return done }

func (d *decoder) value() any {
	d.ws()
	switch d.s[d.i] {
	case '{':
		d.enter()
		defer func() { d.depth-- }()
		m := map[string]any{}
		if d.empty('}') {
			return m
		}
		for {
			d.ws()
			k := d.str()
			d.ws()
			d.i++ // :
			m[k] = d.value()
			if d.next('}') {
				return m
			}
		}
	case '[':
		d.enter()
		defer func() { d.depth-- }()
		a := []any{}
		if d.empty(']') {
			return a
		}
		for {
			a = append(a, d.value())
			if d.next(']') {
				return a
			}
		}
	case '"':
		return d.str()
	case 't':
		d.i += len("true")
		return true
	case 'f':
		d.i += len("false")
		return false
	case 'n':
		d.i += len("null")
		return nil
	}
	start := d.i
	d.i = jsonscan.NumberEnd(d.s, d.i)
	lit := d.s[start:d.i]
	if d.numbers {
		return json.Number(lit)
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		d.bad = true
	}
	return f
}

// str reads the string literal at d.i.
func (d *decoder) str() string {
	start := d.i + 1
	d.i = jsonscan.StringEnd(d.s, d.i)
	return JSONUnquote(d.s[start : d.i-1])
}
