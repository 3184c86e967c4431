package embed

import (
	"context"
	"net/url"
	"strings"

	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/ollama"
)

// Ollama defaults: the chat client's (package ollama), as the ollama
// command reads them.
const (
	OllamaHost    = ollama.DefaultHost
	ollamaHostEnv = ollama.HostEnv
)

// Ollama embeds with POST {host}/api/embed:
//
//	{"model": "nomic-embed-text", "input": ["text", …]}
//	→ {"embeddings": [[0.1, …], …], "prompt_eval_count": 8}
type Ollama struct{ client }

var _ Embedder = (*Ollama)(nil)

func openOllama(model string, opts provider.Options, needKey bool) (*Ollama, error) {
	s, key, err := common(opts, func(raw string) (*url.URL, error) { return ollama.HostURL("setting base_url", raw) }, "", needKey)
	if err != nil {
		return nil, err
	}
	base := s.BaseURL
	if base == "" {
		base = strings.TrimSpace(opts.Env(ollamaHostEnv))
	}
	source := "setting base_url"
	if s.BaseURL == "" {
		source = ollamaHostEnv
	}
	u, err := ollama.HostURL(source, base)
	if err != nil {
		return nil, err
	}
	return &Ollama{newClient(model, u.String()+"/api/embed", s.Header, u, key, opts)}, nil
}

// URL returns the address the client posts to.
func (c *Ollama) URL() string { return c.url }

type ollamaResponse struct {
	Embeddings      [][]float64 `json:"embeddings"`
	PromptEvalCount int         `json:"prompt_eval_count"`
}

// Embed embeds texts in one call.
func (c *Ollama) Embed(ctx context.Context, texts []string) (*Result, error) {
	var out ollamaResponse
	if err := c.embed(ctx, texts, &out); err != nil {
		return nil, err
	}
	if err := checkVectors(out.Embeddings, len(texts)); err != nil {
		return nil, err
	}
	return &Result{Vectors: out.Embeddings, Tokens: max(out.PromptEvalCount, 0)}, nil
}
