package clip

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary/provider"
)

func TestReader(t *testing.T) {
	big := strings.Repeat("é", 600) // 1,200 bytes
	tests := []struct {
		name     string
		in       string
		want     string
		cut      bool
		original int64
	}{
		{"short strings kept", `{"a":"short","b":[1,"x"]}`, `{"a":"short","b":[1,"x"]}`, false, 0},
		{"long string cut", `{"content":"` + strings.Repeat("a", 40) + `","n":1}`, `{"content":"` + strings.Repeat("a", 16) + `","n":1}`, true, 40},
		{"escapes kept whole", `["` + strings.Repeat(`\n`, 10) + `"]`, `["` + strings.Repeat(`\n`, 8) + `"]`, true, 10},
		{"unicode escape kept whole", `["abcdefghijklmno\u00e9xyz"]`, `["abcdefghijklmno\u00e9"]`, true, 20},
		{"surrogate pair counted as four bytes", `["` + strings.Repeat("a", 16) + `\ud83d\ude00"]`, `["` + strings.Repeat("a", 16) + `"]`, true, 20},
		{"multi-byte characters kept whole", `["` + big + `"]`, `["` + strings.Repeat("é", 8) + `"]`, true, 1200},
		{"quote inside a string", `["` + strings.Repeat(`\"`, 20) + `","k"]`, `["` + strings.Repeat(`\"`, 8) + `","k"]`, true, 20},
		{"plain text cut", "  " + strings.Repeat("t", 30), "  " + strings.Repeat("t", 16), true, 30},
		{"plain text kept", "hello", "hello", false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &provider.Bound{Max: 16}
			got, err := io.ReadAll(iotest.OneByteReader(New(strings.NewReader(tc.in), b)))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			cut, original := b.Cut()
			if cut != tc.cut || original != tc.original {
				t.Errorf("got cut %v of %d bytes, want %v of %d", cut, original, tc.cut, tc.original)
			}
			var w bytes.Buffer
			cw := NewWriter(&w, &provider.Bound{Max: 16})
			for i := 0; i < len(tc.in); i += 7 {
				cw.Write([]byte(tc.in[i:min(len(tc.in), i+7)]))
			}
			cw.Close()
			if w.String() != tc.want {
				t.Errorf("Writer wrote %s, want %s", w.String(), tc.want)
			}
		})
	}
}

// FuzzReader checks that a valid JSON document (an object, an array or a
// string) stays valid, with no string longer than the bound plus one
// character or escape.
func FuzzReader(f *testing.F) {
	f.Add(`{"choices":[{"message":{"content":"` + strings.Repeat("ab\\n\\u00e9", 20) + `"}}]}`)
	f.Add(`["\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00"]`)
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) || !utf8.ValidString(in) {
			t.Skip() // invalid UTF-8 decodes to U+FFFD, three bytes for one
		}
		if trimmed := strings.TrimLeft(in, " \t\r\n"); trimmed == "" || !strings.ContainsRune("{[\"", rune(trimmed[0])) {
			t.Skip() // a bare number or literal is read as text, cut as text
		}
		b := &provider.Bound{Max: 8}
		got, err := io.ReadAll(New(strings.NewReader(in), b))
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(got) {
			t.Fatalf("%s became invalid: %s", in, got)
		}
		longest := 0
		var walk func(v any)
		walk = func(v any) {
			switch x := v.(type) {
			case string:
				longest = max(longest, len(x))
			case []any:
				for _, e := range x {
					walk(e)
				}
			case map[string]any:
				for k, e := range x {
					walk(k)
					walk(e)
				}
			}
		}
		var v any
		json.Unmarshal(got, &v)
		walk(v)
		if longest > 8+6 {
			t.Fatalf("a string of %d bytes is left in %s", longest, got)
		}
	})
}
