package text

import "testing"

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
