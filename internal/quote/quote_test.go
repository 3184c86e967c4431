package quote

import (
	"strings"
	"testing"
)

func TestValue(t *testing.T) {
	long := strings.Repeat("a", 10<<20)
	tests := []struct {
		name, in, want string
	}{
		{"short", "checkout", `"checkout"`},
		{"exactly Max", strings.Repeat("b", Max), `"` + strings.Repeat("b", Max) + `"`},
		{"ten megabytes", long, `"` + strings.Repeat("a", Max) + `…" (10,485,760 characters)`},
		{"characters, not bytes", strings.Repeat("é", Max+1), `"` + strings.Repeat("é", Max) + `…" (201 characters)`},
		{"escapes kept whole", strings.Repeat("\n", Max+5), `"` + strings.Repeat(`\n`, Max) + `…" (205 characters)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Value(tc.in); got != tc.want {
				t.Errorf("got %.300q, want %.300q", got, tc.want)
			}
		})
	}
}

func TestBound(t *testing.T) {
	a := strings.Repeat("a", 300)
	cut := strings.Repeat("a", Max)
	tests := []struct {
		name, in, want string
	}{
		{"short message untouched", `invalid name "x y"`, `invalid name "x y"`},
		{"quoted value", `invalid name "` + a + `" here`, `invalid name "` + cut + `…" (300 characters) here`},
		{"escaped quotes inside", `bad "` + strings.Repeat(`\"`, 250) + `"`, `bad "` + strings.Repeat(`\"`, Max) + `…" (250 characters)`},
		{"unquoted run", "prices." + a + ".input: unknown field", "prices." + strings.Repeat("a", Max-7) + "… (314 characters) unknown field"},
		{"number", "out of range: got " + strings.Repeat("9", 250), "out of range: got " + strings.Repeat("9", Max) + "… (250 characters)"},
		{"unclosed quote is text", `x "` + a, `x "` + strings.Repeat("a", Max-1) + "… (301 characters)"},
		{"short values among long text", strings.Repeat("word ", 60) + `"v"`, strings.Repeat("word ", 60) + `"v"`},
		{"lines kept", a + "\n" + "b", cut + "… (300 characters)\nb"},
		{"value with spaces", "unknown type " + strings.Repeat("ab ", 500), "unknown type " + strings.Repeat("ab ", 329) + "… (1,513 characters)"},
		{"each line on its own", strings.Repeat("ab ", 400) + "\nshort", strings.Repeat("ab ", 333) + "a… (1,200 characters)\nshort"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Bound(tc.in)
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
			if again := Bound(got); again != got {
				t.Errorf("bounding twice changed it:\nonce  %q\ntwice %q", got, again)
			}
		})
	}
}

// TestBoundIsLinear feeds Bound the quotes that could make a careless scan
// quadratic: a megabyte of them must be bounded like any text.
func TestBoundIsLinear(t *testing.T) {
	msg := strings.Repeat(`"\`, 1<<19)
	if got := Bound(msg); len(got) > 4*Max {
		t.Errorf("got %d bytes, want at most %d", len(got), 4*Max)
	}
}

func FuzzBound(f *testing.F) {
	f.Add(`invalid name "` + strings.Repeat("a", 300) + `"`)
	f.Add(`"\"` + strings.Repeat(`\"`, 200))
	f.Fuzz(func(t *testing.T, msg string) {
		got := Bound(msg)
		for _, line := range strings.Split(got, "\n") {
			if n := len([]rune(line)); n > MaxLine+40 {
				t.Fatalf("line of %d characters in %.80q", n, got)
			}
			for _, word := range strings.Fields(line) {
				if len([]rune(word)) > 10*Max+40 { // an escape such as \U0010ffff per character
					t.Fatalf("word of %d characters in %.80q", len([]rune(word)), got)
				}
			}
		}
		if len(msg) <= Max && got != msg {
			t.Fatalf("short message changed: %q to %q", msg, got)
		}
	})
}
