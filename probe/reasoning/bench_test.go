package reasoning

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// benchmark evaluates probe id on the 2 KB long_answer.txt fixture.
func benchmark(b *testing.B, id string, raw map[string]any) {
	content, err := os.ReadFile(filepath.Join("testdata", "long_answer.txt"))
	if err != nil {
		b.Fatal(err)
	}
	p, _, err := probe.New(id, raw)
	if err != nil {
		b.Fatal(err)
	}
	prompt := &promptcanary.Prompt{ID: "p"}
	resp := &promptcanary.Response{PromptID: "p", Content: string(content)}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		p.Evaluate(context.Background(), probe.Input{Prompt: prompt, Response: resp})
	}
}

func BenchmarkStepByStep(b *testing.B) { benchmark(b, "step_by_step", nil) }
func BenchmarkVerbosity(b *testing.B) {
	benchmark(b, "verbosity", map[string]any{"expected_words": 400})
}
func BenchmarkConfidenceLanguage(b *testing.B) { benchmark(b, "confidence_language", nil) }
func BenchmarkDirectAnswer(b *testing.B)       { benchmark(b, "direct_answer", nil) }
func BenchmarkSentiment(b *testing.B)          { benchmark(b, "sentiment", nil) }
