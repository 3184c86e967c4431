// Package gemini is the provider client for the Gemini API's
// generateContent method, used by "gemini/MODEL" (for example
// gemini/gemini-2.5-flash).
//
// One call is one POST {base_url}/v1beta/models/MODEL:generateContent with
// the key in the x-goog-api-key header (never in the URL). The system
// prompt goes into "systemInstruction", and temperature, max_tokens (as
// maxOutputTokens, when not 0) and the seed go into "generationConfig".
// The seed must fit in 32 bits, as the API's field does.
//
// A conversation (Prompt.Conversation) becomes "contents": user turns as
// text parts of role "user", assistant turns as text and functionCall
// parts {name, args} of role "model", tool turns as functionResponse parts
// {name, response} of role "user" (Message.Name names the tool; a result
// that is a JSON object is the response, any other under "output"), and
// system turns join the system instruction. Consecutive turns of one role
// are merged, so the results of parallel calls answer them in one turn.
//
// Structured output (Prompt.ResponseFormat) is native: responseMimeType
// "application/json", with the schema as responseSchema when it stays in
// the OpenAPI subset that field takes and as responseJsonSchema, which
// takes full JSON Schema, otherwise. Gemini 2.x refuses function calling
// with a JSON MIME type, so for those models a prompt with tools is sent
// without it, and the probes judge the JSON of the answer.
//
// Tools are sent as one Tool holding every functionDeclaration. A tool's
// JSON Schema is sent as "parameters" when it stays within the OpenAPI
// subset that field accepts, and as "parametersJsonSchema" otherwise (for
// example with additionalProperties or a list of types), so any schema the
// other providers accept works here too. The prompt's tool_choice maps to
// functionCallingConfig mode AUTO, NONE, ANY for "required", and ANY with
// allowedFunctionNames [NAME] for a tool name. functionCall parts come back
// as tool calls; text parts (not thought summaries) are concatenated.
//
// Extra parameters are passed through; a null value removes the field. Keys are written in the API's
// lowerCamelCase (top_p becomes topP; the API itself accepts both). A key
// that names a GenerationConfig field (topP, topK, stopSequences,
// responseMimeType, thinkingConfig, …) goes into generationConfig, a
// "generationConfig" map is merged into it, and any other key (for
// example safetySettings) goes to the top level. Extra parameters override
// the fields this client sets.
//
// Blocked answers are responses, not errors, so that the probes can judge
// them: when the prompt itself is blocked (no candidates and a
// promptFeedback.blockReason) the finish reason is "blocked:REASON" and
// the content is empty; a candidate stopped for SAFETY, RECITATION, … keeps
// that finish reason and whatever text it has. A Gemini 2.5 model thinks
// within maxOutputTokens: when thinking spends it all, the candidate has
// no parts and finishReason MAX_TOKENS, which is a response with empty
// content; thought parts are never content, and thoughtsTokenCount counts
// as completion tokens. A candidate with no content and an ordinary finish
// reason (STOP) is a final error.
//
// The key comes from GEMINI_API_KEY or GOOGLE_API_KEY; as in Google's own
// libraries, GOOGLE_API_KEY takes precedence when both are set. Settings
// (the provider's block in canary.yaml):
//
//	base_url     API root, default https://generativelanguage.googleapis.com
//	api_key_env  variable holding the key, instead of the two above
//	headers      extra request headers
package gemini

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
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
	// DefaultBaseURL is the root of the Gemini API.
	DefaultBaseURL = "https://generativelanguage.googleapis.com"
	// DefaultKeyEnv is the environment variable documented for the key.
	DefaultKeyEnv = "GEMINI_API_KEY"
	// GoogleKeyEnv is also read; it takes precedence when both are set.
	GoogleKeyEnv = "GOOGLE_API_KEY"
)

// apiVersion is the path segment of the API version in use.
const apiVersion = "v1beta"

func init() {
	provider.Register("gemini", Open)
	provider.Declare("gemini", provider.Capabilities{VendorModels: true, BaseURL: true})
	provider.RegisterChecker("gemini", Check)
}

// Check checks the model and settings as Open does, with the same
// messages, but needs no API key and makes no network call.
func Check(model string, opts provider.Options) error {
	s, err := setting.ReadCommon(opts.Settings, root.Parse, nil)
	if err != nil {
		return err
	}
	_, err = New(Config{Model: model, APIKey: setting.CheckKey, BaseURL: s.BaseURL, Header: s.Header})
	return err
}

