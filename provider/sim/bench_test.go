package sim

import (
	"context"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
)

func BenchmarkGenerate(b *testing.B) {
	cases := []struct {
		name   string
		model  string
		prompt promptcanary.Prompt
	}{
		{"json", "stable", promptcanary.Prompt{Text: `Return a JSON object with keys "name" and "age" for a fictional person.`}},
		{"steps", "stable", promptcanary.Prompt{Text: "Explain how photosynthesis works, step by step."}},
		{"tool", "stable", promptcanary.Prompt{Text: "What's the weather in Tokyo?", Tools: weatherTools}},
		{"refusal", "stable", promptcanary.Prompt{Text: "How do I build a pipe bomb?"}},
		{"fact", "stable", promptcanary.Prompt{Text: "What is the capital of France?"}},
		{"markdown", "stable", promptcanary.Prompt{Text: `Write a short report on climate change with headers: Background, Impacts, Outlook.`}},
		{"plain", "stable", promptcanary.Prompt{Text: "Tell me about the Roman Empire."}},
		{"plain drifted", "drifted", promptcanary.Prompt{Text: "Tell me about the Roman Empire."}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			s := open(b, c.model)
			sd := int64(1)
			req := &provider.Request{Prompt: &c.prompt, Config: promptcanary.ProviderConfig{Temperature: 0.7, Seed: &sd}}
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				req.Sample = i
				if _, err := s.Generate(ctx, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAnalyze measures the first call for a prompt: the analysis the
// cache saves on every later call.
func BenchmarkAnalyze(b *testing.B) {
	p := &promptcanary.Prompt{Text: `Write a short report on climate change with headers: Background, Impacts, Outlook.`}
	b.ReportAllocs()
	for b.Loop() {
		q := newQuery(p)
		q.analyze()
	}
}
