package embed

import (
	"context"
	"net"
	"net/url"
	"strings"

	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/httpc"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// Ollama defaults, as for the ollama chat client and the ollama command.
const (
	OllamaHost    = "http://localhost:11434"
	ollamaHostEnv = "OLLAMA_HOST"
	ollamaPort    = "11434"
)

// Ollama embeds with POST {host}/api/embed:
//
//	{"model": "nomic-embed-text", "input": ["text", …]}
//	→ {"embeddings": [[0.1, …], …], "prompt_eval_count": 8}
type Ollama struct{ client }

var _ Embedder = (*Ollama)(nil)

func openOllama(model string, opts provider.Options, needKey bool) (*Ollama, error) {
	s, key, err := common(opts, func(raw string) (*url.URL, error) { return ollamaHost("setting base_url", raw) }, "", needKey)
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
	u, err := ollamaHost(source, base)
	if err != nil {
		return nil, err
	}
	h, secrets := httpc.ExtraHeader(s.Header, u)
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
		secrets = append(secrets, key)
	}
	return &Ollama{client{
		model: model,
		url:   u.String() + "/api/embed",
		http:  &httpc.Client{HTTP: opts.HTTPClient, Header: h, Secrets: httpc.Secrets(opts.Secrets, secrets...)},
	}}, nil
}

// ollamaHost reads a server address as Ollama reads OLLAMA_HOST: without a
// scheme it is http, without a port 11434; empty means OllamaHost.
func ollamaHost(source, raw string) (*url.URL, error) {
	raw = strings.Trim(strings.TrimSpace(raw), `"'`)
	if raw == "" {
		raw = OllamaHost
	}
	if !strings.Contains(raw, "://") {
		hostport, path, _ := strings.Cut(raw, "/")
		host, port, err := net.SplitHostPort(hostport)
		if err != nil {
			host, port = strings.Trim(hostport, "[]"), ollamaPort
		}
		if host == "" {
			host = "127.0.0.1"
		}
		raw = "http://" + net.JoinHostPort(host, port)
		if path != "" {
			raw += "/" + path
		}
	}
	r := setting.Root{Source: source, Want: "a server address such as http://localhost:11434 or 0.0.0.0:11434", Suffix: "/api", CheckPort: true}
	return r.Parse(raw)
}

// URL returns the address the client posts to.
func (c *Ollama) URL() string { return c.url }

type ollamaResponse struct {
	Embeddings      [][]float64 `json:"embeddings"`
	PromptEvalCount int         `json:"prompt_eval_count"`
}

// Embed embeds texts in one call.
func (c *Ollama) Embed(ctx context.Context, texts []string) (*Result, error) {
	if err := checkTexts(texts); err != nil {
		return nil, err
	}
	var out ollamaResponse
	if err := c.post(ctx, map[string]any{"model": c.model, "input": texts}, &out); err != nil {
		return nil, err
	}
	if err := checkVectors(out.Embeddings, len(texts)); err != nil {
		return nil, err
	}
	return &Result{Vectors: out.Embeddings, Tokens: max(out.PromptEvalCount, 0)}, nil
}
