package textcut

import (
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	tests := []struct {
		name string
		cut  func(string, int, string) string
		s    string
		n    int
		mark string
		want string
	}{
		{"runes empty", Runes, "", 3, Ellipsis, ""},
		{"runes shorter", Runes, "abc", 5, Ellipsis, "abc"},
		{"runes exact", Runes, "abc", 3, Ellipsis, "abc"},
		{"runes cut ascii", Runes, "abcdef", 3, Ellipsis, "abc…"},
		{"runes cut ascii no mark", Runes, "abcdef", 3, "", "abc"},
		{"runes cut multibyte", Runes, "héllo wörld", 4, Ellipsis, "héll…"},
		{"runes fit in runes not bytes", Runes, "ééé", 3, Ellipsis, "ééé"},
		{"runes zero", Runes, "abc", 0, Ellipsis, "…"},
		{"runes zero empty", Runes, "", 0, Ellipsis, ""},
		{"runes negative keeps", Runes, "abc", -1, Ellipsis, "abc"},
		{"runes invalid byte counts as one", Runes, "a\xffbc", 2, "", "a\xff"},
		{"runes emoji", Runes, "😀😀😀", 2, Ellipsis, "😀😀…"},
		{"bytes empty", Bytes, "", 3, Ellipsis, ""},
		{"bytes shorter", Bytes, "abc", 5, Ellipsis, "abc"},
		{"bytes exact", Bytes, "abc", 3, Ellipsis, "abc"},
		{"bytes cut ascii", Bytes, "abcdef", 3, Ellipsis, "abc…"},
		{"bytes cut ascii no mark", Bytes, "abcdef", 3, "", "abc"},
		{"bytes inside a sequence", Bytes, "aé", 2, "", "a"},
		{"bytes after a sequence", Bytes, "aéb", 3, "", "aé"},
		{"bytes inside a 4-byte rune", Bytes, "😀x", 3, Ellipsis, "…"},
		{"bytes zero", Bytes, "abc", 0, Ellipsis, "…"},
		{"bytes negative", Bytes, "abc", -2, "", ""},
		{"bytes stray continuation bytes", Bytes, "\x80\x80\x80ab", 2, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.cut(tc.s, tc.n, tc.mark); got != tc.want {
				t.Errorf("cut(%q, %d, %q) = %q, want %q", tc.s, tc.n, tc.mark, got, tc.want)
			}
		})
	}
}

// runesReference is the plain definition, decoding rune by rune: the first
// n runes of s and the mark when s has more; a negative n keeps s.
func runesReference(s string, n int, mark string) string {
	if n < 0 {
		return s
	}
	i := 0
	for range n {
		if i >= len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + mark
}

func FuzzCut(f *testing.F) {
	for _, s := range []string{"", "abc", "héllo", "😀😀", "a\xffb", "\x80\x80"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= 64
		if got, want := Runes(s, n, Ellipsis), runesReference(s, n, Ellipsis); got != want {
			t.Fatalf("Runes(%q, %d) = %q, want %q", s, n, got, want)
		}
		b := Bytes(s, n, "")
		if len(b) > max(n, 0) && b != s {
			t.Fatalf("Bytes(%q, %d) = %q: longer than %d bytes", s, n, b, n)
		}
		if b != s[:len(b)] {
			t.Fatalf("Bytes(%q, %d) = %q: not a prefix", s, n, b)
		}
		if b != s && utf8.ValidString(s) && !utf8.ValidString(b) {
			t.Fatalf("Bytes(%q, %d) = %q: cut inside a rune", s, n, b)
		}
		if b != s && utf8.ValidString(s) && len(b) < n-utf8.UTFMax+1 {
			t.Fatalf("Bytes(%q, %d) = %q: dropped more than a split rune", s, n, b)
		}
	})
}
