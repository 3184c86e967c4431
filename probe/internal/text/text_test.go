package text

import (
	"strconv"
	"testing"
)

func TestStripFences(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", ` {"a":1} `, `{"a":1}`},
		{"json fence", "```json\n{\"a\":1}\n```", `{"a":1}`},
		{"no closing fence", "```\n{\"a\":1}", `{"a":1}`},
		{"closing fence with spaces", "```\n[1]\n  ```  ", `[1]`},
		{"only fence", "```", ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StripFences(tc.in); got != tc.want {
				t.Errorf("StripFences(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestPreviewCountsCodePoints(t *testing.T) {
	if got, want := Preview("héllo wörld", 7), "héllo w"; got != want {
		t.Errorf("Preview = %q, want %q", got, want)
	}
	if got := Preview("abc", 10); got != "abc" {
		t.Errorf("Preview = %q, want abc", got)
	}
}

func TestCount(t *testing.T) {
	res := Compile("(?i)", `\bmaybe\b`, `\bperhaps\b`)
	if got := Count("Maybe, perhaps; maybe.", res); got != 3 {
		t.Errorf("Count = %d, want 3", got)
	}
	if got := WordCount("  one two\tthree\n"); got != 3 {
		t.Errorf("WordCount = %d, want 3", got)
	}
}

func TestQuoteList(t *testing.T) {
	tests := []struct {
		values []string
		most   int
		want   string
	}{
		{nil, 2, ""},
		{[]string{"a"}, 2, `"a"`},
		{[]string{"a", "b"}, 2, `"a", "b"`},
		{[]string{"a", "b", "c", "d", "e"}, 2, `"a", "b" and 3 more`},
		{[]string{"a", "b"}, 0, ` and 2 more`},
	}
	for _, tc := range tests {
		if got := QuoteList(tc.values, tc.most, strconv.Quote); got != tc.want {
			t.Errorf("QuoteList(%q, %d): got %q, want %q", tc.values, tc.most, got, tc.want)
		}
	}
}