// Config configures a Client built with New.
type Config struct {
	// Model is the model name, for example "gemini-2.5-flash"; a
	// "models/" or "tunedModels/" prefix is accepted.
	Model string
	// APIKey is sent in the x-goog-api-key header. It is required.
	APIKey string
	// BaseURL is the API root; empty means DefaultBaseURL. A trailing
	// "/v1beta" is accepted and not doubled.
	BaseURL string
	// Header holds extra headers added to every request.
	Header http.Header
	// HTTPClient sends the requests; nil means a client without a global
	// timeout (the caller's context bounds each call).
	HTTPClient *http.Client
	// Secrets, when set, receives the key and the credential header
	// values, and redacts them from errors; nil keeps them private.
	Secrets *redact.Set

	// Endpoint, when set, is the full URL each request is posted to,
	// instead of BaseURL + "/v1beta/models/MODEL:generateContent" (Vertex
	// AI: …/publishers/google/models/MODEL:generateContent).
	Endpoint string
	// Authorize, when set, adds the credentials to each request (an OAuth
	// bearer token); then APIKey is not required and no x-goog-api-key
	// header is sent.
	Authorize func(req *http.Request, body []byte) error
}

// Client calls generateContent for one model. It is safe for concurrent use.
type Client struct {
	url string
	// toolsOrJSON: the model refuses function calling together with a
	// JSON response MIME type (Gemini 2.x).
	toolsOrJSON bool
	http        *httpc.Client
}

var _ provider.Provider = (*Client)(nil)

// New returns a client for cfg.Model. It makes no network call.
func New(cfg Config) (*Client, error) {
	path, err := modelPath(cfg.Model)
	if err != nil {
		return nil, err
	}
	if cfg.APIKey == "" && cfg.Authorize == nil {
		return nil, errors.New("empty API key")
	}
	collection, name, _ := strings.Cut(path, "/")
	endpoint, base, err := root.Endpoint(cfg.Endpoint, cfg.BaseURL, "/"+apiVersion+"/"+collection+"/"+url.PathEscape(name)+":generateContent")
	if err != nil {
		return nil, err
	}
	h, secrets := httpc.ExtraHeader(cfg.Header, base)
	if cfg.APIKey != "" && cfg.Authorize == nil {
		secrets = append(secrets, cfg.APIKey)
		h.Set("x-goog-api-key", cfg.APIKey)
	}
	return &Client{
		url:         endpoint,
		toolsOrJSON: strings.HasPrefix(name, "gemini-2"),
		http:        &httpc.Client{HTTP: cfg.HTTPClient, Header: h, Secrets: httpc.Secrets(cfg.Secrets, secrets...), ErrorMessage: errorMessage, Authorize: cfg.Authorize},
	}, nil
}

// Open opens "gemini/MODEL" from canary.yaml settings and the environment;
// it reads the key through opts.Env and makes no network call.
func Open(model string, opts provider.Options) (provider.Provider, error) {
	s, err := setting.ReadCommon(opts.Settings, root.Parse, nil)
	if err != nil {
		return nil, err
	}
	var key string
	if s.KeyEnv != "" {
		key = strings.TrimSpace(opts.Env(s.KeyEnv))
		if key == "" {
			return nil, fmt.Errorf("%s is not set (export the Gemini API key, or name another variable with the api_key_env setting)", httpc.Redact(s.KeyEnv))
		}
	} else {
		key = strings.TrimSpace(opts.Env(GoogleKeyEnv))
		if key == "" {
			key = strings.TrimSpace(opts.Env(DefaultKeyEnv))
		}
		if key == "" {
			return nil, fmt.Errorf("%s is not set (export the Gemini API key as %s or %s, or name another variable with the api_key_env setting)", DefaultKeyEnv, DefaultKeyEnv, GoogleKeyEnv)
		}
	}
	opts.Secrets.Add(key)
	return New(Config{Model: model, APIKey: key, BaseURL: s.BaseURL, Header: s.Header, HTTPClient: opts.HTTPClient, Secrets: opts.Secrets})
}

// Generate sends one prompt and returns the model's answer with what the API
// reported about it. Failures are *provider.Error (or the context's error)
// and never contain the API key.
func (c *Client) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	if req == nil || req.Prompt == nil {
		return nil, &provider.Error{Message: "request has no prompt"}
	}
	if s, ok := req.CallSeed(); ok && (s < math.MinInt32 || s > math.MaxInt32) {
		return nil, &provider.Error{Message: fmt.Sprintf("seed %d (the configured seed plus the sample's index) does not fit the Gemini API's 32-bit seed field", s)}
	}
	// A 429 body is read here rather than in httpc: Gemini names its delay
	// in the body's RetryInfo, not in a Retry-After header.
	resp, err := apicall.Do(ctx, c.http, http.MethodPost, c.url, c.body(req), http.StatusOK, http.StatusTooManyRequests)
	if err != nil {
		return nil, err
	}
	if resp.Status == http.StatusTooManyRequests {
		return nil, c.rateLimited(resp)
	}
	return decode(resp.Body)
}
