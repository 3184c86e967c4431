package vertex

import (
	"testing"

	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// TestRedirects checks that the bearer token never follows a redirect to
// another origin, while a redirect within the API's origin keeps it.
func TestRedirects(t *testing.T) {
	f := newFixture(t)
	answers := map[string]string{
		"gemini-2.5-flash":           `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}]}`,
		"claude-sonnet-4-5@20250929": `{"type":"message","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn"}`,
	}
	for model, ok := range answers {
		t.Run(model, func(t *testing.T) {
			providertest.CheckRedirects(t, func(t *testing.T, baseURL string) provider.Provider {
				p, err := provider.Open("vertex/"+model, provider.Options{
					Settings: map[string]any{"base_url": baseURL},
					Getenv:   func(k string) string { return f.env[k] },
					Secrets:  f.secrets,
				})
				if err != nil {
					t.Fatal(err)
				}
				return p
			}, ok, "Bearer ya29.standin-")
		})
	}
}
