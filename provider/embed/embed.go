// Package embed is the client for embedding models, which turn texts into
// vectors: "openai/MODEL" speaks the OpenAI embeddings API (POST
// {base}/embeddings, also served by vLLM, LM Studio, LiteLLM and most
// OpenAI-compatible servers), "ollama/MODEL" Ollama's POST {host}/api/embed.
//
// Specs name the model as providers do (openai/text-embedding-3-small,
// ollama/nomic-embed-text), and the settings are those of the chat
// clients of the same name: base_url, api_key_env and headers. openai
// reads OPENAI_BASE_URL and OPENAI_API_KEY (optional when the base URL is
// not OpenAI's); ollama reads OLLAMA_HOST and needs no key.
//
// One call embeds a batch of at most MaxBatch texts. Failures are
// *provider.Error classified as the chat clients' are (429 and 5xx
// retryable, Retry-After honoured, malformed bodies retryable), never
// holding a key, so that the run engine retries them by the same rules.
package embed

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/apicall"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// MaxBatch is the most texts one call embeds; callers split longer lists.
const MaxBatch = provider.MaxEmbedBatch

// Embedder turns texts into vectors. Implementations are safe for
// concurrent use.
type Embedder = provider.Embedder

// Result is what one call returned.
type Result = provider.Embeddings

// init makes Open the opener of provider.OpenEmbedder, by which the run
// engine opens embedding models without importing this package.
func init() { provider.RegisterEmbedders(Open) }

// clients are the embeddings clients by the provider name that selects
// them: the one list of names that have one.
var clients = map[string]func(model string, opts provider.Options, needKey bool) (Embedder, error){
	"openai": func(model string, opts provider.Options, needKey bool) (Embedder, error) {
		return openOpenAI(model, opts, needKey)
	},
	"ollama": func(model string, opts provider.Options, needKey bool) (Embedder, error) {
		return openOllama(model, opts, needKey)
	},
}

// Names returns the provider names that have an embeddings client, sorted.
func Names() []string { return slices.Sorted(maps.Keys(clients)) }

// Open opens the embedding model spec ("name/model") with the settings and
// environment of opts. It makes no network call.
func Open(spec string, opts provider.Options) (Embedder, error) {
	return open(spec, opts, true)
}

// Check checks spec and the settings of opts as Open does, with the same
// messages, but needs no API key and calls nothing.
func Check(spec string, opts provider.Options) error {
	opts.Secrets = nil
	_, err := open(spec, opts, false)
	return err
}

func open(spec string, opts provider.Options, needKey bool) (Embedder, error) {
	name, model, err := provider.Split(spec)
	if err != nil {
		return nil, err
	}
	if strings.IndexFunc(model, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return nil, fmt.Errorf("embedder %s: invalid model name: it holds whitespace or control characters", httpc.Redact(spec))
	}
	client, ok := clients[name]
	if !ok {
		return nil, fmt.Errorf("embedder %s: %w", httpc.Redact(spec), fmt.Errorf("no embeddings client for %q%s; use openai/MODEL (the OpenAI API or any compatible server) or ollama/MODEL",
			name, suggest.Hint(name, Names())))
	}
	e, err := client(model, opts, needKey)
	if err != nil {
		return nil, fmt.Errorf("embedder %s: %w", spec, err)
	}
	return e, nil
}

// common reads base_url (parsed by parse), api_key_env and headers, and the
// key: from the variable api_key_env names, else from keyEnv when it is
// not "". The key is registered with opts.Secrets.
func common(opts provider.Options, parse func(string) (*url.URL, error), keyEnv string, needKey bool) (setting.Common, string, error) {
	s, err := setting.ReadCommon(opts.Settings, parse, nil)
	if err != nil {
		return s, "", err
	}
	if s.KeyEnv != "" {
		keyEnv = s.KeyEnv
	}
	key := ""
	if keyEnv != "" {
		key = strings.TrimSpace(opts.Env(keyEnv))
		opts.Secrets.Add(key)
		if s.KeyEnv != "" && key == "" && needKey {
			return s, "", fmt.Errorf("%s is not set (it is named by the api_key_env setting)", httpc.Redact(s.KeyEnv))
		}
	}
	if key != "" && !httpc.ValidHeaderValue(key) {
		return s, "", errors.New("invalid API key: it holds a control character")
	}
	if !needKey {
		key = ""
	}
	return s, key, nil
}

// client is what both wire formats share.
type client struct {
	model string
	url   string
	http  *httpc.Client
}

// newClient is the client posting to endpoint for model on the API at
// base: header holds the extra headers of the settings (see
// httpc.ExtraHeader), key, when not "", is sent as a bearer token, and
// both are scrubbed from errors.
func newClient(model, endpoint string, header http.Header, base *url.URL, key string, opts provider.Options) client {
	h, secrets := httpc.ExtraHeader(header, base)
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
		secrets = append(secrets, key)
	}
	return client{
		model: model,
		url:   endpoint,
		http:  &httpc.Client{HTTP: opts.HTTPClient, Header: h, Secrets: httpc.Secrets(opts.Secrets, secrets...)},
	}
}

// embed checks texts, sends them with the model in the body both APIs
// take ({"model": …, "input": texts}) and decodes the answer into out.
func (c *client) embed(ctx context.Context, texts []string, out any) error {
	if err := checkTexts(texts); err != nil {
		return err
	}
	resp, err := apicall.Do(ctx, c.http, http.MethodPost, c.url, map[string]any{"model": c.model, "input": texts})
	if err != nil {
		return err
	}
	if err := apicall.DecodeJSON(resp.Body, out); err != nil {
		var pe *provider.Error
		if errors.As(err, &pe) {
			pe.StatusCode = resp.Status
			pe.Message = c.http.Message(pe.Message)
		}
		return err
	}
	return nil
}

// checkVectors checks that there is one vector per text, that all are of
// one non-zero dimension and hold finite numbers only.
func checkVectors(vs [][]float64, texts int) error {
	if len(vs) != texts {
		return &provider.Error{Message: fmt.Sprintf("malformed embeddings response: %d vectors for %d texts", len(vs), texts)}
	}
	for i, v := range vs {
		if len(v) == 0 {
			return &provider.Error{Message: fmt.Sprintf("malformed embeddings response: vector %d is empty", i)}
		}
		if len(v) != len(vs[0]) {
			return &provider.Error{Message: fmt.Sprintf("malformed embeddings response: vector %d has %d dimensions, vector 0 has %d", i, len(v), len(vs[0]))}
		}
		if slices.ContainsFunc(v, func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }) {
			return &provider.Error{Message: fmt.Sprintf("malformed embeddings response: vector %d holds a number that is not finite", i)}
		}
	}
	return nil
}

// checkTexts rejects a call the APIs would refuse: no text, too many, or
// an empty one.
func checkTexts(texts []string) error {
	switch {
	case len(texts) == 0:
		return &provider.Error{Message: "embed: no text to embed"}
	case len(texts) > MaxBatch:
		return &provider.Error{Message: fmt.Sprintf("embed: %d texts in one call, at most %d", len(texts), MaxBatch)}
	}
	for i, t := range texts {
		if t == "" {
			return &provider.Error{Message: fmt.Sprintf("embed: text %d is empty", i)}
		}
	}
	return nil
}
