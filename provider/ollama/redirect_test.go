package ollama

import (
	"net/http"
	"testing"

	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// TestRedirects checks that the key and a credential header never follow
// a redirect to another origin, even through a shared client, while a
// redirect within the API's origin still works.
func TestRedirects(t *testing.T) {
	const token = "hdr-test-1b2c3d4e5f6a7b8c"
	shared := &http.Client{}
	open := func(t *testing.T, baseURL string) provider.Provider {
		set := redact.New()
		p, err := Open("llama3.2", provider.Options{
			Settings:   map[string]any{"base_url": baseURL, "api_key_env": "OLLAMA_API_KEY", "headers": map[string]any{"X-Gateway-Token": token}},
			Getenv:     func(k string) string { return map[string]string{"OLLAMA_API_KEY": testKey}[k] },
			HTTPClient: shared,
			Secrets:    set,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := set.String(testKey + " " + token); got != "[REDACTED] [REDACTED]" {
			t.Errorf("Open registered too few secrets: %q", got)
		}
		return p
	}
	providertest.CheckRedirects(t, open, providertest.Fixture(t, "chat.json"), testKey, token)
	if shared.CheckRedirect != nil {
		t.Error("the shared client's redirect policy was changed")
	}
}
