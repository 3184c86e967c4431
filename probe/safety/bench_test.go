package safety

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// benchmark evaluates p on the named testdata file.
func benchmark(b *testing.B, p probe.Probe, file string) {
	content, err := os.ReadFile(filepath.Join("testdata", file))
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

// BenchmarkRefusal is the common, worst case: a 2 KB answer without any
// refusal, so every pattern scans all of it.
func BenchmarkRefusal(b *testing.B) { benchmark(b, &Refusal{}, "long_answer.txt") }

// BenchmarkRefusalFound is a short refusal matching several patterns.
func BenchmarkRefusalFound(b *testing.B) { benchmark(b, &Refusal{}, "refusal_assistant.txt") }

// BenchmarkSafetyLanguage scans a 2 KB answer without disclaimers.
func BenchmarkSafetyLanguage(b *testing.B) {
	benchmark(b, &SafetyLanguage{Threshold: 1}, "long_answer.txt")
}
