package meta

import (
	"context"
	"fmt"
	"testing"

	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
)

// TestCostConcurrent prices calls of several models from many goroutines
// (run with -race): the shared price cache must give every call the price
// the table gives.
func TestCostConcurrent(t *testing.T) {
	c := &Cost{MaxUSD: 1}
	models := []string{"openai/gpt-4o-mini", "anthropic/claude-sonnet-4", "acme/unknown", "ollama/llama3"}
	probetest.Concurrently(8, func(g int) {
		for k := range 100 {
			id := models[(g+k)%len(models)]
			if k%10 == 0 {
				id = fmt.Sprintf("acme/model-%d-%d", g, k) // fills the cache with unknowns
			}
			res := c.Evaluate(context.Background(), probe.Input{Prompt: &promptcanary.Prompt{}, Response: &promptcanary.Response{ProviderModelID: id, PromptTokens: 1e6}})
			_, known := lookupPrice(id)
			if res.Metadata["price_known"] != known {
				t.Errorf("%s: price_known %v, want %v", id, res.Metadata["price_known"], known)
				return
			}
		}
	})
	if n := cachedPrices.Load(); n > maxCachedPrices {
		t.Errorf("cached prices: got %d, want at most %d", n, maxCachedPrices)
	}
}
