package cli

import "testing"

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		split []int
		want  string
	}{
		{[]int{5, 5, 5}, "5 sample(s) per prompt each"},
		{[]int{3, 2, 2}, "run 1 takes 3 samples per prompt, runs 2–3 take 2"},
		{[]int{8, 8, 7, 7}, "runs 1–2 take 8 samples per prompt, runs 3–4 take 7"},
		{[]int{2, 2, 1}, "runs 1–2 take 2 samples per prompt, run 3 takes 1"},
	} {
		if got := splitWords(tc.split); got != tc.want {
			t.Errorf("splitWords(%v) = %q, want %q", tc.split, got, tc.want)
		}
	}
}
