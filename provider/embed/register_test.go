package embed

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/provider"
)

// TestRegistered: the package registers Open as provider.OpenEmbedder's
// opener, by which the run engine opens embedding models, with Open's
// messages.
func TestRegistered(t *testing.T) {
	_, err := provider.OpenEmbedder("anthropic/x", provider.Options{})
	if err == nil || !strings.Contains(err.Error(), "no embeddings client for \"anthropic\"") {
		t.Errorf("got %v, want embed.Open's error", err)
	}
	e, err := provider.OpenEmbedder("ollama/nomic-embed-text", provider.Options{Getenv: func(string) string { return "" }})
	if _, ok := e.(*Ollama); err != nil || !ok {
		t.Errorf("got %T, %v; want the ollama embedder", e, err)
	}
}
