package sim

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
)

// substitute rewrites a text answer of sim/paraphrase or sim/terse; JSON,
// tool calls and refusals keep the stable model's words, so the probes
// that judge them pass as before.
func (s *Sim) substitute(resp *promptcanary.Response, d *draft, f flag) {
	if d.kind == kindJSON || d.kind == kindTool || d.kind == kindRefusal || f&fRefuse != 0 {
		return
	}
	switch {
	case s.m.paraphrase:
		resp.Content = paraphrase(resp.Content)
	case s.m.terse && !d.multiline:
		resp.Content = firstSentence(resp.Content)
	}
}

// synonyms are sim/paraphrase's word swaps, lowercase; a capitalised word
// keeps its capital.
var synonyms = map[string]string{
	"start": "begin", "clarifying": "defining", "goal": "aim", "break": "split",
	"task": "job", "main": "principal", "stages": "phases", "stage": "phase",
	"order": "sequence", "carefully": "attentively", "confirm": "verify",
	"result": "outcome", "move": "proceed", "check": "examine", "finish": "conclude",
	"reviewing": "assessing", "ideas": "concepts", "idea": "concept",
	"knowing": "understanding", "essentials": "basics", "short": "brief",
	"understood": "grasped", "purpose": "aim", "parts": "components",
	"clear": "plain", "details": "specifics", "naturally": "easily",
	"core": "central", "points": "items", "settled": "agreed", "standard": "common",
	"references": "sources", "agree": "concur", "applies": "holds",
	"practice": "reality", "version": "form", "easy": "simple", "builds": "rests",
	"directly": "squarely", "previous": "prior", "key": "central", "keep": "hold",
	"view": "sight", "worked": "concrete", "example": "illustration",
	"makes": "renders", "pattern": "structure", "textbooks": "texts",
	"present": "show", "exactly": "precisely", "covers": "spans", "extra": "added",
	"detail": "elaboration", "process": "procedure", "answer": "reply",
	"tip": "hint", "write": "compose", "writing": "composing", "messages": "notes",
	"history": "story", "introduces": "presents", "matters": "counts",
	"summary": "sum", "rests": "depends", "few": "handful of", "used": "employed",
	"uses": "employs", "turn": "convert", "releases": "gives off", "force": "pull",
	"translates": "maps", "reliable": "dependable", "rate": "pace",
	"field": "area", "forms": "appears", "because": "since",
}

// paraphrase swaps the words of s found in synonyms.
func paraphrase(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	start := -1
	flush := func(end int) {
		w := s[start:end]
		rep, ok := synonyms[strings.ToLower(w)]
		switch {
		case !ok:
			b.WriteString(w)
		case startsUpper(w):
			b.WriteString(upperFirst(rep))
		default:
			b.WriteString(rep)
		}
		start = -1
	}
	for i, r := range s {
		if unicode.IsLetter(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			flush(i)
		}
		b.WriteRune(r)
	}
	if start >= 0 {
		flush(len(s))
	}
	return b.String()
}

func startsUpper(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

// firstSentence returns s up to the end of its first sentence (". ", "! "
// or "? "), or s when it has one sentence; a preamble ("Sure! ") is kept
// before that sentence.
func firstSentence(s string) string {
	pre := ""
	for _, p := range preambles {
		if strings.HasPrefix(s, p) {
			pre, s = p, s[len(p):]
			break
		}
	}
	return pre + firstSentenceOf(s)
}

func firstSentenceOf(s string) string {
	for i := 0; i+1 < len(s); i++ {
		switch s[i] {
		case '.', '!', '?':
			if s[i+1] == ' ' {
				return s[:i+1]
			}
		}
	}
	return s
}
