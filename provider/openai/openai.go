// Package openai is a client for the OpenAI Chat Completions API and the
// many servers that speak it: OpenAI itself, Azure OpenAI, xAI, Groq,
// OpenRouter, Together AI, Mistral, and self-hosted servers such as vLLM,
// the llama.cpp server, LM Studio or a LiteLLM proxy.
//
// One client is registered under every name of the table below; the name
// before the slash of "name/model" picks the base URL, the environment
// variable that holds the key and the small wire differences:
//
//	name         base URL                          key variable          max tokens field
//	openai       https://api.openai.com/v1 (1)     OPENAI_API_KEY (2)    max_completion_tokens (3)
//	azure        AZURE_OPENAI_ENDPOINT (4)         AZURE_OPENAI_API_KEY  max_completion_tokens
//	xai          https://api.x.ai/v1               XAI_API_KEY           max_tokens
//	groq         https://api.groq.com/openai/v1    GROQ_API_KEY          max_tokens
//	openrouter   https://openrouter.ai/api/v1      OPENROUTER_API_KEY    max_tokens
//	together     https://api.together.ai/v1        TOGETHER_API_KEY      max_tokens
//	mistral      https://api.mistral.ai/v1         MISTRAL_API_KEY       max_tokens (5)
//	hosted_vllm  HOSTED_VLLM_API_BASE (required)   HOSTED_VLLM_API_KEY   max_tokens
//	                                               (optional)
//
// (1) or OPENAI_BASE_URL. (2) optional when a custom base URL is set: local
// servers often need none. (3) the field is chosen by model first
// (provider/modelrules): OpenAI's reasoning models (o1, o3, o4-mini,
// gpt-5 and later) get max_completion_tokens whatever the host or name,
// so a proxy or gateway serving gpt-5 works; for other models, max_tokens
// when the base URL is not api.openai.com, since older compatible servers
// only know max_tokens.
// (4) the resource endpoint, https://RESOURCE.openai.azure.com; the model is
// the deployment name, the api-version comes from the api_version setting,
// AZURE_OPENAI_API_VERSION or DefaultAzureAPIVersion, and the key travels in
// the api-key header instead of Authorization. (5) Mistral names the seed
// random_seed; the others call it seed.
//
// Settings from canary.yaml: base_url (overrides the table for every name),
// api_key_env (the variable that holds the key), headers (extra request
// headers), max_tokens_field ("max_tokens" or "max_completion_tokens",
// overriding the model's field), api ("chat" or "responses", see below)
// and, for azure only, api_version.
//
// Models OpenAI serves only through the Responses API (o1-pro, o3-pro,
// gpt-5-pro, codex models; modelrules ResponsesOnly) are called through
// POST {base}/responses when the name is openai; "api: responses" selects it for any model and
// "api: chat" forces Chat Completions. Azure stays on chat completions.
// A model's request rules apply on both APIs: a temperature the model
// does not take (gpt-5 takes only the default 1) and top_p for models
// that refuse it are left out of the request, whatever Config or
// ExtraParams ask. A nil value in ExtraParams removes that key.
//
// A prompt's conversation (Prompt.Conversation) is sent in each API's
// form: chat messages with assistant tool_calls and tool messages, or
// Responses input items (messages, function_call, function_call_output);
// the system prompt is the first system message, or the instructions.
// Structured output (Prompt.ResponseFormat) is response_format, or
// text.format. A refusal is a response, not an error: Content is the
// refusal text and FinishReason "refusal" (the API's own finish reason
// stays in the raw response). An answer whose whole budget went to
// reasoning is a response with empty Content and FinishReason "length".
//
// A prompt's tools are sent as {"type":"function","function":{…}} entries and
// its tool choice as "auto", "none", "required" or a named function; the
// model's tool calls come back with their arguments decoded. A filtered
// answer (finish_reason "content_filter", or Azure's HTTP 400 with code
// content_filter) is a response, not an error: the probes judge it.
package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/apicall"
	"github.com/promptcanary/promptcanary/provider/modelrules"
)

// DefaultAzureAPIVersion is the Azure OpenAI api-version sent when neither
// the api_version setting nor AZURE_OPENAI_API_VERSION names one: the
// latest generally available data-plane inference version.
const DefaultAzureAPIVersion = "2024-10-21"

