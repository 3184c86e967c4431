package format

import (
	"encoding/json"
	"errors"

	"github.com/promptcanary/promptcanary/internal/jsonscan"
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

// parse reads s through the shared text.JSONDoc, which decides validity as
// json.Valid does, and only for an invalid document asks encoding/json for
// its error message and offset. The keys are a fresh copy.
func parse(s string, withKeys bool) jsonDoc {
	d := text.ParseJSON(s)
	defer d.Release()
	kind, ok := d.Kind()
	if !ok {
		return jsonDoc{err: d.Err()}
	}
	doc := jsonDoc{kind: kind.String(), object: kind == jsonscan.Object}
	if doc.object && withKeys {
		doc.keys = append([]string{}, d.Keys()...)
	}
	return doc
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
