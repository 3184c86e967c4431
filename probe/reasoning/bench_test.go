package reasoning

import (
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// benchmark evaluates probe id on the 2 KB long_answer.txt fixture.
func benchmark(b *testing.B, id string, raw map[string]any) {
	probetest.Bench(b, probetest.New(b, id, raw), &promptcanary.Prompt{ID: "p"},
		&promptcanary.Response{PromptID: "p", Content: probetest.Testdata(b, "long_answer.txt")})
}

func BenchmarkStepByStep(b *testing.B) { benchmark(b, "step_by_step", nil) }
func BenchmarkVerbosity(b *testing.B) {
	benchmark(b, "verbosity", map[string]any{"expected_words": 400})
}
func BenchmarkConfidenceLanguage(b *testing.B) { benchmark(b, "confidence_language", nil) }
func BenchmarkDirectAnswer(b *testing.B)       { benchmark(b, "direct_answer", nil) }
func BenchmarkSentiment(b *testing.B)          { benchmark(b, "sentiment", nil) }
