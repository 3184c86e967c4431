package text

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary/internal/jsonscan"
)

var docSeeds = []string{"{}", " {\"a\":1} ", `{"a": [1, 2.5, "x", true, null, {}], "b": {"c": []}}`, `"\u00e9\ud800x"`, `[]`, `{"a": 1, "a": {"b": 2}}`,
	"\"\xff\"", `1e400`, `[1e400]`, `{`, ``, ` 1 `, `-0.0e+1`, `{"\u0061": 1, "a": 2}`, `"a\"b\\c\/d\n"`, `[[[]]]`, `{"k": 12345678901234567890}`}

// FuzzJSONDoc checks the decoded values against encoding/json: Value
// against json.Unmarshal, NumberValue against a json.Decoder with
// UseNumber, Err against Unmarshal's error.
func FuzzJSONDoc(f *testing.F) {
	for _, s := range docSeeds {
		f.Add(s)
	}
	f.Fuzz(checkJSONDoc)
}

// depth is the deepest nesting of brackets outside strings in s.
func depth(s string) int {
	n, deepest := 0, 0
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case inString && c == '"':
			inString = false
		case inString:
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			n++
			deepest = max(deepest, n)
		case c == ']' || c == '}':
			n--
		}
	}
	return deepest
}

func checkJSONDoc(t *testing.T, s string) {
	t.Helper()
	d := ParseJSON(s)
	defer d.Release()
	var want any
	err := json.Unmarshal([]byte(s), &want)
	got, ok := d.Value()
	if ok != (err == nil) {
		t.Fatalf("Value(%q): ok %v, Unmarshal error %v", s, ok, err)
	}
	if ok && !reflect.DeepEqual(got, want) {
		t.Errorf("Value(%q):\ngot  %#v\nwant %#v", s, got, want)
	}
	if v, okD := DecodeJSON(s); okD != ok || !reflect.DeepEqual(v, got) {
		t.Errorf("DecodeJSON(%q): got %#v, %v, want %#v, %v", s, v, okD, got, ok)
	}
	if _, valid := d.Kind(); valid != json.Valid([]byte(s)) {
		t.Errorf("Kind(%q): valid %v, want %v", s, valid, !valid)
	}
	if valid := json.Valid([]byte(s)); !valid {
		if d.Err() == nil || d.Err().Error() != err.Error() {
			t.Errorf("Err(%q): got %v, want %v", s, d.Err(), err)
		}
		return
	} else if d.Err() != nil {
		t.Errorf("Err(%q): got %v, want nil", s, d.Err())
	}
	var wantKeys []string
	kind, _ := ScanJSON(s, func(depth int, lit string) {
		if k := JSONUnquote(lit); depth == 1 && !slices.Contains(wantKeys, k) {
			wantKeys = append(wantKeys, k)
		}
	})
	if kind != jsonscan.Object {
		wantKeys = nil
	} else if wantKeys == nil {
		wantKeys = []string{}
	}
	if got := d.Keys(); !slices.Equal(got, wantKeys) || (got == nil) != (wantKeys == nil) {
		t.Errorf("Keys(%q): got %q, want %q", s, got, wantKeys)
	}
	if got, want := d.Depth(), depth(s); got != want {
		t.Errorf("Depth(%q): got %d, want %d", s, got, want)
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var wantN any
	if err := dec.Decode(&wantN); err != nil {
		t.Fatalf("Decode(%q): %v", s, err)
	}
	if gotN, ok := d.NumberValue(); !ok || !reflect.DeepEqual(gotN, wantN) {
		t.Errorf("NumberValue(%q):\ngot  %#v, %v\nwant %#v", s, gotN, ok, wantN)
	}
}

// FuzzMember checks Member against the decoded object: every key's value,
// the last of a repeated key, and no value for a key the object lacks.
func FuzzMember(f *testing.F) {
	for _, s := range []string{`{"a": 1, "b": [true, {"c": "d"}], "a": "x"}`, `{}`, ` { "\u00e9" : null } `,
		`{"n": 1.5e3}`, `[1]`, `{"k": {"k": {"k": 1}}}`, `{"a\"b": "c", "": 0}`} {
		f.Add(s, "a")
	}
	f.Fuzz(func(t *testing.T, s, missing string) {
		d := ParseJSON(s)
		defer d.Release()
		if k, _ := d.Kind(); k != jsonscan.Object || !d.Narrow() {
			return
		}
		v, ok := d.Value()
		if !ok {
			t.Fatalf("%q: Narrow but Value fails", s)
		}
		m := v.(map[string]any)
		for key, want := range m {
			got, found := Member(s, key)
			if !found || !reflect.DeepEqual(got, want) {
				t.Fatalf("Member(%q, %q) = %v, %v, want %v", s, key, got, found, want)
			}
		}
		if _, in := m[missing]; !in {
			if got, found := Member(s, missing); found {
				t.Fatalf("Member(%q, %q) = %v, want none", s, missing, got)
			}
		}
	})
}
