package anthropic

import (
	"testing"

	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// TestRedirects checks that the key and a credential header never follow
// a redirect to another origin, even through a shared client, while a
// redirect within the API's origin still works.
func TestRedirects(t *testing.T) {
	providertest.CheckClientRedirects(t, Open, "claude-sonnet-4-5", "ANTHROPIC_API_KEY", testKey, providertest.Fixture(t, "text.json"), nil)
}
