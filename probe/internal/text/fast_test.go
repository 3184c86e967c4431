package text

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/internal/jsonscan"
)

// stripFencesSplit is StripFences as it was written first, with Split and
// Join: the reference the substring version must agree with.
func stripFencesSplit(content string) string {
	s := strings.TrimSpace(content)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	lines := strings.Split(s, "\n")
	lines = lines[1:]
	if n := len(lines); n > 0 && strings.TrimSpace(lines[n-1]) == "```" {
		lines = lines[:n-1]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

var fastSeeds = []string{"", " ", "```", "```\n", "```\n```", "```json\n{\"a\":1}\n```", "```\n[1]\n  ```  ", "```\n\n```\n",
	"```x\ny\nz", "Hello WORLD", "ÀB Kelvin\u212a İx", "{\"a\": [1, 2.5e-3, true, null, \"\\u00e9\\ud83d\\ude00\"]}",
	"{\"a\":1,\"a\":2}", "[01]", "-", "1.", "1e", "\"\\x\"", "\"\x01\"", "\"\xff\"", "{\"k\":}", "[1,]", " {} ", "nul", "truex",
	"ABCDEFGHIJKLMNOPQRSTUVWXYZ@[`{ abcdefghijklmnopqrstuvwxyz\x7f", strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000), "{\"\\u0041\\\"b\": 1, \"c\\ud800\": 2}"}

// FuzzFast checks the allocation-free routines against the standard
// library: StripFences against its Split version, Lower against
// strings.ToLower, ContainsLower against Contains of ToLower, ScanJSON
// against json.Valid and its keys against json.Decoder's.
func FuzzFast(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s, "abc")
	}
	f.Fuzz(func(t *testing.T, s, kw string) { checkFast(t, s, kw) })
}

func TestFast(t *testing.T) {
	for _, s := range fastSeeds {
		for _, kw := range []string{"", "a", "World", "KELVIN", "k", "i", "é", strings.Repeat("x", 70)} {
			checkFast(t, s, kw)
		}
	}
}

func checkFast(t *testing.T, s, kw string) {
	t.Helper()
	if got, want := StripFences(s), stripFencesSplit(s); got != want {
		t.Errorf("StripFences(%q): got %q, want %q", s, got, want)
	}
	l := Lower(s)
	if got, want := l.String(), strings.ToLower(s); got != want {
		t.Errorf("Lower(%q): got %q, want %q", s, got, want)
	}
	if got, want := IndexRare(s, kw), strings.Index(s, kw); got != want {
		t.Errorf("IndexRare(%q, %q): got %d, want %d", s, kw, got, want)
	}
	if got, want := ContainsLower(l.String(), kw), strings.Contains(strings.ToLower(s), strings.ToLower(kw)); got != want {
		t.Errorf("ContainsLower(%q, %q): got %v, want %v", s, kw, got, want)
	}
	ascii := true
	for i := 0; i < len(s); i++ {
		ascii = ascii && s[i] < 0x80
	}
	if l.ASCII() != ascii {
		t.Errorf("Lower(%q).ASCII(): got %v, want %v", s, l.ASCII(), ascii)
	}
	l.Release()
	var keys []string
	kind, ok := ScanJSON(s, func(depth int, lit string) {
		if depth == 1 {
			keys = append(keys, JSONUnquote(lit))
		}
	})
	if want := json.Valid([]byte(s)); ok != want {
		t.Fatalf("ScanJSON(%q): got %v, want %v", s, ok, want)
	}
	if !ok {
		return
	}
	if kind == jsonscan.Object {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.Token()
		var want []string
		var skip json.RawMessage
		for dec.More() {
			tok, _ := dec.Token()
			want = append(want, tok.(string))
			dec.Decode(&skip)
		}
		if strings.Join(keys, "\x00") != strings.Join(want, "\x00") || len(keys) != len(want) {
			t.Errorf("ScanJSON(%q) keys: got %q, want %q", s, keys, want)
		}
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err == nil {
		var want JSONKind
		switch v.(type) {
		case map[string]any:
			want = jsonscan.Object
		case []any:
			want = jsonscan.Array
		case string:
			want = jsonscan.String
		case float64:
			want = jsonscan.Number
		case bool:
			want = jsonscan.Boolean
		case nil:
			want = jsonscan.Null
		}
		if kind != want {
			t.Errorf("ScanJSON(%q) kind: got %v, want %v", s, kind, want)
		}
	}
}
