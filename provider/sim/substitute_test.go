package sim

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

func TestSubstitutions(t *testing.T) {
	stable, para, terse := open(t, "stable"), open(t, "paraphrase"), open(t, "terse")
	prose := &promptcanary.Prompt{ID: "prose", Text: "Write a short paragraph about topic 3: the history of the bicycle."}
	steps := &promptcanary.Prompt{ID: "steps", Text: "Explain step by step how to do task number 2: brew tea, then wash the cup."}
	js := &promptcanary.Prompt{ID: "json", Text: `Return a JSON object for a fictional user with the keys "name", "age" and "city". Reply with the JSON only.`}
	for sample := range 5 {
		s, p, te := gen(t, stable, prose, 0.7, seed(1), sample), gen(t, para, prose, 0.7, seed(1), sample), gen(t, terse, prose, 0, seed(1), sample)
		if p.Content == s.Content || strings.Count(p.Content, ".") != strings.Count(s.Content, ".") {
			t.Errorf("paraphrase %q of %q: want other words, as many sentences", p.Content, s.Content)
		}
		if p.ServedModel != s.ServedModel || p.SystemFingerprint != s.SystemFingerprint {
			t.Errorf("paraphrase serves %s/%s, want stable's %s/%s", p.ServedModel, p.SystemFingerprint, s.ServedModel, s.SystemFingerprint)
		}
		s0 := gen(t, stable, prose, 0, seed(1), sample)
		if !strings.HasPrefix(s0.Content, te.Content) || strings.Count(te.Content, ". ") != 0 || te.Content == s0.Content {
			t.Errorf("terse %q of %q: want its first sentence", te.Content, s0.Content)
		}
		sj, pj := gen(t, stable, js, 0.7, seed(1), sample), gen(t, para, js, 0.7, seed(1), sample)
		if sj.Content != pj.Content {
			t.Errorf("paraphrase changed JSON %q to %q", sj.Content, pj.Content)
		}
		ss, ps := gen(t, stable, steps, 0.7, seed(1), sample), gen(t, para, steps, 0.7, seed(1), sample)
		if strings.Count(ss.Content, "\n") != strings.Count(ps.Content, "\n") || ss.Content == ps.Content {
			t.Errorf("paraphrase of steps %q is %q: want other words on as many lines", ss.Content, ps.Content)
		}
	}
}

func TestParaphraseKeepsCase(t *testing.T) {
	if got, want := paraphrase("Start by clarifying the goal: restart."), "Begin by defining the aim: restart."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := firstSentence("Sure! One. Two."), "Sure! One."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
