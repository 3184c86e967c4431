package textcut

import (
	"testing"
	"unicode/utf8"
)

func TestRunes(t *testing.T) {
	tests := []struct {
		name, s string
		n       int
		mark    string
		want    string
	}{
		{"empty", "", 3, Ellipsis, ""},
		{"shorter", "abc", 5, Ellipsis, "abc"},
		{"exact", "abc", 3, Ellipsis, "abc"},
		{"cut ascii", "abcdef", 3, Ellipsis, "abc…"},
		{"cut ascii no mark", "abcdef", 3, "", "abc"},
		{"cut multibyte", "héllo wörld", 4, Ellipsis, "héll…"},
		{"multibyte fits in runes not bytes", "ééé", 3, Ellipsis, "ééé"},
		{"zero", "abc", 0, Ellipsis, "…"},
		{"zero empty", "", 0, Ellipsis, ""},
		{"negative keeps", "abc", -1, Ellipsis, "abc"},
		{"invalid byte counts as one", "a\xffbc", 2, "", "a\xff"},
		{"emoji", "😀😀😀", 2, Ellipsis, "😀😀…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Runes(tc.s, tc.n, tc.mark); got != tc.want {
				t.Errorf("Runes(%q, %d, %q) = %q, want %q", tc.s, tc.n, tc.mark, got, tc.want)
			}
		})
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		name, s string
		n       int
		mark    string
		want    string
	}{
		{"empty", "", 3, Ellipsis, ""},
		{"shorter", "abc", 5, Ellipsis, "abc"},
		{"exact", "abc", 3, Ellipsis, "abc"},
		{"cut ascii", "abcdef", 3, Ellipsis, "abc…"},
		{"cut ascii no mark", "abcdef", 3, "", "abc"},
		{"inside a sequence", "aé", 2, "", "a"},  // é is 2 bytes
		{"after a sequence", "aéb", 3, "", "aé"}, // a + é = 3 bytes
		{"inside a 4-byte rune", "😀x", 3, Ellipsis, "…"},
		{"zero", "abc", 0, Ellipsis, "…"},
		{"negative", "abc", -2, "", ""},
		{"stray continuation bytes", "\x80\x80\x80ab", 2, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Bytes(tc.s, tc.n, tc.mark); got != tc.want {
				t.Errorf("Bytes(%q, %d, %q) = %q, want %q", tc.s, tc.n, tc.mark, got, tc.want)
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
