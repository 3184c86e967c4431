package tooluse

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// toAny converts a node to the value encoding/json decodes with UseNumber.
func toAny(n *node) any {
	switch n.kind {
	case kindBool:
		return n.b
	case kindNumber:
		return json.Number(n.str)
	case kindString:
		return n.str
	case kindArray:
		out := make([]any, len(n.items))
		for i := range n.items {
			out[i] = toAny(&n.items[i])
		}
		return out
	case kindObject:
		out := make(map[string]any, len(n.members))
		for i := range n.members {
			out[n.members[i].key] = toAny(&n.members[i].val)
		}
		return out
	}
	return nil
}

// decodeStd decodes s with encoding/json, numbers kept as json.Number.
func decodeStd(s string) (any, bool) {
	var v any
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	return v, json.Valid([]byte(s))
}

func TestParseJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"object", ` {"a": [1, -2.5e3, true, false, null, "x"], "b": {}} `, true},
		{"escapes", `{"k\"ey": "line\nbreak \u00e9 \ud83d\ude00 \/"}`, true},
		{"invalid utf-8 replaced", "\"a\xffb\"", true},
		{"control escapes and upper-case hex", `"\b\f\r\t\u00E9\u00e9"`, true},
		{"unpaired surrogates", `["\ud800\u0041", "\udc00x", "\ud800", "\ud83d\ud83d\ude00"]`, true},
		{"nested arrays", `[[[]], [{}], ""]`, true},
		{"number", `-0.5`, true},
		{"empty", ``, false},
		{"trailing data", `{} {}`, false},
		{"trailing comma", `{"a": 1,}`, false},
		{"single quotes", `{'a': 1}`, false},
		{"NaN", `{"a": NaN}`, false},
		{"prose", `Sure! {"a": 1}`, false},
		{"byte order mark", "\ufeff{}", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, ok := parseJSON(tc.in)
			if ok != tc.ok {
				t.Fatalf("ok: got %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			want, _ := decodeStd(tc.in)
			if got := toAny(&n); !reflect.DeepEqual(got, want) {
				t.Errorf("tree: got %#v, want %#v", got, want)
			}
		})
	}
}

func TestParseJSONKeepsDocumentOrder(t *testing.T) {
	n, ok := parseJSON(`{"z": 1, "a": 2, "z": 3, "m": 4}`)
	if !ok {
		t.Fatal("parseJSON: got not JSON, want JSON")
	}
	var keys []string
	var vals []string
	for _, m := range n.members {
		keys = append(keys, m.key)
		vals = append(vals, m.val.str)
	}
	// A repeated key keeps its first position and takes its last value.
	if want := []string{"z", "a", "m"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("keys: got %v, want %v", keys, want)
	}
	if want := []string{"3", "2", "4"}; !reflect.DeepEqual(vals, want) {
		t.Errorf("values: got %v, want %v", vals, want)
	}
}

func TestDedupManyMembers(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("{")
	for i := range 40 {
		if i > 0 {
			b.WriteString(",")
		}
		// keys k0..k19, each twice; the second value is 100+i.
		b.WriteString(`"k` + string(rune('a'+i%20)) + `": ` + itoa(i))
	}
	b.WriteString("}")
	n, ok := parseJSON(b.String())
	if !ok {
		t.Fatal("parseJSON: got not JSON, want JSON")
	}
	want, _ := decodeStd(b.String())
	if got := toAny(&n); !reflect.DeepEqual(got, want) {
		t.Errorf("tree: got %v, want %v", got, want)
	}
	if len(n.members) != 20 {
		t.Errorf("members: got %d, want 20", len(n.members))
	}
	if n.members[0].key != "ka" || n.members[0].val.str != "20" {
		t.Errorf("first member: got %s=%s, want ka=20", n.members[0].key, n.members[0].val.str)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestIntegral(t *testing.T) {
	tests := []struct {
		lit  string
		want bool
	}{
		{"0", true}, {"-7", true}, {"3.0", true}, {"1e2", true}, {"1E+2", true}, {"2.50e1", true},
		{"12345678901234567890", true}, {"3.5", false}, {"1e-2", false}, {"1e400", false},
	}
	for _, tc := range tests {
		t.Run(tc.lit, func(t *testing.T) {
			n := node{kind: kindNumber, str: tc.lit}
			if got := n.integral(); got != tc.want {
				t.Errorf("integral(%s): got %v, want %v", tc.lit, got, tc.want)
			}
		})
	}
	if s := (node{kind: kindString, str: "3"}); s.integral() {
		t.Error("integral of a string: got true, want false")
	}
}