// The names of the two max-tokens request fields.
const (
	MaxTokens           = "max_tokens"
	MaxCompletionTokens = "max_completion_tokens"
)

// The APIs a Client can call: Config.API and the api setting.
const (
	// APIChat is Chat Completions, POST {base}/chat/completions.
	APIChat = "chat"
	// APIResponses is the Responses API, POST {base}/responses.
	APIResponses = "responses"
)

// endpoint describes one registered name.
type endpoint struct {
	name string
	// baseURL is the default base URL; "" means one must be configured.
	baseURL string
	// keyEnv holds the API key; baseEnv, when set, overrides baseURL.
	keyEnv, baseEnv string
	// keyOptional: the key may be missing (always, or with a custom base).
	keyOptional       bool
	keyOptionalCustom bool
	maxTokensField    string
	seedField         string
	azure             bool
	// free: a self-hosted server, which costs nothing per call.
	free bool
	// example is a sample base URL for hints.
	example string
}

// endpoints is the one table of names, base URLs and key variables.
var endpoints = []endpoint{
	{name: "openai", baseURL: "https://api.openai.com/v1", keyEnv: "OPENAI_API_KEY", baseEnv: "OPENAI_BASE_URL",
		keyOptionalCustom: true, maxTokensField: MaxCompletionTokens, seedField: "seed", example: "http://localhost:8000/v1"},
	{name: "azure", keyEnv: "AZURE_OPENAI_API_KEY", baseEnv: "AZURE_OPENAI_ENDPOINT",
		maxTokensField: MaxCompletionTokens, seedField: "seed", azure: true, example: "https://RESOURCE.openai.azure.com"},
	{name: "xai", baseURL: "https://api.x.ai/v1", keyEnv: "XAI_API_KEY", maxTokensField: MaxTokens, seedField: "seed"},
	{name: "groq", baseURL: "https://api.groq.com/openai/v1", keyEnv: "GROQ_API_KEY", maxTokensField: MaxTokens, seedField: "seed"},
	{name: "openrouter", baseURL: "https://openrouter.ai/api/v1", keyEnv: "OPENROUTER_API_KEY", maxTokensField: MaxTokens, seedField: "seed"},
	{name: "together", baseURL: "https://api.together.ai/v1", keyEnv: "TOGETHER_API_KEY", maxTokensField: MaxTokens, seedField: "seed"},
	{name: "mistral", baseURL: "https://api.mistral.ai/v1", keyEnv: "MISTRAL_API_KEY", maxTokensField: MaxTokens, seedField: "random_seed"},
	{name: "hosted_vllm", keyEnv: "HOSTED_VLLM_API_KEY", baseEnv: "HOSTED_VLLM_API_BASE",
		keyOptional: true, free: true, maxTokensField: MaxTokens, seedField: "seed", example: "http://localhost:8000/v1"},
}

// lookup returns the table entry for name, or a generic compatible server.
func lookup(name string) endpoint {
	for _, e := range endpoints {
		if e.name == name {
			return e
		}
	}
	return endpoint{name: name, maxTokensField: MaxTokens, seedField: "seed"}
}

// openAIHost is the host whose models want max_completion_tokens.
const openAIHost = "api.openai.com"

// Config configures a Client for Go users; Open builds one from canary.yaml
// settings and the environment.
type Config struct {
	// Name is a registered name ("openai", "groq", …) selecting the default
	// base URL and wire differences, or any label for another compatible
	// server (then BaseURL is required).
	Name string
	// Model is the model, or the deployment name for Azure.
	Model string
	// BaseURL is the API base, for example https://api.openai.com/v1, or the
	// resource endpoint for Azure; "" means Name's default.
	BaseURL string
	// APIKey is sent as a bearer token, or in the api-key header for Azure;
	// "" sends no key.
	APIKey string
	// Header is added to every request.
	Header http.Header
	// HTTPClient sends the requests; nil means a client without a global
	// timeout (callers bound each call with its context).
	HTTPClient *http.Client
	// Azure selects the Azure OpenAI URL layout and api-key header; it is
	// implied by Name "azure".
	Azure bool
	// APIVersion is Azure's api-version, DefaultAzureAPIVersion when "".
	APIVersion string
	// MaxTokensField overrides the field that carries the token limit:
	// MaxTokens or MaxCompletionTokens. "" means the model's field from
	// modelrules (max_completion_tokens for OpenAI's reasoning models,
	// whatever the host), else the name's default.
	MaxTokensField string
	// API is APIChat or APIResponses; "" means the Responses API for the
	// models OpenAI serves only there (modelrules ResponsesOnly) when Name
	// is "openai", Chat Completions otherwise. Azure supports APIChat only.
	API string
	// Secrets, when set, receives the key and the credential header
	// values, and redacts them from errors; nil keeps them private.
	Secrets *redact.Set
}

