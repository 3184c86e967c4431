package jsonscan

// Kind is the type of a JSON text's top-level value.
type Kind uint8

// The kinds; Invalid is the kind of text that is not JSON.
const (
	Invalid Kind = iota
	Object
	Array
	String
	Number
	Boolean
	Null
)

// String names the kind as JSON Schema does: object, array, string,
// number, boolean or null ("invalid" for Invalid).
func (k Kind) String() string {
	switch k {
	case Object:
		return "object"
	case Array:
		return "array"
	case String:
		return "string"
	case Number:
		return "number"
	case Boolean:
		return "boolean"
	case Null:
		return "null"
	}
	return "invalid"
}

// MaxDepth is encoding/json's nesting limit: a text nested deeper is not
// valid for json.Valid.
const MaxDepth = 10000

// KeyVisitor is told the keys of a text by Scan.
type KeyVisitor interface {
	// Key is called with the literal of each object key (quotes excluded,
	// escapes undecoded; see Unquote) in document order, duplicates
	// included, and the depth of its object: 1 for the keys of a
	// top-level object, 2 for those of an object in it, and so on.
	Key(depth int, lit string)
}

// ValueVisitor is a KeyVisitor that is also told the first byte of each
// key's value, right after the key: in a valid text '"', '{', '[', 't',
// 'f', 'n', '-' or a digit (anything when the text turns out not to be
// JSON).
type ValueVisitor interface {
	KeyVisitor
	Value(first byte)
}

// WideVisitor is a KeyVisitor that is also told of each number literal
// that might not fit a float64: one with an exponent or of more than
// MaxNarrowNumber characters.
type WideVisitor interface {
	KeyVisitor
	WideNumber()
}

// MaxNarrowNumber is the longest literal without an exponent that surely
// fits a float64 (whose largest value has 309 digits).
const MaxNarrowNumber = 300

// Valid reports whether s is one JSON value exactly as json.Valid decides.
func Valid(s string) bool {
	_, ok := Scan(s, nil)
	return ok
}

// Scan reports whether s is one JSON value exactly as json.Valid decides
// it (same grammar, white space, nesting limit; invalid UTF-8 inside
// strings accepted), and the kind of its top-level value. A visitor, when
// not nil, is told the keys as the scan meets them (see KeyVisitor,
// ValueVisitor and WideVisitor): a caller must ignore what it was told
// when ok is false. Scan never allocates.
func Scan(s string, v KeyVisitor) (kind Kind, ok bool) {
	sc := scanner{Lexer: Lexer[string]{s: s}, keys: v}
	sc.values, _ = v.(ValueVisitor)
	sc.wide, _ = v.(WideVisitor)
	sc.Space()
	switch sc.Peek() {
	case 0:
		if sc.Done() {
			return Invalid, false
		}
		kind = Number // not JSON: value fails
	case '{':
		kind = Object
	case '[':
		kind = Array
	case '"':
		kind = String
	case 't', 'f':
		kind = Boolean
	case 'n':
		kind = Null
	default:
		kind = Number
	}
	if !sc.value(0) {
		return Invalid, false
	}
	sc.Space()
	if !sc.Done() {
		return Invalid, false
	}
	return kind, true
}

// scanner validates JSON by recursive descent.
type scanner struct {
	Lexer[string]
	keys   KeyVisitor
	values ValueVisitor // keys, when it is one
	wide   WideVisitor  // keys, when it is one
}

// value scans one value at sc.i (after white space), depth being the
// number of containers around it.
func (sc *scanner) value(depth int) bool {
	switch sc.Peek() {
	case '{':
		return sc.object(depth + 1)
	case '[':
		return sc.array(depth + 1)
	case '"':
		_, ok := sc.StringLit()
		return ok
	case 't':
		return sc.Word("true")
	case 'f':
		return sc.Word("false")
	case 'n':
		return sc.Word("null")
	}
	lit, ok := sc.NumberLit()
	if ok && sc.wide != nil && (len(lit) > MaxNarrowNumber || hasExponent(lit)) {
		sc.wide.WideNumber()
	}
	return ok
}

// hasExponent reports whether a number literal has an exponent.
func hasExponent(lit string) bool {
	for i := len(lit) - 1; i >= 0; i-- {
		if lit[i] == 'e' || lit[i] == 'E' {
			return true
		}
	}
	return false
}

func (sc *scanner) object(depth int) bool {
	if depth > MaxDepth {
		return false
	}
	sc.i++ // {
	sc.Space()
	if sc.Eat('}') {
		return true
	}
	for {
		lit, ok := sc.StringLit()
		if !ok {
			return false
		}
		if sc.keys != nil {
			sc.keys.Key(depth, lit)
		}
		sc.Space()
		if !sc.Eat(':') {
			return false
		}
		sc.Space()
		if sc.values != nil && sc.i < len(sc.s) {
			sc.values.Value(sc.s[sc.i])
		}
		if !sc.value(depth) {
			return false
		}
		if more, ok := sc.next('}'); !more {
			return ok
		}
	}
}

func (sc *scanner) array(depth int) bool {
	if depth > MaxDepth {
		return false
	}
	sc.i++ // [
	sc.Space()
	if sc.Eat(']') {
		return true
	}
	for {
		if !sc.value(depth) {
			return false
		}
		if more, ok := sc.next(']'); !more {
			return ok
		}
	}
}

// next reads what follows a member or element of a container closed by
// end: a comma (more) or end (not more, ok).
func (sc *scanner) next(end byte) (more, ok bool) {
	sc.Space()
	switch {
	case sc.Eat(','):
		sc.Space()
		return true, true
	case sc.Eat(end):
		return false, true
	}
	return false, false
}
