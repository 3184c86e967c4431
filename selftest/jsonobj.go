package selftest

import (
	"bytes"
	"encoding/json"
	"strings"
)

// field is one member of a JSON object, in document order.
type field struct {
	key string
	raw json.RawMessage
}

// parseObject parses s as one JSON object and returns its members in
// document order; ok is false when s is anything else (an array, two
// values, invalid JSON).
func parseObject(s string) (fields []field, ok bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, isKey := tok.(string)
		if !isKey {
			return nil, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		fields = append(fields, field{key: key, raw: raw})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // something follows the object
	}
	return fields, true
}

// writeObject writes fields as a JSON object: on one line, or indented by
// two spaces when indent is set.
func writeObject(fields []field, indent bool) string {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
			if !indent {
				b.WriteByte(' ')
			}
		}
		if indent {
			b.WriteString("\n  ")
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteString(": ")
		var v bytes.Buffer
		if json.Compact(&v, f.raw) != nil {
			v.Reset()
			v.Write(f.raw)
		}
		b.Write(v.Bytes())
	}
	if indent && len(fields) > 0 {
		b.WriteByte('\n')
	}
	b.WriteByte('}')
	return b.String()
}

// keys returns the keys of fields in order.
func keys(fields []field) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.key
	}
	return out
}

// jsonAnswer reports whether the trimmed content is one JSON value, not
// fenced: the answers the JSON drifts apply to.
func jsonAnswer(content string) bool {
	t := strings.TrimSpace(content)
	return t != "" && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t))
}

// objectAnswer returns the members of a content that is one JSON object,
// and whether it was written over several lines.
func objectAnswer(content string) (fields []field, multiline, ok bool) {
	t := strings.TrimSpace(content)
	if t == "" || t[0] != '{' {
		return nil, false, false
	}
	fields, ok = parseObject(t)
	return fields, strings.Contains(t, "\n"), ok
}
