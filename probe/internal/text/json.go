package text

import "github.com/promptcanary/promptcanary/internal/jsonscan"

// JSONKind is the type of a JSON document's top-level value, one of
// jsonscan's kinds (jsonscan.Object, jsonscan.Invalid for text that is not
// JSON, …).
type JSONKind = jsonscan.Kind

// KeyVisitor is told the keys of a JSON document by ScanJSONKeys (see
// jsonscan.KeyVisitor).
type KeyVisitor = jsonscan.KeyVisitor

// ValueVisitor is a KeyVisitor that is also told the first byte of each
// key's value (see jsonscan.ValueVisitor).
type ValueVisitor = jsonscan.ValueVisitor

// ScanJSON reports whether s is one JSON value exactly as json.Valid
// decides it, and the kind of its top-level value, as jsonscan.Scan does.
// When keys is not nil it is called with the literal of each object key
// and the depth of its object, as jsonscan.KeyVisitor's Key is.
func ScanJSON(s string, keys func(depth int, lit string)) (kind JSONKind, ok bool) {
	if keys == nil {
		return jsonscan.Scan(s, nil)
	}
	return jsonscan.Scan(s, keyFunc(keys))
}

// keyFunc adapts a keys function of ScanJSON to a KeyVisitor.
type keyFunc func(depth int, lit string)

func (f keyFunc) Key(depth int, lit string) { f(depth, lit) }

// ScanJSONKeys is ScanJSON with a KeyVisitor (nil for none) instead of a
// function: a caller whose visitor is already on the heap scans without
// allocating, where a closure would escape.
func ScanJSONKeys(s string, keys KeyVisitor) (kind JSONKind, ok bool) {
	return jsonscan.Scan(s, keys)
}

// JSONUnquote decodes the body of a valid JSON string literal exactly as
// encoding/json does (see jsonscan.Unquote).
func JSONUnquote(body string) string { return jsonscan.Unquote(body) }

// JSONEmpty returns the index after the white space at s[i:], the start of
// the body of an object or array of a valid JSON text, and whether close,
// its closing bracket, follows there: an empty object or array, whose
// closing bracket the index is then after too.
func JSONEmpty(s string, i int, close byte) (int, bool) {
	i = jsonscan.SpaceEnd(s, i)
	if s[i] == close {
		return i + 1, true
	}
	return i, false
}

// JSONNext returns the index after the white space and the comma or close
// that follow a member or item of a valid JSON text ending at i, and
// whether it was close.
func JSONNext(s string, i int, close byte) (int, bool) {
	i = jsonscan.SpaceEnd(s, i)
	return i + 1, s[i] == close
}
