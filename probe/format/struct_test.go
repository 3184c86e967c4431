package format_test

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/format"
)

// TestZeroValues checks the documented meaning of zero fields of the
// exported types, which Go users build without the registry.
func TestZeroValues(t *testing.T) {
	// Built in Go, so no probe id.
	runCases(t, "", []evalCase{
		{name: "length: zero value accepts empty", built: &format.ResponseLength{}, content: "", pass: true, score: 1},
		{name: "length: MaxChars 0 means no limit", built: &format.ResponseLength{MinChars: 1}, content: strings.Repeat("x", 1e5), pass: true, score: 1},
		{name: "length: Tolerance 0 means 0.5", built: &format.ResponseLength{BaselineChars: 100}, content: strings.Repeat("x", 150), pass: true, score: 0.8},
		{name: "length: explicit Tolerance", built: &format.ResponseLength{BaselineChars: 100, Tolerance: 0.25}, content: strings.Repeat("x", 150), pass: false, score: 0.5},
		{name: "schema: zero value needs an object", built: &format.JSONSchema{}, content: `[]`, pass: false, score: 0},
		{name: "schema: zero value accepts any object", built: &format.JSONSchema{}, content: `{}`, pass: true, score: 1},
		{name: "key order: zero value skips", built: &format.JSONKeyOrder{}, content: `{"a":1}`, pass: true, score: 1},
		{name: "headers: zero value passes", built: &format.MarkdownHeaders{}, content: ``, pass: true, score: 1},
		{name: "keywords: zero value passes", built: &format.KeywordPresence{}, content: ``, pass: true, score: 1},
	})
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
	resps := probetest.Responses(content(t, "@fenced_object.txt"))
	prompt := &promptcanary.Prompt{ExpectedKeywords: []string{"ada"}}
	probetest.CheckConcurrent(t, probes, prompt, resps)
}
