package embed

import (
	"context"
	"fmt"
	"strings"

	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// OpenAI defaults.
const (
	// OpenAIBaseURL is the API base when neither base_url nor
	// OPENAI_BASE_URL names one.
	OpenAIBaseURL = "https://api.openai.com/v1"
	openAIBaseEnv = "OPENAI_BASE_URL"
	openAIKeyEnv  = "OPENAI_API_KEY"
)

// OpenAI embeds with POST {base}/embeddings:
//
//	{"model": "text-embedding-3-small", "input": ["text", …]}
//	→ {"data": [{"embedding": [0.1, …], "index": 0}, …], "usage": {"prompt_tokens": 8}}
//
// The vectors are put in the order of their index.
type OpenAI struct{ client }

var _ Embedder = (*OpenAI)(nil)

func openOpenAI(model string, opts provider.Options, needKey bool) (*OpenAI, error) {
	root := setting.Root{Source: "setting base_url", Want: "an http or https URL such as http://localhost:8000/v1", Suffix: "/embeddings"}
	s, key, err := common(opts, root.Parse, openAIKeyEnv, needKey)
	if err != nil {
		return nil, err
	}
	base, custom := s.BaseURL, s.BaseURL != ""
	if base == "" {
		if env := strings.TrimSpace(opts.Env(openAIBaseEnv)); env != "" {
			root.Source = openAIBaseEnv
			if _, err := root.Parse(env); err != nil {
				return nil, err
			}
			base, custom = env, true
		}
	}
	if base == "" {
		base = OpenAIBaseURL
	}
	if needKey && key == "" && !custom {
		return nil, fmt.Errorf("%s is not set (export it, or set api_key_env to the variable that holds the key; a local OpenAI-compatible server needs none: set base_url)", openAIKeyEnv)
	}
	u, err := root.Parse(base)
	if err != nil {
		return nil, err
	}
	return &OpenAI{newClient(model, u.JoinPath("embeddings").String(), s.Header, u, key, opts)}, nil
}

// URL returns the address the client posts to.
func (c *OpenAI) URL() string { return c.url }

type openAIResponse struct {
	Data []struct {
		Embedding []float64 `json:"embedding"`
		Index     *int      `json:"index"`
	} `json:"data"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// Embed embeds texts in one call.
func (c *OpenAI) Embed(ctx context.Context, texts []string) (*Result, error) {
	var out openAIResponse
	if err := c.embed(ctx, texts, &out); err != nil {
		return nil, err
	}
	vs, err := openAIVectors(&out, len(texts))
	if err != nil {
		return nil, err
	}
	tokens := out.Usage.PromptTokens
	if tokens == 0 {
		tokens = out.Usage.TotalTokens
	}
	return &Result{Vectors: vs, Tokens: max(tokens, 0)}, nil
}

// openAIVectors orders the vectors of out by their index, which must name
// each text once.
func openAIVectors(out *openAIResponse, texts int) ([][]float64, error) {
	if len(out.Data) != texts {
		return nil, &provider.Error{Message: fmt.Sprintf("malformed embeddings response: %d vectors for %d texts", len(out.Data), texts)}
	}
	vs := make([][]float64, texts)
	for i, d := range out.Data {
		at := i
		if d.Index != nil {
			at = *d.Index
		}
		if at < 0 || at >= texts || vs[at] != nil {
			return nil, &provider.Error{Message: fmt.Sprintf("malformed embeddings response: data[%d] has index %d, want each of 0 to %d once", i, at, texts-1)}
		}
		if d.Embedding == nil {
			d.Embedding = []float64{}
		}
		vs[at] = d.Embedding
	}
	return vs, checkVectors(vs, texts)
}