// Client calls one model through the Chat Completions API or the
// Responses API. It is safe for concurrent use.
type Client struct {
	name, model    string
	url            string
	api            string
	maxTokensField string
	seedField      string
	rules          modelrules.Rules
	http           *httpc.Client
}

var _ provider.Provider = (*Client)(nil)

// New returns a client for cfg. It makes no network call.
func New(cfg Config) (*Client, error) {
	ep := lookup(cfg.Name)
	azure := cfg.Azure || ep.azure
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("new openai client: missing model")
	}
	base := cfg.BaseURL
	if base == "" {
		base = ep.baseURL
	}
	if base == "" {
		return nil, fmt.Errorf("new %s client: missing base URL", label(cfg.Name))
	}
	u, err := parseBase(base)
	if err != nil {
		return nil, fmt.Errorf("new %s client: %w", label(cfg.Name), err)
	}
	rules := modelrules.For(cfg.Model)
	field := cfg.MaxTokensField
	if field == "" {
		field = defaultTokenField(ep, u, rules)
	}
	if field != MaxTokens && field != MaxCompletionTokens {
		return nil, fmt.Errorf("new %s client: max tokens field %q: want %s or %s", label(cfg.Name), field, MaxTokens, MaxCompletionTokens)
	}
	api, err := chooseAPI(cfg.API, azure, ep.name == "openai" && rules.ResponsesOnly)
	if err != nil {
		return nil, fmt.Errorf("new %s client: %w", label(cfg.Name), err)
	}
	u = endpointURL(u, cfg, azure, api)

	h := http.Header{}
	for k, vs := range cfg.Header {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	secrets := secretHeaderValues(cfg.Header)
	if u.User != nil {
		if p, ok := u.User.Password(); ok {
			secrets = append(secrets, p)
		}
	}
	if cfg.APIKey != "" {
		secrets = append(secrets, cfg.APIKey)
		if azure {
			h.Set("Api-Key", cfg.APIKey)
		} else {
			h.Set("Authorization", "Bearer "+cfg.APIKey)
		}
	}
	return &Client{
		name:           label(cfg.Name),
		model:          cfg.Model,
		url:            u.String(),
		api:            api,
		maxTokensField: field,
		seedField:      ep.seedField,
		rules:          rules,
		http:           &httpc.Client{HTTP: cfg.HTTPClient, Header: h, Secrets: httpc.Secrets(cfg.Secrets, secrets...)},
	}, nil
}

