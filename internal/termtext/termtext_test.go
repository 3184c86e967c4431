package termtext

import (
	"fmt"
	"strings"
	"testing"
)

func TestSafe(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "héllo 你好", "héllo 你好"},
		{"empty", "", ""},
		{"ansi colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"clear screen", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`},
		{"osc title with bell", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"osc 8 hyperlink", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", `\x1b]8;;http://x\x1b\link\x1b]8;;\x1b\`},
		{"newlines and tabs", "a\r\nb\nc\td\re", "a b c d e"},
		{"nul", "a\x00b", `a\x00b`},
		{"c1 csi", "a\u009b31mb", `a\x9b31mb`},
		{"c1 osc", "a\u009d0;t\u009cb", `a\x9d0;t\x9cb`},
		{"bidi override", "a\u202eb\u202c", `a\u202eb\u202c`},
		{"bidi isolate", "a\u2066b\u2069", `a\u2066b\u2069`},
		{"zero width space is a format character", "a\u200bb", `a\u200bb`},
		{"invalid utf-8", "a\xffb", `a\xffb`},
		{"delete", "a\x7fb", `a\x7fb`},
		{"nbsp stays", "a\u00a0b", "a\u00a0b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Safe(tc.in); got != tc.want {
				t.Errorf("Safe(%q) got %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// TestSafeLeavesNothingActive checks every byte value and the C1 and
// bidirectional ranges: no control character survives.
func TestSafeLeavesNothingActive(t *testing.T) {
	var in strings.Builder
	for b := range 256 {
		in.WriteByte(byte(b))
	}
	for r := rune(0x80); r < 0xa0; r++ {
		in.WriteRune(r)
	}
	for _, r := range []rune{0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0xfeff} {
		in.WriteRune(r)
	}
	out := Safe(in.String())
	for i, r := range out {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0xfeff {
			t.Fatalf("got %U at byte %d, want it escaped", r, i)
		}
	}
}

func TestSafeLines(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"one line", "a\x1bb", `a\x1bb`},
		{"keeps breaks", "a\r\nb\rc\nd\te", "a\nb\nc\nd e"},
		{"escapes each line", "\x1b[2J\n\u202e", "\\x1b[2J\n\\u202e"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SafeLines(tc.in); got != tc.want {
				t.Errorf("SafeLines(%q) got %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestWidth(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"hello", 5},
		{"", 0},
		{"你好", 4},
		{"e\u0301", 1},
		{"🙂", 2},
		{"a\u200db", 2},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := Width(tc.in); got != tc.want {
				t.Errorf("Width(%q) got %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello world", 6, "hello…"},
		{"你好世界", 5, "你好…"},
		{"你好世界", 8, "你好世界"},
		{"abc", 0, ""},
		{"abc", -3, ""},
		{"abc", 1, "…"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.in, tc.width), func(t *testing.T) {
			got := Truncate(tc.in, tc.width)
			if got != tc.want || Width(got) > max(tc.width, 0) {
				t.Errorf("Truncate(%q, %d) got %q (width %d), want %q", tc.in, tc.width, got, Width(got), tc.want)
			}
		})
	}
}

func TestPadRight(t *testing.T) {
	tests := []struct {
		in   string
		w    int
		want string
	}{
		{"ab", 4, "ab  "},
		{"你", 4, "你  "},
		{"abcdef", 4, "abcdef"},
	}
	for _, tc := range tests {
		if got := PadRight(tc.in, tc.w); got != tc.want {
			t.Errorf("PadRight(%q, %d) got %q, want %q", tc.in, tc.w, got, tc.want)
		}
	}
}

func FuzzSafe(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred", "\x1b]0;t\x07", "a\u202eb", "a\xffb", "\u009b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Safe(s)
		for _, r := range out {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
				t.Fatalf("Safe(%q) = %q keeps %U", s, out, r)
			}
		}
		if Safe(out) != out {
			t.Fatalf("Safe is not idempotent on %q", s)
		}
	})
}
