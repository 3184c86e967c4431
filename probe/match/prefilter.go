package match

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// A filtered regexp answers MatchString and FindStringIndex as its regexp
// does, but first looks for the literal text that every match must hold,
// with strings.IndexByte, and runs the regexp only where a match can be:
//
//   - required: every match holds, for each clause, one of the clause's
//     literals, so a response without them does not match, and the regexp
//     is not run at all;
//   - first: every match starts with one of these literals (after
//     zero-width assertions), so no match starts before the first of them,
//     and the regexp runs from there, one character earlier so that \b and
//     (?m)^ see the character before.
//
// Literals are ASCII; a case-insensitive one is matched up to ASCII case,
// which is what a (?i) regexp does except on the characters it folds to an
// ASCII letter (ſ, the Kelvin sign), where the regexp runs unfiltered.
type filtered struct {
	re       *regexp.Regexp
	required [][]literal
	first    []literal
	// firstIsClause is set when first is also a clause of required.
	firstIsClause bool
}

// literal is a piece of text every match holds, up to ASCII case when
// fold is set.
type literal struct {
	s    string // lowercase
	fold bool
}

// index returns the index of l.s in low, or -1.
func (l literal) index(low string) int { return text.IndexRare(low, l.s) }

// maxLiterals bounds the alternatives of one clause, and of the exact sets
// the analysis combines.
const maxLiterals = 16

// newFiltered analyses re's pattern (as compiled, flags included).
func newFiltered(re *regexp.Regexp) filtered {
	f := filtered{re: re}
	ast, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return f // unreachable: re compiled
	}
	ast = ast.Simplify()
	if anchored(ast) {
		return f // the regexp tries one position only: nothing to save
	}
	inf := analyse(ast)
	inf.flush()
	f.required = inf.clauses
	f.first = firstLiterals(ast)
	for _, c := range f.required {
		if f.first != nil && slices.Equal(c, f.first) {
			f.firstIsClause = true
		}
	}
	return f
}

// MatchString reports whether the regexp matches s; folds is
// text.HasFolds(s).
func (f *filtered) MatchString(s string, folds bool) bool {
	from, ok := f.start(s, folds)
	if !ok {
		return false
	}
	return f.re.MatchString(s[from:])
}

// FindStringIndex is the regexp's FindStringIndex; folds is
// text.HasFolds(s).
func (f *filtered) FindStringIndex(s string, folds bool) []int {
	from, ok := f.start(s, folds)
	if !ok {
		return nil
	}
	loc := f.re.FindStringIndex(s[from:])
	if loc != nil {
		loc[0] += from
		loc[1] += from
	}
	return loc
}

