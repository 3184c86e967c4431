package openai

import (
	"testing"

	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// TestRedirects checks every registered name: the key (Authorization, or
// azure's api-key) and a credential header never follow a redirect to
// another origin, even through the shared client the CLI hands over.
func TestRedirects(t *testing.T) {
	const key = "ok-test-0a9b8c7d6e5f4a3b2c1d"
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			open := func(model string, opts provider.Options) (provider.Provider, error) {
				return provider.Open(name+"/"+model, opts)
			}
			providertest.CheckClientRedirects(t, open, "gpt-4o", lookup(name).keyEnv, key, providertest.Fixture(t, "chat.json"), nil)
		})
	}
}
