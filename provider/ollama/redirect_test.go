package ollama

import (
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// TestRedirects checks that the key and a credential header never follow
// a redirect to another origin, even through a shared client, while a
// redirect within the API's origin still works.
func TestRedirects(t *testing.T) {
	providertest.CheckClientRedirects(t, Open, "llama3.2", "OLLAMA_API_KEY", testKey, providertest.Fixture(t, "chat.json"), map[string]any{"api_key_env": "OLLAMA_API_KEY"})
}
