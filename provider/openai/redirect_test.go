package openai

import (
	"net/http"
	"testing"

	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// TestRedirects checks every registered name: the key (Authorization, or
// azure's api-key) and a credential header never follow a redirect to
// another origin, even through the shared client the CLI hands over.
func TestRedirects(t *testing.T) {
	const key = "ok-test-0a9b8c7d6e5f4a3b2c1d"
	const token = "hdr-test-1b2c3d4e5f6a7b8c"
	shared := &http.Client{}
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			ep := lookup(name)
			open := func(t *testing.T, baseURL string) provider.Provider {
				set := redact.New()
				p, err := provider.Open(name+"/gpt-4o", provider.Options{
					Settings:   map[string]any{"base_url": baseURL, "headers": map[string]any{"X-Gateway-Token": token}},
					Getenv:     env(map[string]string{ep.keyEnv: key}),
					HTTPClient: shared,
					Secrets:    set,
				})
				if err != nil {
					t.Fatal(err)
				}
				if got := set.String(key + " " + token); got != "[REDACTED] [REDACTED]" {
					t.Errorf("Open registered too few secrets: %q", got)
				}
				return p
			}
			providertest.CheckRedirects(t, open, providertest.Fixture(t, "chat.json"), key, token)
		})
	}
	if shared.CheckRedirect != nil {
		t.Error("the shared client's redirect policy was changed")
	}
}
