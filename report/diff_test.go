package report

import (
	"strings"
	"testing"
)

// render writes a diff with [-…-] and {+…+} markers.
func renderDiff(ops []diffOp) string {
	var b strings.Builder
	for _, o := range ops {
		switch o.Kind {
		case '-':
			b.WriteString("[-" + o.Text + "-]")
		case '+':
			b.WriteString("{+" + o.Text + "+}")
		default:
			b.WriteString(o.Text)
		}
	}
	return b.String()
}

func TestWordDiff(t *testing.T) {
	tests := []struct{ name, a, b, want string }{
		{"equal", "Paris.", "Paris.", "Paris."},
		{"both empty", "", "", ""},
		{"from empty", "", "new text", "{+new text+}"},
		{"to empty", "old text", "", "[-old text-]"},
		{"one word", "The capital is Paris.", "The capital is Lyon.", "The capital is [-Paris-]{+Lyon+}."},
		{"inserted preamble", "Paris.", "Great question! Paris.", "{+Great question! +}Paris."},
		{"words joined across spaces", "a b c d", "a x y d", "a [-b c-]{+x y+} d"},
		{"multi-line", "line one\nline two", "line one\nline 2", "line one\nline [-two-]{+2+}"},
		{"unicode", "café crème", "café noir", "café [-crème-]{+noir+}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ops := wordDiff(tc.a, tc.b)
			if got := renderDiff(ops); got != tc.want {
				t.Errorf("wordDiff(%q, %q) got %q, want %q", tc.a, tc.b, got, tc.want)
			}
			checkDiffSides(t, ops, tc.a, tc.b)
		})
	}
}

// checkDiffSides asserts that a diff rebuilds both of its inputs.
func checkDiffSides(t *testing.T, ops []diffOp, a, b string) {
	t.Helper()
	base, cur := diffSides(ops)
	join := func(ops []diffOp) string {
		var s strings.Builder
		for _, o := range ops {
			s.WriteString(o.Text)
		}
		return s.String()
	}
	if got := join(base); got != a {
		t.Errorf("baseline side rebuilds %.80q, want %.80q", got, a)
	}
	if got := join(cur); got != b {
		t.Errorf("current side rebuilds %.80q, want %.80q", got, b)
	}
}

// TestWordDiffHuge checks that answers past the bounds still diff, coarsely,
// and still rebuild both sides.
func TestWordDiffHuge(t *testing.T) {
	a := strings.Repeat("alpha beta gamma ", 20000)
	b := "intro " + strings.Repeat("alpha beta delta ", 20000)
	ops := wordDiff(a, b)
	if !diffChanged(ops) {
		t.Fatal("got no change, want one")
	}
	checkDiffSides(t, ops, a, b)
}

func BenchmarkWordDiff(b *testing.B) {
	x := strings.Repeat("the quick brown fox jumps over the lazy dog ", 100)
	y := strings.ReplaceAll(x, "lazy", "sleepy")
	for b.Loop() {
		wordDiff(x, y)
	}
}
