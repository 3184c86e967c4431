package format

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
// they appear in the text.
func parseJSON(s string) jsonDoc { return parse(s, true) }

// validateJSON is parseJSON without collecting keys.
func validateJSON(s string) jsonDoc { return parse(s, false) }

func parse(s string, withKeys bool) jsonDoc {
	b := []byte(s)
	if !json.Valid(b) {
		return jsonDoc{err: syntaxError(b)}
	}
	i := bytes.IndexFunc(b, func(r rune) bool { return r != ' ' && r != '\t' && r != '\n' && r != '\r' })
	if i < 0 { // unreachable: valid JSON holds a value
		return jsonDoc{err: errors.New("empty JSON document")}
	}
	switch c := b[i]; {
	case c == '[':
		return jsonDoc{kind: "array"}
	case c == '"':
		return jsonDoc{kind: "string"}
	case c == 't' || c == 'f':
		return jsonDoc{kind: "boolean"}
	case c == 'n':
		return jsonDoc{kind: "null"}
	case c != '{':
		return jsonDoc{kind: "number"}
	}
	if !withKeys {
		return jsonDoc{object: true, kind: "object"}
	}
	keys, err := objectKeys(b)
	if err != nil {
		return jsonDoc{err: err}
	}
	return jsonDoc{object: true, keys: keys, kind: "object"}
}

// objectKeys walks the tokens of b, a valid JSON object, and returns its
// top-level keys in document order without duplicates. Each value is
// skipped whole into one reused json.RawMessage, so a nested value costs
// no per-token work and a number too large for float64 (valid JSON) is no
// error.
func objectKeys(b []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // the opening brace
		return nil, fmt.Errorf("read object: %w", err)
	}
	keys := []string{}
	var seen map[string]struct{}
	var skip json.RawMessage
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("read object key: %w", err)
		}
		key, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("read object key: unexpected token %v", t)
		}
		if seen == nil {
			seen = make(map[string]struct{})
		}
		if _, dup := seen[key]; !dup {
			seen[key] = struct{}{}
			keys = append(keys, key)
		}
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("read value of %q: %w", key, err)
		}
	}
	return keys, nil
}

// syntaxError returns the error encoding/json reports for b, which is not
// valid JSON. Unmarshal checks the whole input before decoding anything, so
// the error is the first syntax error with its byte offset.
func syntaxError(b []byte) error {
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
