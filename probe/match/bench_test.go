package match

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// benchProse is about 4 KB of answer text with curly quotes and a dash, so
// case-insensitive search meets non-ASCII bytes as real answers have them.
var benchProse = strings.Repeat("The committee’s report — published in March — explains how the city "+
	"kept its budget balanced while funding new schools and parks. ", 32) + "In short: Paris."

func benchProbe(b *testing.B, p probe.Probe, content string) {
	b.Helper()
	probetest.Bench(b, p, &promptcanary.Prompt{ID: "p"}, &promptcanary.Response{Content: content})
}

func mustText(b *testing.B, op Op, c TextConfig) *Text {
	b.Helper()
	p, err := NewText(op, c)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func BenchmarkContains(b *testing.B) {
	values := []string{"paris", "balanced budget", "Kyoto"}
	b.Run("case-sensitive", func(b *testing.B) {
		benchProbe(b, mustText(b, Contains, TextConfig{Values: values, CaseSensitive: true}), benchProse)
	})
	b.Run("case-insensitive", func(b *testing.B) {
		benchProbe(b, mustText(b, Contains, TextConfig{Values: values}), benchProse)
	})
	b.Run("case-insensitive-all", func(b *testing.B) {
		benchProbe(b, mustText(b, Contains, TextConfig{Values: values, Mode: All}), benchProse)
	})
	b.Run("not-refusal-short", func(b *testing.B) {
		benchProbe(b, mustText(b, Contains, TextConfig{Values: []string{"I'm sorry", "I cannot", "as an AI"}, Not: true}),
			"The capital of France is Paris.")
	})
}

func BenchmarkEquals(b *testing.B) {
	benchProbe(b, mustText(b, Equals, TextConfig{Values: []string{"yes", "no"}, Trim: true}), " No\n")
}

func BenchmarkStartsWith(b *testing.B) {
	benchProbe(b, mustText(b, StartsWith, TextConfig{Values: []string{"Sure", "Of course", "As an AI"}, Trim: true, Not: true}), benchProse)
}

func BenchmarkEndsWith(b *testing.B) {
	benchProbe(b, mustText(b, EndsWith, TextConfig{Values: []string{"paris.", "}"}, Trim: true}), benchProse)
}

func BenchmarkRegex(b *testing.B) {
	x, err := NewRegex(RegexConfig{MustMatch: []string{`\bParis\b`, `^The`}, MustNotMatch: []string{`(?:as an ai|language model)`}, Flags: "i"})
	if err != nil {
		b.Fatal(err)
	}
	benchProbe(b, x, benchProse)
}

// BenchmarkContainsToLower is the allocating way, for comparison: lower-case
// the response on every evaluation, as keyword_presence does.
func BenchmarkContainsToLower(b *testing.B) {
	values := []string{"paris", "balanced budget", "kyoto"}
	b.SetBytes(int64(len(benchProse)))
	b.ReportAllocs()
	for b.Loop() {
		low := strings.ToLower(benchProse)
		for _, v := range values {
			_ = strings.Contains(low, v)
		}
	}
}