// endpointURL is the URL to post to: Azure's deployment URL with its
// api-version, or the base plus chat/completions or responses.
func endpointURL(u *url.URL, cfg Config, azure bool, api string) *url.URL {
	if azure {
		// The endpoint is the resource root; accept it with /openai too.
		u.Path = strings.TrimSuffix(u.Path, "/openai")
		v := cfg.APIVersion
		if v == "" {
			v = DefaultAzureAPIVersion
		}
		u = u.JoinPath("openai", "deployments", url.PathEscape(cfg.Model), "chat", "completions")
		q := u.Query()
		q.Set("api-version", v)
		u.RawQuery = q.Encode()
		return u
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/chat/completions"), "/responses")
	if api == APIResponses {
		return u.JoinPath("responses")
	}
	return u.JoinPath("chat", "completions")
}

// defaultTokenField is the field that carries the token limit when no
// setting names one: the model's own (modelrules: OpenAI's reasoning
// models refuse max_tokens, also behind a proxy or gateway), else the
// name's default, which for "openai" is max_tokens when the base URL is
// not api.openai.com, as older compatible servers only know max_tokens.
func defaultTokenField(ep endpoint, u *url.URL, rules modelrules.Rules) string {
	if rules.TokenField != "" {
		return rules.TokenField
	}
	if ep.name == "openai" && !strings.EqualFold(u.Hostname(), openAIHost) {
		return MaxTokens
	}
	return ep.maxTokensField
}

// chooseAPI resolves Config.API. responsesOnly: the model is one OpenAI
// serves only through the Responses API, and the name is "openai"
// (gateways such as OpenRouter serve those models through chat
// completions, so other names keep chat unless told otherwise).
func chooseAPI(api string, azure, responsesOnly bool) (string, error) {
	switch api {
	case "":
		if responsesOnly && !azure {
			return APIResponses, nil
		}
		return APIChat, nil
	case APIChat:
		return api, nil
	case APIResponses:
		if azure {
			return "", errors.New("api responses: this client calls Azure OpenAI through chat completions only")
		}
		return api, nil
	}
	return "", fmt.Errorf("api %q: want %s or %s", api, APIChat, APIResponses)
}

func label(name string) string {
	if name == "" {
		return "openai"
	}
	return name
}

// parseBase checks that base is an absolute http(s) URL.
func parseBase(base string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("base URL %q: want an http or https URL such as https://api.openai.com/v1", httpc.Redact(safeURL(base)))
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}

// safeURL hides a password in a URL for messages.
func safeURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s
}

// secretHeaderValues returns the values of headers that look like
// credentials, so they are redacted from errors too.
func secretHeaderValues(h http.Header) []string {
	var out []string
	for k, vs := range h {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "auth") || strings.Contains(lk, "key") || strings.Contains(lk, "token") || strings.Contains(lk, "secret") {
			for _, v := range vs {
				out = append(out, v, strings.TrimSpace(strings.TrimPrefix(v, "Bearer ")))
			}
		}
	}
	return out
}

// URL returns the URL the client posts to: chat completions or responses.
func (c *Client) URL() string { return c.url }

// API returns the API the client calls: APIChat or APIResponses.
func (c *Client) API() string { return c.api }

// okStatus lists the statuses whose body Generate reads itself: every 2xx,
// and 400 for Azure's content-filter answer.
var okStatus = func() []int {
	s := make([]int, 0, 101)
	for code := 200; code < 300; code++ {
		s = append(s, code)
	}
	return append(s, http.StatusBadRequest)
}()

// Generate sends one request: a chat completion, or a response of the
// Responses API.
func (c *Client) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	if req == nil || req.Prompt == nil {
		return nil, errors.New("generate: missing prompt")
	}
	var resp *promptcanary.Response
	var err error
	if c.api == APIResponses {
		resp, err = c.generateResponses(ctx, req)
	} else {
		resp, err = c.generateChat(ctx, req)
	}
	if err != nil {
		return nil, c.withHint(err)
	}
	resp.ProviderModelID = req.Config.ModelID
	if resp.ProviderModelID == "" {
		resp.ProviderModelID = c.name + "/" + c.model
	}
	return resp, nil
}

// generateChat sends one chat completion request.
func (c *Client) generateChat(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	hr, err := apicall.Do(ctx, c.http, http.MethodPost, c.url, c.chatBody(req), okStatus...)
	if err != nil {
		return nil, err
	}
	if hr.Status == http.StatusBadRequest {
		if !isContentFilter(hr.Body) {
			return nil, c.badRequest(hr.Body)
		}
		return &promptcanary.Response{FinishReason: "content_filter", RawResponse: rawJSON(hr.Body)}, nil
	}
	resp, err := decode(hr.Body)
	if err != nil {
		return nil, c.decodeError(err, hr.Status)
	}
	return resp, nil
}

// decodeError completes a decoding error with the status and redacts it.
func (c *Client) decodeError(err error, status int) error {
	var pe *provider.Error
	if errors.As(err, &pe) {
		pe.StatusCode = status
		pe.Message = c.http.Message(pe.Message)
	}
	return err
}

// badRequest is the final error for an HTTP 400 that is not a filter.
func (c *Client) badRequest(body []byte) error {
	msg := httpc.ErrorMessage(body)
	if msg == "" {
		msg = http.StatusText(http.StatusBadRequest)
	}
	return &provider.Error{StatusCode: http.StatusBadRequest, Message: c.http.Redact(msg)}
}