// start returns where the regexp must start searching s, and false when it
// cannot match s. It searches the lowercase copy of s that the probes of a
// response share: every occurrence of a literal in s is one of its
// lowercase form in the copy, so a literal missing from the copy is
// missing from s, and when s is ASCII (the copy's indexes are s's) the
// first occurrence in the copy is at or before the first in s.
func (f *filtered) start(s string, folds bool) (int, bool) {
	if (len(f.required) == 0 && f.first == nil) || folds {
		return 0, true
	}
	l := text.Lower(s)
	defer l.Release()
	low := l.String()
	for _, clause := range f.required {
		if f.firstIsClause && len(f.required) == 1 {
			break // the search for the first literal below does it
		}
		found := false
		for _, lit := range clause {
			if lit.index(low) >= 0 {
				found = true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
	if f.first == nil {
		return 0, true
	}
	p := -1
	for _, lit := range f.first {
		if i := lit.index(low); i >= 0 && (p < 0 || i < p) {
			p = i
		}
	}
	switch {
	case p < 0:
		return 0, false
	case p == 0 || !l.ASCII():
		return 0, true
	}
	// Start at the character before p: no match starts there, since the
	// first literal occurs nowhere before p.
	_, size := utf8.DecodeLastRuneInString(s[:p])
	return p - size, true
}

// anchored reports whether every match of re starts at the beginning of
// the text.
func anchored(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginText:
		return true
	case syntax.OpCapture:
		return anchored(re.Sub[0])
	case syntax.OpConcat:
		return len(re.Sub) > 0 && anchored(re.Sub[0])
	}
	return false
}

// info is what the analysis knows of the text a subexpression matches:
// exact, when not nil, is every string it can match (so it matches one of
// them); clauses are literals each match holds, one of each clause.
type info struct {
	exact   []literal
	known   bool // exact is meaningful (it may be empty: no match at all)
	clauses [][]literal
}

// flush moves the exact set into the clauses.
func (in *info) flush() {
	if in.known {
		in.addClause(in.exact)
	}
	in.exact, in.known = nil, false
}

// addClause adds a clause unless it is trivially true (holds "").
func (in *info) addClause(c []literal) {
	if len(c) == 0 || len(c) > maxLiterals {
		return
	}
	for _, l := range c {
		if l.s == "" {
			return
		}
	}
	in.clauses = append(in.clauses, c)
}

func exactly(ls ...literal) info { return info{exact: ls, known: true} }

// analyse computes the info of re, a simplified regexp.
func analyse(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactly(literal{})
	case syntax.OpLiteral:
		return literalInfo(re)
	case syntax.OpCharClass:
		return classInfo(re)
	case syntax.OpCapture:
		return analyse(re.Sub[0])
	case syntax.OpQuest:
		sub := analyse(re.Sub[0])
		if sub.known && len(sub.exact) < maxLiterals {
			return exactly(append(sub.exact, literal{})...)
		}
		return info{}
	case syntax.OpPlus:
		sub := analyse(re.Sub[0])
		sub.flush()
		return sub
	case syntax.OpRepeat:
		if re.Min == 0 {
			return info{}
		}
		sub := analyse(re.Sub[0])
		sub.flush()
		return sub
	case syntax.OpConcat:
		cur := exactly(literal{})
		for _, sub := range re.Sub {
			si := analyse(sub)
			cur.clauses = append(cur.clauses, si.clauses...)
			switch {
			case cur.known && si.known && len(cur.exact)*len(si.exact) <= maxLiterals:
				cur.exact = cross(cur.exact, si.exact)
			case si.known:
				cur.flush()
				cur.exact, cur.known = si.exact, true
			default:
				cur.flush()
			}
		}
		return cur
	case syntax.OpAlternate:
		var out info
		all := true
		var union []literal
		infos := make([]info, len(re.Sub))
		for i, sub := range re.Sub {
			infos[i] = analyse(sub)
			if !infos[i].known {
				all = false
			}
			union = append(union, infos[i].exact...)
		}
		if all && len(union) <= maxLiterals {
			return exactly(union...)
		}
		// One clause: for each alternative, one of its own clauses.
		var clause []literal
		for _, si := range infos {
			si.flush()
			if len(si.clauses) == 0 {
				return out
			}
			clause = append(clause, si.clauses[0]...)
		}
		out.addClause(clause)
		return out
	}
	return info{} // any character, star, …: nothing is known
}

// cross returns every concatenation of a string of a with one of b; it is
// case-insensitive when either part is (a weaker but still necessary
// condition).
func cross(a, b []literal) []literal {
	out := make([]literal, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, newLiteral(x.s+y.s, x.fold || y.fold))
		}
	}
	return out
}

// literalInfo is the info of a literal: exact when it is ASCII, else its
// ASCII runs, each a clause.
func literalInfo(re *syntax.Regexp) info {
	fold := re.Flags&syntax.FoldCase != 0
	s := string(re.Rune)
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return exactly(newLiteral(s, fold))
	}
	var out info
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r >= utf8.RuneSelf }) {
		out.addClause([]literal{newLiteral(part, fold)})
	}
	return out
}

func newLiteral(s string, fold bool) literal {
	return literal{s: strings.ToLower(s), fold: fold}
}

// classInfo is the info of a small ASCII character class: its characters.
func classInfo(re *syntax.Regexp) info {
	var out []literal
	for i := 0; i+1 < len(re.Rune); i += 2 {
		lo, hi := re.Rune[i], re.Rune[i+1]
		if hi >= utf8.RuneSelf || int(hi-lo)+1+len(out) > maxLiterals/2 {
			return info{}
		}
		for r := lo; r <= hi; r++ {
			out = append(out, newLiteral(string(r), false))
		}
	}
	return exactly(out...)
}

// firstLiterals returns literals one of which every match of re starts
// with, after zero-width assertions, or nil when there are none such.
func firstLiterals(re *syntax.Regexp) []literal {
	switch re.Op {
	case syntax.OpCapture:
		return firstLiterals(re.Sub[0])
	case syntax.OpLiteral:
		s := string(re.Rune)
		n := 0
		for n < len(s) && s[n] < utf8.RuneSelf {
			n++
		}
		if n == 0 {
			return nil
		}
		return []literal{newLiteral(s[:n], re.Flags&syntax.FoldCase != 0)}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			switch sub.Op {
			case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
				continue // zero-width: the match starts at the next element
			}
			return firstLiterals(sub)
		}
		return nil
	case syntax.OpAlternate:
		var out []literal
		for _, sub := range re.Sub {
			ls := firstLiterals(sub)
			if ls == nil || len(out)+len(ls) > maxLiterals {
				return nil
			}
			out = append(out, ls...)
		}
		return out
	case syntax.OpPlus, syntax.OpRepeat:
		if re.Op == syntax.OpRepeat && re.Min == 0 {
			return nil
		}
		return firstLiterals(re.Sub[0])
	}
	return nil
}
