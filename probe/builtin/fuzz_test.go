package builtin_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/suite"
)

// FuzzParseBuiltin parses canary.yaml with the built-in probes, seeded with
// their examples: parsing never panics, and every probe of a valid suite
// judges a response without panicking and with a score in [0,1].
func FuzzParseBuiltin(f *testing.F) {
	for _, typ := range probe.Types() {
		f.Add([]byte(suite.ExampleFile(typ)))
	}
	f.Add([]byte("probes:\n  - {type: keyword_presence, required_keywords: []}\n  - {type: json_key_order, expected_order: [a]}\nprompts: [hi]\n"))
	f.Add([]byte("probes: [expected_keywords]\nprompts:\n  - {text: hi, expected_keywords: [\"\"]}\n"))
	f.Add([]byte("probes:\n  - {type: verbosity, expected_words: 2147483648, tolerance: .nan}\n  - {type: response_length, max_chars: 1e23}\nprompts: [hi]\n"))
	responses := []promptcanary.Response{
		{Content: "Sure! Paris is the capital. I think it might be nice."},
		{Content: "```json\n{\"name\": \"a\", \"age\": 3, \"city\": \"Oslo\"}\n```"},
		{Content: `{"name": "get_weather", "arguments": {"city": "Oslo"}}`},
		{Content: ""},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := suite.Parse("canary.yaml", data)
		if err != nil {
			var ve *suite.ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("got %T %v, want a *suite.ValidationError with problems", err, err)
			}
			return
		}
		for i := range s.Prompts {
			p := &s.Prompts[i]
			for _, in := range s.ProbesFor(p.ID) {
				for j := range responses {
					res := in.Probe.Evaluate(context.Background(), probe.Input{Prompt: p, Response: &responses[j]})
					if math.IsNaN(res.Score) || res.Score < 0 || res.Score > 1 || res.Details == "" {
						t.Fatalf("probe %s on %q: got score %v, details %q", in.ID, responses[j].Content, res.Score, res.Details)
					}
				}
			}
		}
	})
}
