package report

import (
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestIdentityShown checks that every drift report format shows the model
// identity test, with the sentence of a rejection, and nothing of it when
// the report has none.
func TestIdentityShown(t *testing.T) {
	d := notCompared(promptcanary.StatusStable)
	d.Identity = &promptcanary.IdentityTest{MMD: 0.1234, P: 0.000999, Alpha: 0.05, Permutations: 1000, Prompts: 3, Answers: 60,
		Verdict: promptcanary.IdentityDifferent}
	want := "Model identity: " + promptcanary.IdentityDifferentText + " (MMD² 0.1234, p = 0.0010 at α = 0.05; 60 answers to 3 prompts, 1000 permutations)"
	for _, f := range []Format{Terminal, Markdown, HTML, JSON, JUnit} {
		t.Run(string(f), func(t *testing.T) {
			w := []string{want}
			if f == JSON {
				w = []string{`"identity": {`, `"mmd": 0.1234,`, `"p": 0.000999,`, `"permutations": 1000,`, `"verdict": "different"`}
			}
			checkOutput(t, render(t, f, nil, d, Options{Width: 400}), w, nil)
		})
	}
	d.Identity.Verdict, d.Identity.P = promptcanary.IdentitySame, 0.5
	for _, f := range []Format{Terminal, Markdown, HTML} {
		checkOutput(t, render(t, f, nil, d, Options{Width: 400}), []string{"Model identity: the answers are consistent with the same model"}, []string{promptcanary.IdentityDifferentText})
	}
	d.Identity = nil
	for _, f := range Formats {
		checkOutput(t, render(t, f, nil, d, Options{Width: 400}), nil, []string{"Model identity", `"identity"`})
	}
}
