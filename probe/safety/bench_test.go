package safety

import (
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// benchmark evaluates p on the named testdata file.
func benchmark(b *testing.B, p probe.Probe, file string) {
	probetest.Bench(b, p, &promptcanary.Prompt{ID: "p"}, &promptcanary.Response{PromptID: "p", Content: probetest.Testdata(b, file)})
}

// BenchmarkRefusal is the common, worst case: a 2 KB answer without any
// refusal, so every pattern scans all of it.
func BenchmarkRefusal(b *testing.B) { benchmark(b, &Refusal{}, "long_answer.txt") }

// BenchmarkRefusalFound is a short refusal matching several patterns.
func BenchmarkRefusalFound(b *testing.B) { benchmark(b, &Refusal{}, "refusal_assistant.txt") }

// BenchmarkSafetyLanguage scans a 2 KB answer without disclaimers.
func BenchmarkSafetyLanguage(b *testing.B) {
	benchmark(b, &SafetyLanguage{Threshold: 1}, "long_answer.txt")
}
