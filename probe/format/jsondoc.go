package format

import (
	"encoding/json"
	"errors"
	"slices"
	"unsafe"

	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// jsonDoc is what the JSON probes need to know about a response: whether it
// is one JSON value and, for an object, its keys.
type jsonDoc struct {
	// err is the parse error, nil when the document is valid JSON.
	err error
	// object reports whether the top-level value is an object.
	object bool
	// keys are the object's keys in document order, each once (at its first
	// occurrence, as a duplicate key keeps its first position in Python).
	keys []string
	// kind names the top-level type: object, array, string, number,
	// boolean or null.
	kind string
}

// parseJSON parses s as exactly one JSON value (RFC 8259, as encoding/json
// accepts it) and collects the top-level keys of an object in the order
// they appear in the text, decoded as encoding/json decodes them.
func parseJSON(s string) jsonDoc { return parse(s, true) }

// validateJSON is parseJSON without collecting keys.
func validateJSON(s string) jsonDoc { return parse(s, false) }

// parse checks s with text.ScanJSON, which decides validity as json.Valid
// does without allocating; only an invalid document goes through
// encoding/json, for its error message and offset.
func parse(s string, withKeys bool) jsonDoc {
	var keys []string
	var seen map[string]struct{} // once there are many keys
	var collect func(int, string)
	if withKeys {
		collect = func(depth int, lit string) {
			if depth != 1 {
				return
			}
			k := text.JSONUnquote(lit)
			if seen == nil && len(keys) < 32 {
				if !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
				return
			}
			if seen == nil {
				seen = make(map[string]struct{}, 2*len(keys))
				for _, k := range keys {
					seen[k] = struct{}{}
				}
			}
			if _, dup := seen[k]; !dup {
				seen[k] = struct{}{}
				keys = append(keys, k)
			}
		}
	}
	kind, ok := text.ScanJSON(s, collect)
	if !ok {
		return jsonDoc{err: syntaxError(s)}
	}
	doc := jsonDoc{kind: kind.String(), object: kind == text.JSONObject}
	if doc.object && withKeys {
		doc.keys = keys
		if doc.keys == nil {
			doc.keys = []string{}
		}
	}
	return doc
}

// syntaxError returns the error encoding/json reports for s, which is not
// valid JSON. Unmarshal checks the whole input before decoding anything, so
// the error is the first syntax error with its byte offset.
func syntaxError(s string) error {
	// Unmarshal only reads its input when it is not valid JSON, so the
	// bytes of s are lent to it rather than copied.
	var b []byte
	if len(s) > 0 {
		b = unsafe.Slice(unsafe.StringData(s), len(s))
	}
	var v json.RawMessage
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	return errors.New("invalid JSON")
}

// errorOffset returns the byte offset of a JSON syntax error, and whether
// err carries one.
func errorOffset(err error) (int64, bool) {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Offset, true
	}
	return 0, false
}
