package meta

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

var benchResp = &promptcanary.Response{ProviderModelID: "openai/gpt-4o-mini", Content: "Paris.", FinishReason: "stop",
	LatencyMS: 812, PromptTokens: 120, CompletionTokens: 40, TotalTokens: 160}

func benchProbe(b *testing.B, p probe.Probe) {
	b.Helper()
	probetest.Bench(b, p, &promptcanary.Prompt{ID: "p"}, benchResp)
}

func BenchmarkLatency(b *testing.B) { benchProbe(b, &Latency{MaxMS: 1000}) }
func BenchmarkTokens(b *testing.B)  { benchProbe(b, &Tokens{MaxCompletion: 100, MaxTotal: 300}) }
func BenchmarkCost(b *testing.B)    { benchProbe(b, &Cost{MaxUSD: 0.001}) }
func BenchmarkFinishReason(b *testing.B) {
	benchProbe(b, &FinishReason{Forbidden: []string{"length", "max_tokens", "content_filter"}})
}
