// Package anthropic is the provider client for Anthropic's Messages API,
// used by "anthropic/MODEL" (for example anthropic/claude-sonnet-4-5).
//
// One call is one POST {base_url}/v1/messages with the headers x-api-key
// and anthropic-version. The system prompt goes into the top-level "system"
// field. max_tokens is required by the API and always sent: the run's
// max_tokens, or 1024 when it is 0. The Messages API has no seed
// parameter, so a configured seed is not sent: runs against Anthropic are
// never seeded.
//
// A conversation (Prompt.Conversation) becomes the messages: user turns
// as text, assistant turns as text and one tool_use block
// {type, id, name, input} per tool call, tool turns as tool_result blocks
// {type, tool_use_id, content} of a user turn, system turns added to the
// system prompt. Consecutive turns of one role are merged into one
// message, so roles alternate and consecutive tool results answer the
// assistant turn before them in one user turn, as the API requires.
//
// Structured output (Prompt.ResponseFormat) is sent as a forced tool: the
// schema is the input_schema of a tool named after the format (default
// "response"), tool_choice is {"type":"tool","name":…}, and the input of
// that tool's tool_use block is the response's content. A forced tool
// works on every Claude model and on Vertex AI without a beta header; with
// extended thinking, which refuses a forced tool, tool_choice is auto.
//
// temperature is sent, except with extended thinking (extra_params
// thinking: {type: enabled, …}), where the API takes only its default,
// and when extra_params sets top_p for a model that refuses both
// (Claude Sonnet 4.5, Opus 4.1, Haiku 4.5), unless extra_params sets
// temperature itself.
//
// Tools are sent as {name, description, input_schema}; the prompt's
// tool_choice maps to {"type":"auto"}, {"type":"none"}, {"type":"any"} for
// "required", and {"type":"tool","name":NAME} for a tool name. tool_choice
// is only sent with tools. tool_use content blocks come back as tool calls
// (several at once when the model calls tools in parallel); text blocks
// are concatenated into the content, thinking and redacted_thinking
// blocks are left out.
//
// Extra parameters (top_p, top_k, stop_sequences, metadata, thinking, …)
// are merged into the top level of the request body and override the fields
// this client sets; a null value removes the field.
//
// A refusal (stop_reason "refusal") or a cut-off answer ("max_tokens",
// even with no text because thinking used the budget) is a response, not
// an error: the finish reason carries the API's value and the probes judge
// the content. An answer with no content at all and an ordinary stop
// reason is a final error.
//
// Settings (the provider's block in canary.yaml):
//
//	base_url           API root, default https://api.anthropic.com
//	api_key_env        variable holding the key, default ANTHROPIC_API_KEY
//	headers            extra request headers (for example anthropic-beta)
//	anthropic_version  anthropic-version header, default 2023-06-01
package anthropic

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
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// Defaults of the client.
const (
	// DefaultBaseURL is the root of Anthropic's API.
	DefaultBaseURL = "https://api.anthropic.com"
	// DefaultVersion is the anthropic-version header sent when none is configured.
	DefaultVersion = "2023-06-01"
	// DefaultKeyEnv is the environment variable holding the API key.
	DefaultKeyEnv = "ANTHROPIC_API_KEY"
	// DefaultMaxTokens is sent as max_tokens when the run sets none; the
	// Messages API requires the field.
	DefaultMaxTokens = 1024
)

func init() {
	provider.Register("anthropic", Open)
	provider.Declare("anthropic", provider.Capabilities{VendorModels: true, BaseURL: true})
	provider.RegisterChecker("anthropic", Check)
}

// Check checks the model and settings as Open does, with the same
// messages, but needs no API key and makes no network call.
func Check(model string, opts provider.Options) error {
	s, err := readSettings(opts.Settings)
	if err != nil {
		return err
	}
	_, err = New(Config{Model: model, APIKey: setting.CheckKey, BaseURL: s.BaseURL, Version: s.version, Header: s.Header})
	return err
}

