package report

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of the word diff: the tokens of each side that take part, and the
// cells of the longest-common-subsequence table. Past them the differing
// middle of two answers is shown as replaced whole, which is still right,
// only less precise.
const (
	diffMaxTokens = 4000
	diffMaxCells  = 1 << 20
)

// diffOp is one piece of a word diff: text common to both sides, deleted
// from the baseline or inserted in the current answer.
type diffOp struct {
	Kind byte // '=', '-' or '+'
	Text string
}

// Same, Del and Ins tell the templates what kind of piece an op is.
func (o diffOp) Same() bool { return o.Kind == '=' }

// Del reports whether the piece is only in the baseline.
func (o diffOp) Del() bool { return o.Kind == '-' }

// Ins reports whether the piece is only in the current answer.
func (o diffOp) Ins() bool { return o.Kind == '+' }

// wordDiff returns the word-level difference from a to b: a longest common
// subsequence over word and whitespace tokens, after the common prefix and
// suffix are set aside. Joining the '=' and '-' texts gives a back, the '='
// and '+' texts give b. Answers too long for the bounds get a coarser diff:
// the part beyond diffMaxTokens, or a middle whose table would exceed
// diffMaxCells, is shown as deleted and inserted whole.
func wordDiff(a, b string) []diffOp {
	ta, tb := tokens(a), tokens(b)
	var ops []diffOp
	pre := 0
	for pre < len(ta) && pre < len(tb) && ta[pre] == tb[pre] {
		pre++
	}
	suf := 0
	for suf < len(ta)-pre && suf < len(tb)-pre && ta[len(ta)-1-suf] == tb[len(tb)-1-suf] {
		suf++
	}
	ops = appendOp(ops, '=', strings.Join(ta[:pre], ""))
	ma, mb := ta[pre:len(ta)-suf], tb[pre:len(tb)-suf]
	var tailA, tailB []string
	if len(ma) > diffMaxTokens {
		ma, tailA = ma[:diffMaxTokens], ma[diffMaxTokens:]
	}
	if len(mb) > diffMaxTokens {
		mb, tailB = mb[:diffMaxTokens], mb[diffMaxTokens:]
	}
	if len(ma)*len(mb) > diffMaxCells {
		ops = appendOp(ops, '-', strings.Join(ma, ""))
		ops = appendOp(ops, '+', strings.Join(mb, ""))
	} else {
		ops = lcsOps(ops, ma, mb)
	}
	ops = appendOp(ops, '-', strings.Join(tailA, ""))
	ops = appendOp(ops, '+', strings.Join(tailB, ""))
	return joinChanges(appendOp(ops, '=', strings.Join(ta[len(ta)-suf:], "")))
}

// joinChanges folds whitespace left common between two changes into them,
// so that "[-b-]{+x+} [-c-]{+y+}" reads "[-b c-]{+x y+}": each run of
// changes becomes one deletion followed by one insertion.
func joinChanges(ops []diffOp) []diffOp {
	out := make([]diffOp, 0, len(ops))
	var del, ins strings.Builder
	flush := func() {
		out = appendOp(out, '-', del.String())
		out = appendOp(out, '+', ins.String())
		del.Reset()
		ins.Reset()
	}
	for i, o := range ops {
		switch {
		case o.Kind == '-':
			del.WriteString(o.Text)
		case o.Kind == '+':
			ins.WriteString(o.Text)
		case i > 0 && i < len(ops)-1 && strings.TrimSpace(o.Text) == "" && del.Len()+ins.Len() > 0:
			del.WriteString(o.Text)
			ins.WriteString(o.Text)
		default:
			flush()
			out = append(out, o)
		}
	}
	flush()
	return out
}

// lcsOps appends the diff of a and b by their longest common subsequence.
func lcsOps(ops []diffOp, a, b []string) []diffOp {
	n, m := len(a), len(b)
	// l[i*(m+1)+j] is the LCS length of a[i:] and b[j:].
	l := make([]int32, (n+1)*(m+1))
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i*(m+1)+j] = l[(i+1)*(m+1)+j+1] + 1
			} else {
				l[i*(m+1)+j] = max(l[(i+1)*(m+1)+j], l[i*(m+1)+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case a[i] == b[j]:
			ops = appendOp(ops, '=', a[i])
			i, j = i+1, j+1
		case l[(i+1)*(m+1)+j] >= l[i*(m+1)+j+1]:
			ops = appendOp(ops, '-', a[i])
			i++
		default:
			ops = appendOp(ops, '+', b[j])
			j++
		}
	}
	ops = appendOp(ops, '-', strings.Join(a[i:], ""))
	return appendOp(ops, '+', strings.Join(b[j:], ""))
}

// appendOp appends a piece, merging it into the last one of its kind. A
// whitespace-only change between two changes of the same kind joins them,
// so that "[-a-] [-b-]" reads "[-a b-]".
func appendOp(ops []diffOp, kind byte, text string) []diffOp {
	if text == "" {
		return ops
	}
	if n := len(ops); n > 0 && ops[n-1].Kind == kind {
		ops[n-1].Text += text
		return ops
	}
	return append(ops, diffOp{Kind: kind, Text: text})
}

// tokens splits s into words and runs of whitespace; punctuation is a
// token of its own, so "Paris." and "Paris," share "Paris".
func tokens(s string) []string {
	var out []string
	start := 0
	class := func(r rune) int {
		switch {
		case unicode.IsSpace(r):
			return 0
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '\'':
			return 1
		}
		return 2
	}
	prev := -1
	for i, r := range s {
		c := class(r)
		if r == utf8.RuneError {
			c = 2
		}
		if i > start && (c != prev || c == 2) {
			out = append(out, s[start:i])
			start = i
		}
		prev = c
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// diffSides splits a diff into what each side shows: the baseline's text
// with its deletions marked, and the current text with its insertions.
func diffSides(ops []diffOp) (base, cur []diffOp) {
	for _, o := range ops {
		switch o.Kind {
		case '=':
			base, cur = append(base, o), append(cur, o)
		case '-':
			base = append(base, o)
		case '+':
			cur = append(cur, o)
		}
	}
	return base, cur
}

// diffChanged reports whether a diff has any deletion or insertion.
func diffChanged(ops []diffOp) bool {
	for _, o := range ops {
		if o.Kind != '=' {
			return true
		}
	}
	return false
}
