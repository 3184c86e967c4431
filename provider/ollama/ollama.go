// Package ollama is the provider client for Ollama's native chat API, used
// by "ollama/MODEL" (for example ollama/llama3.2 or ollama/qwen3:8b).
//
// One call is one POST {host}/api/chat with "stream": false. The system
// prompt is a system message before the user message. temperature is
// always sent, the seed when one is configured and max_tokens (as
// num_predict) when not 0, all in "options". The server is base_url, else
// OLLAMA_HOST, else http://localhost:11434; like Ollama itself, an address
// without a scheme is http and one without a port uses 11434, so
// OLLAMA_HOST=0.0.0.0:11434 works as it does for the ollama command.
//
// A local Ollama needs no key and none is read by default. For a server
// behind authentication (ollama.com or a proxy), name the variable holding
// the key with api_key_env: it is sent as "Authorization: Bearer KEY".
//
// Tools are sent as {"type":"function","function":{name, description,
// parameters}} and the answer's tool_calls come back as tool calls.
// Ollama has no tool_choice parameter, so the prompt's choice is
// approximated: "none" sends no tools, a tool name sends only that tool,
// and "auto" or "required" send them all (a model may still answer in
// text, which the tool-use probes then report).
//
// A conversation prompt's turns follow the system message as chat
// messages: an assistant turn's calls as tool_calls (arguments a JSON
// object, as Ollama wants), a tool result as a "tool" message with
// tool_name and tool_call_id. A response_format becomes "format": the JSON
// schema itself, or "json" for json_object
// (https://github.com/ollama/ollama/blob/main/docs/api.md#request-structured-outputs).
//
// Extra parameters are passed through; a null value (temperature: null)
// removes the parameter, from "options" or the top level. A key that names an Ollama model
// option (top_k, top_p, min_p, num_ctx, stop, repeat_penalty, mirostat, …)
// goes into "options", an "options" map is merged into them, and any other
// key (format, keep_alive, think, …) goes to the top level. Extra
// parameters override the fields this client sets.
//
// An answer cut off at the token limit (done_reason "length") is a response;
// one with no content and no tool calls otherwise is a final error, as is
// an unknown model (HTTP 404).
//
// Settings (the provider's block in canary.yaml):
//
//	base_url     server address, default OLLAMA_HOST or http://localhost:11434
//	api_key_env  variable holding a bearer token, if the server needs one
//	headers      extra request headers
package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/apicall"
)

// Defaults of the client.
const (
	// DefaultHost is the server used when neither base_url nor OLLAMA_HOST
	// names one.
	DefaultHost = "http://localhost:11434"
	// HostEnv is the environment variable naming the server, as for the
	// ollama command.
	HostEnv = "OLLAMA_HOST"
)

// defaultPort is the port of an address given without one or a scheme.
const defaultPort = "11434"

func init() {
	provider.Register("ollama", Open)
	provider.Declare("ollama", provider.Capabilities{VendorModels: true, BaseURL: true, Free: true})
	provider.RegisterChecker("ollama", Check)
}

// Config configures a Client built with New.
type Config struct {
	// Model is the model name, for example "llama3.2" or "qwen3:8b".
	Model string
	// BaseURL is the server address; empty means DefaultHost. An address
	// without a scheme is http, one without a port uses 11434.
	BaseURL string
	// APIKey, when not empty, is sent as "Authorization: Bearer APIKEY".
	APIKey string
	// Header holds extra headers added to every request.
	Header http.Header
	// HTTPClient sends the requests; nil means a client without a global
	// timeout (the caller's context bounds each call, and a local model
	// may take long to load).
	HTTPClient *http.Client
	// Secrets, when set, receives the key and the credential header
	// values, and redacts them from errors; nil keeps them private.
	Secrets *redact.Set
}

// Client calls /api/chat for one model. It is safe for concurrent use.
type Client struct {
	model string
	url   string
	http  *httpc.Client
}

var _ provider.Provider = (*Client)(nil)

// New returns a client for cfg.Model. It makes no network call.
func New(cfg Config) (*Client, error) {
	if err := checkModel(cfg.Model); err != nil {
		return nil, err
	}
	host, err := HostURL("base URL", cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	h, secrets := httpc.ExtraHeader(cfg.Header, host)
	if cfg.APIKey != "" {
		if !httpc.ValidHeaderValue(cfg.APIKey) {
			return nil, errors.New("invalid API key: it holds a control character")
		}
		h.Set("Authorization", "Bearer "+cfg.APIKey)
		secrets = append(secrets, cfg.APIKey)
	}
	return &Client{
		model: cfg.Model,
		url:   host.String() + "/api/chat",
		http:  &httpc.Client{HTTP: cfg.HTTPClient, Header: h, Secrets: httpc.Secrets(cfg.Secrets, secrets...)},
	}, nil
}

// Open opens "ollama/MODEL" from canary.yaml settings and the environment;
// it reads OLLAMA_HOST and any key through opts.Env and makes no network
// call.
func Open(model string, opts provider.Options) (provider.Provider, error) {
	cfg, err := configure(model, opts, true)
	if err != nil {
		return nil, err
	}
	return New(cfg)
}

// Check checks the model, the settings and OLLAMA_HOST as Open does, with
// the same messages, but needs no key and makes no network call.
func Check(model string, opts provider.Options) error {
	cfg, err := configure(model, opts, false)
	if err != nil {
		return err
	}
	_, err = New(cfg)
	return err
}

// configure builds the Config of "ollama/MODEL"; needKey reads the key
// named by api_key_env, which must then be set.
func configure(model string, opts provider.Options, needKey bool) (Config, error) {
	s, err := readSettings(opts.Settings)
	if err != nil {
		return Config{}, err
	}
	base := s.BaseURL
	if base == "" {
		if env := strings.TrimSpace(opts.Env(HostEnv)); env != "" {
			if _, err := HostURL(HostEnv, env); err != nil {
				return Config{}, err
			}
			base = env
		}
	}
	var key string
	if s.KeyEnv != "" && needKey {
		key = strings.TrimSpace(opts.Env(s.KeyEnv))
		if key == "" {
			return Config{}, fmt.Errorf("%s is not set (it is named by the api_key_env setting; a local Ollama needs no key, so drop the setting or export the variable)", httpc.Redact(s.KeyEnv))
		}
		opts.Secrets.Add(key)
	}
	return Config{Model: model, BaseURL: base, APIKey: key, Header: s.Header, HTTPClient: opts.HTTPClient, Secrets: opts.Secrets}, nil
}

// Generate sends one prompt and returns the model's answer with what the
// server reported about it. Failures are *provider.Error (or the context's
// error) and never contain a key.
func (c *Client) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	if req == nil || req.Prompt == nil {
		return nil, &provider.Error{Message: "request has no prompt"}
	}
	resp, err := apicall.Do(ctx, c.http, http.MethodPost, c.url, c.body(req))
	if err != nil {
		return nil, err
	}
	return c.decode(resp.Body)
}
