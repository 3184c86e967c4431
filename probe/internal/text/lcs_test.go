package text

import (
	"strings"
	"testing"
)

func TestLCS(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "", 0}, {"abc", "abc", 3}, {"abcbdab", "bdcaba", 4}, {"axbycz", "abc", 3}, {"abc", "cba", 1}}
	for _, tc := range tests {
		if got := LCS(strings.Split(tc.a, ""), strings.Split(tc.b, "")); got != tc.want {
			t.Errorf("LCS(%q, %q): got %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := LCS([]byte(tc.b), []byte(tc.a)); got != tc.want {
			t.Errorf("LCS(%q, %q) as bytes: got %d, want %d", tc.b, tc.a, got, tc.want)
		}
	}
}
