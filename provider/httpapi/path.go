package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/textcut"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

// respPath is a compiled response path (see the package documentation for
// the syntax). A path without segments is the whole response.
type respPath struct {
	src  string
	segs []string
}

// parsePath compiles a response path: dot-separated keys, where "\." is a
// literal dot and "\\" a backslash; "" and "." are the whole response and
// a leading "." is ignored.
func parsePath(s string) (respPath, error) {
	p := respPath{src: s}
	body := strings.TrimPrefix(s, ".")
	if body == "" {
		return p, nil
	}
	var seg strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch c {
		case '\\':
			if i+1 == len(body) || (body[i+1] != '.' && body[i+1] != '\\') {
				return p, fmt.Errorf("path %q: a backslash must escape a dot or a backslash", s)
			}
			i++
			seg.WriteByte(body[i])
		case '.':
			if seg.Len() == 0 {
				return p, fmt.Errorf("path %q: empty segment", s)
			}
			p.segs = append(p.segs, seg.String())
			seg.Reset()
		default:
			seg.WriteByte(c)
		}
	}
	if seg.Len() == 0 {
		return p, fmt.Errorf("path %q: empty segment", s)
	}
	p.segs = append(p.segs, seg.String())
	return p, nil
}

// isRoot reports whether the path is the whole response.
func (p respPath) isRoot() bool { return len(p.segs) == 0 }

// pathError is a path that does not resolve in a response.
type pathError struct {
	path string
	msg  string
	// leafMissing is set when only the last key is absent from an object
	// that exists: an optional field the response did not report.
	leafMissing bool
}

func (e *pathError) Error() string { return fmt.Sprintf("response path %q: %s", e.path, e.msg) }

// resolve walks the path through the JSON document doc.
func (p respPath) resolve(doc []byte) (json.RawMessage, error) {
	cur := json.RawMessage(doc)
	for i, seg := range p.segs {
		v := bytes.TrimLeft(cur, " \t\r\n")
		where := func() string {
			if i == 0 {
				return "the response"
			}
			return strconv.Quote(strings.Join(p.segs[:i], "."))
		}
		fail := func(format string, args ...any) error {
			return &pathError{path: p.src, msg: fmt.Sprintf(format, args...)}
		}
		if len(v) == 0 {
			return nil, fail("%s is empty", where())
		}
		switch v[0] {
		case '{':
			var m map[string]json.RawMessage
			if err := json.Unmarshal(v, &m); err != nil {
				return nil, fail("%s is not valid JSON: %v", where(), err)
			}
			next, ok := m[seg]
			if !ok {
				msg := fmt.Sprintf("no key %q", seg)
				if i > 0 {
					msg += " in " + where()
				}
				return nil, &pathError{path: p.src, msg: msg, leafMissing: i == len(p.segs)-1}
			}
			cur = next
		case '[':
			var a []json.RawMessage
			if err := json.Unmarshal(v, &a); err != nil {
				return nil, fail("%s is not valid JSON: %v", where(), err)
			}
			idx, err := strconv.Atoi(seg)
			if err != nil {
				return nil, fail("%q is not an array index, and %s is an array", seg, where())
			}
			if idx < 0 {
				idx += len(a)
			}
			if idx < 0 || idx >= len(a) {
				return nil, fail("no index %s in %s (%d elements)", seg, where(), len(a))
			}
			cur = a[idx]
		default:
			return nil, fail("no key %q: %s is %s, not an object", seg, where(), kindOf(v))
		}
	}
	return cur, nil
}

// kindOf names the JSON type of the value starting v.
func kindOf(v []byte) string {
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// textValue converts a resolved answer to text: a string is its value,
// null is "", other scalars are their JSON text and objects or arrays are
// their JSON as returned.
func textValue(raw json.RawMessage) (string, error) {
	v := bytes.TrimSpace(raw)
	if len(v) == 0 || string(v) == "null" {
		return "", nil
	}
	if v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", err
		}
		return s, nil
	}
	return string(v), nil
}

// stringValue converts a resolved scalar to a string; objects and arrays
// are errors.
func stringValue(raw json.RawMessage) (string, error) {
	v := bytes.TrimSpace(raw)
	if len(v) > 0 && (v[0] == '{' || v[0] == '[') {
		return "", fmt.Errorf("want a string, got %s", kindOf(v))
	}
	return textValue(v)
}

// intValue converts a resolved token count: an integer, given as a number
// or a string of digits; null and negative counts are 0.
func intValue(raw json.RawMessage) (int, error) {
	v := bytes.TrimSpace(raw)
	if len(v) == 0 || string(v) == "null" {
		return 0, nil
	}
	if v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return 0, err
		}
		v = []byte(strings.TrimSpace(s))
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, fmt.Errorf("want a non-negative integer, got %s", clip(string(bytes.TrimSpace(raw)), 40))
	}
	// A negative count from a broken server reads as 0, as in the other
	// clients.
	return max(0, int(f)), nil
}

// toolCallsValue converts a resolved array of tool calls. Each element is
// {"name", "arguments", "id"} or the OpenAI shape {"id", "function":
// {"name", "arguments"}}; arguments given as a JSON string are decoded.
func toolCallsValue(raw json.RawMessage) ([]promptcanary.ToolCall, error) {
	v := bytes.TrimSpace(raw)
	if len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, fmt.Errorf("want an array of tool calls, got %s", kindOf(v))
	}
	calls := make([]promptcanary.ToolCall, 0, len(items))
	for i, item := range items {
		var tc struct {
			ID        json.RawMessage `json:"id"`
			Name      json.RawMessage `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Function  *struct {
				Name      json.RawMessage `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		}
		if err := json.Unmarshal(item, &tc); err != nil {
			return nil, fmt.Errorf("tool call %d: want an object", i)
		}
		name, args := tc.Name, tc.Arguments
		if len(name) == 0 && tc.Function != nil {
			name, args = tc.Function.Name, tc.Function.Arguments
		}
		var call promptcanary.ToolCall
		if err := json.Unmarshal(name, &call.Name); err != nil || call.Name == "" {
			return nil, fmt.Errorf("tool call %d: want a non-empty string name", i)
		}
		if len(tc.ID) > 0 && string(tc.ID) != "null" {
			if err := json.Unmarshal(tc.ID, &call.ID); err != nil {
				return nil, fmt.Errorf("tool call %d: want a string id", i)
			}
		}
		call.Arguments = toolcall.AsWritten(args)
		calls = append(calls, call)
	}
	return calls, nil
}

// clip shortens s to at most n bytes for an error message.
func clip(s string, n int) string {
	return textcut.Bytes(s, n, textcut.Ellipsis)
}

// errLeafMissing reports whether err is a path error for an optional field
// the response did not include.
func errLeafMissing(err error) bool {
	var pe *pathError
	return errors.As(err, &pe) && pe.leafMissing
}
