package match

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestLowerOutsideFold checks lowerOutsideFold against every rune: a rune
// whose lower case is outside its folding orbit must be listed, and every
// listed rune must be such a rune.
func TestLowerOutsideFold(t *testing.T) {
	var want []rune
	for r := rune(0); r <= unicode.MaxRune; r++ {
		q := unicode.ToLower(r)
		if q == r {
			continue
		}
		inOrbit := false
		for f := unicode.SimpleFold(q); f != q; f = unicode.SimpleFold(f) {
			if f == r {
				inOrbit = true
				break
			}
		}
		if !inOrbit {
			want = append(want, r)
		}
	}
	if !slices.Equal(lowerOutsideFold, want) {
		t.Errorf("lowerOutsideFold: got %q, want %q", lowerOutsideFold, want)
	}
}

// foldSamples are texts with the cases that break naive case folding.
var foldSamples = []string{
	"", "a", "A", "Paris", "PARIS", "pArIs", "k", "K", "\u212a", "ok", "O\u212a",
	"i", "I", "\u0130", "\u0131", "s", "S", "\u017f", "ß", "ẞ", "Straße", "STRASSE",
	"ǅ", "Ǆ", "ǆ", "Σ", "σ", "ς", "Ärger", "ärger", "\xff", "a\xffb", "\xe2\x82", "€", "\ufffd",
	"\xe2\x82\xac\xac", "\xf0\x9f\x98", "😀", "a😀b", "  spaced  ",
}

// TestFoldMatchesToLower compares the allocation-free comparisons with the
// same comparisons on strings.ToLower of both sides.
func TestFoldMatchesToLower(t *testing.T) {
	for _, s := range foldSamples {
		for _, v := range foldSamples {
			if v == "" {
				continue
			}
			checkFold(t, s+" "+s, v)
			checkFold(t, s, v)
			checkFold(t, s+v, v)
			checkFold(t, v+s, v)
		}
	}
}

// checkFold fails t when a fold comparison of s and v disagrees with
// strings.ToLower.
func checkFold(t testing.TB, s, v string) {
	t.Helper()
	f := newFolded(v)
	ls := strings.ToLower(s)
	if got, want := containsLower(s, &f), strings.Contains(ls, f.low); got != want {
		t.Fatalf("containsLower(%q, %q): got %v, want %v", s, v, got, want)
	}
	if got, want := hasLowerPrefix(s, f.low), strings.HasPrefix(ls, f.low); got != want {
		t.Fatalf("hasLowerPrefix(%q, %q): got %v, want %v", s, v, got, want)
	}
	if got, want := hasLowerSuffix(s, f.low), strings.HasSuffix(ls, f.low); got != want {
		t.Fatalf("hasLowerSuffix(%q, %q): got %v, want %v", s, v, got, want)
	}
	if got, want := equalLower(s, f.low), ls == f.low; got != want {
		t.Fatalf("equalLower(%q, %q): got %v, want %v", s, v, got, want)
	}
}

func TestStartBytes(t *testing.T) {
	tests := []struct {
		value string
		want  []byte
	}{
		{"paris", []byte{'p', 'P'}},
		{"1", []byte{'1'}},
		{"k", []byte{'k', 0xe2, 'K'}}, // the Kelvin sign lowers to k
		{"i", []byte{'i', 'I', 0xc4}}, // İ lowers to i
		{"é", []byte{0xc3}},           // é and É share their first byte
		{"\ufffd", nil},               // any invalid byte lowers to U+FFFD
	}
	for _, tc := range tests {
		if got := newFolded(tc.value).starts; !slices.Equal(got, tc.want) {
			t.Errorf("starts of %q: got %x, want %x", tc.value, got, tc.want)
		}
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		flags, want, err string
	}{
		{"", "", ""},
		{"i", "(?i)", ""},
		{"smi", "(?ims)", ""},
		{"ii", "", `flag 'i' is repeated`},
		{"x", "", `unknown flag 'x'`},
		{"I", "", `unknown flag 'I'`},
		{"i ", "", `unknown flag ' '`},
	}
	for _, tc := range tests {
		got, err := ParseFlags(tc.flags)
		if got != tc.want {
			t.Errorf("ParseFlags(%q): got %q, want %q", tc.flags, got, tc.want)
		}
		if gotErr := errString(err); gotErr != tc.err {
			t.Errorf("ParseFlags(%q) error: got %q, want %q", tc.flags, gotErr, tc.err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
