package format_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/format"
)

// TestZeroValues checks the documented meaning of zero fields of the
// exported types, which Go users build without the registry.
func TestZeroValues(t *testing.T) {
	tests := []struct {
		name    string
		p       probe.Probe
		content string
		pass    bool
		score   float64
	}{
		{"length: zero value accepts empty", &format.ResponseLength{}, "", true, 1},
		{"length: MaxChars 0 means no limit", &format.ResponseLength{MinChars: 1}, strings.Repeat("x", 1e5), true, 1},
		{"length: Tolerance 0 means 0.5", &format.ResponseLength{BaselineChars: 100}, strings.Repeat("x", 150), true, 0.8},
		{"length: explicit Tolerance", &format.ResponseLength{BaselineChars: 100, Tolerance: 0.25}, strings.Repeat("x", 150), false, 0.5},
		{"schema: zero value needs an object", &format.JSONSchema{}, `[]`, false, 0},
		{"schema: zero value accepts any object", &format.JSONSchema{}, `{}`, true, 1},
		{"key order: zero value skips", &format.JSONKeyOrder{}, `{"a":1}`, true, 1},
		{"headers: zero value passes", &format.MarkdownHeaders{}, ``, true, 1},
		{"keywords: zero value passes", &format.KeywordPresence{}, ``, true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := probetest.Eval(tc.p, &promptcanary.Prompt{}, &promptcanary.Response{Content: tc.content})
			if got.Passed != tc.pass || !approx(got.Score, tc.score) {
				t.Errorf("got passed %v score %v, want %v %v (details %q)", got.Passed, got.Score, tc.pass, tc.score, got.Details)
			}
		})
	}
}

// TestConcurrentEvaluate runs one instance of every probe from many
// goroutines, as the runner does; run with -race.
func TestConcurrentEvaluate(t *testing.T) {
	probes := []probe.Probe{
		&format.JSONValidity{},
		&format.JSONSchema{RequiredKeys: []string{"name", "age"}},
		&format.JSONKeyOrder{ExpectedOrder: []string{"name", "born"}},
		&format.ResponseLength{MinChars: 1, BaselineChars: 100},
		&format.MarkdownHeaders{ExpectedHeaders: []string{"Summary"}},
		&format.KeywordPresence{RequiredKeywords: []string{"Ada"}},
		&format.ExpectedKeywords{},
	}
	resp := &promptcanary.Response{Content: content(t, "@fenced_object.txt")}
	prompt := &promptcanary.Prompt{ExpectedKeywords: []string{"ada"}}
	want := make([]probe.Result, len(probes))
	for i, p := range probes {
		want[i] = probetest.Eval(p, prompt, resp)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i, p := range probes {
				if got := probetest.Eval(p, prompt, resp); got.Score != want[i].Score || got.Passed != want[i].Passed {
					t.Errorf("%T: got %v/%v, want %v/%v", p, got.Passed, got.Score, want[i].Passed, want[i].Score)
				}
			}
		})
	}
	wg.Wait()
}