// Config configures a Client built with New.
type Config struct {
	// Model is the model name sent in every request, for example
	// "claude-sonnet-4-5".
	Model string
	// APIKey is sent in the x-api-key header. It is required.
	APIKey string
	// BaseURL is the API root; empty means DefaultBaseURL. A trailing
	// "/v1" is accepted and not doubled.
	BaseURL string
	// Version is the anthropic-version header; empty means DefaultVersion.
	Version string
	// Header holds extra headers added to every request.
	Header http.Header
	// HTTPClient sends the requests; nil means a client without a global
	// timeout (the caller's context bounds each call).
	HTTPClient *http.Client
	// Secrets, when set, receives the key and the credential header
	// values, and redacts them from errors; nil keeps them private.
	Secrets *redact.Set

	// Endpoint, when set, is the full URL each request is posted to,
	// instead of BaseURL + "/v1/messages" (Anthropic models on Vertex AI:
	// …/publishers/anthropic/models/MODEL:rawPredict).
	Endpoint string
	// Authorize, when set, adds the credentials to each request (an OAuth
	// bearer token); then APIKey is not required and no x-api-key header
	// is sent.
	Authorize func(req *http.Request, body []byte) error
	// BodyVersion, when set, is sent in the body as "anthropic_version"
	// and the model is left out of the body (the endpoint names it), as
	// Vertex AI takes Anthropic models; no anthropic-version header is sent.
	// https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude
	BodyVersion string
}

// Client calls the Messages API for one model. It is safe for concurrent use.
type Client struct {
	model       string
	url         string
	bodyVersion string
	http        *httpc.Client
}

var _ provider.Provider = (*Client)(nil)

// New returns a client for cfg.Model. It makes no network call.
func New(cfg Config) (*Client, error) {
	if err := checkModel(cfg.Model); err != nil {
		return nil, err
	}
	if cfg.APIKey == "" && cfg.Authorize == nil {
		return nil, errors.New("empty API key")
	}
	endpoint, base, err := root.Endpoint(cfg.Endpoint, cfg.BaseURL, "/v1/messages")
	if err != nil {
		return nil, err
	}
	version := cfg.Version
	if version == "" {
		version = DefaultVersion
	}
	if !httpc.ValidHeaderValue(version) {
		return nil, errors.New("invalid anthropic-version: it holds a control character")
	}
	h, secrets := httpc.ExtraHeader(cfg.Header, base)
	if cfg.APIKey != "" && cfg.Authorize == nil {
		secrets = append(secrets, cfg.APIKey)
		h.Set("x-api-key", cfg.APIKey)
	}
	if cfg.BodyVersion == "" {
		h.Set("anthropic-version", version)
	}
	return &Client{
		model:       cfg.Model,
		url:         endpoint,
		bodyVersion: cfg.BodyVersion,
		http:        &httpc.Client{HTTP: cfg.HTTPClient, Header: h, Secrets: httpc.Secrets(cfg.Secrets, secrets...), Authorize: cfg.Authorize},
	}, nil
}

// Open opens "anthropic/MODEL" from canary.yaml settings and the
// environment; it reads the key through opts.Env and makes no network call.
func Open(model string, opts provider.Options) (provider.Provider, error) {
	s, err := readSettings(opts.Settings)
	if err != nil {
		return nil, err
	}
	keyEnv := s.KeyEnv
	if keyEnv == "" {
		keyEnv = DefaultKeyEnv
	}
	key := strings.TrimSpace(opts.Env(keyEnv))
	opts.Secrets.Add(key)
	if key == "" {
		return nil, fmt.Errorf("%s is not set (export the Anthropic API key, or name another variable with the api_key_env setting)", httpc.Redact(keyEnv))
	}
	return New(Config{
		Model:      model,
		APIKey:     key,
		BaseURL:    s.BaseURL,
		Version:    s.version,
		Header:     s.Header,
		HTTPClient: opts.HTTPClient,
		Secrets:    opts.Secrets,
	})
}

// Generate sends one prompt and returns the model's answer with what the API
// reported about it. Failures are *provider.Error (or the context's error)
// and never contain the API key.
func (c *Client) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	if req == nil || req.Prompt == nil {
		return nil, &provider.Error{Message: "request has no prompt"}
	}
	resp, err := apicall.Do(ctx, c.http, http.MethodPost, c.url, c.body(req))
	if err != nil {
		return nil, err
	}
	output := ""
	if req.Prompt.ResponseFormat != nil {
		output = req.Prompt.ResponseFormat.SchemaName()
	}
	return decode(resp.Body, output)
}
