// Package httpapi is the provider for the user's own deployed application:
// "http/NAME" calls the endpoint described by the providers: entry with
// id http/NAME in canary.yaml, so a suite canaries the product (its prompts, retrieval,
// guardrails and post-processing), not only the raw model. It registers
// itself as "http".
//
//	providers:
//	  - id: http/support-bot
//	    url: https://bot.example.com/api/chat
//	    method: POST                      # default POST
//	    headers:
//	      Authorization: Bearer ${BOT_TOKEN}
//	    body:                             # default {"prompt": "{{prompt}}", "system": "{{system}}"}
//	      question: "{{prompt}}"
//	      context: {instructions: "{{system}}", ref: "canary-{{prompt_id}}"}
//	      options: {temperature: "{{temperature}}", max_tokens: "{{max_tokens}}"}
//	    response:
//	      text: data.answer               # required
//	      prompt_tokens: usage.input
//	      completion_tokens: usage.output
//	      finish_reason: data.stop_reason
//	      model: meta.model
//	      tool_calls: data.actions
//	    status: [200, 201]                # default [200]
//
// # Request
//
// ${NAME} in the url and in header values is replaced by the environment
// variable NAME when the provider is opened; an unset variable is an error
// naming it. Header values that used a variable are redacted from every
// error message.
//
// The body is a JSON template given as any YAML structure. Its string
// values may contain the placeholders {{prompt}}, {{system}},
// {{prompt_id}}, {{sample}}, {{temperature}}, {{max_tokens}} and {{seed}}
// (spaces inside the braces are allowed). Substitution works on the
// structure, never on JSON text: the values are encoded as JSON strings,
// so quotes, newlines or braces in a prompt cannot break or inject into the
// body. A string that is exactly "{{sample}}", "{{temperature}}",
// "{{max_tokens}}" or "{{seed}}" becomes a JSON number (an unset seed
// becomes null). An unknown placeholder is an error when the provider is
// opened. Map keys are not substituted. When the body is an object, the
// run's extra_params are merged into its top level, replacing keys of the
// template; a null extra parameter removes the key.
//
// Conversations and structured output: a string that is exactly
// "{{messages}}" becomes the conversation as a JSON array (the prompt's
// text as the first user turn, then its messages: turns, each {"role",
// "content"}, with "tool_calls" [{"id", "name", "arguments"}] on an
// assistant turn and "tool_call_id" and "name" on a tool result; the
// system prompt stays in {{system}}), and "{{response_format}}" the
// prompt's response_format ({"type": "json_schema", "name", "schema",
// "strict"} or {"type": "json_object"}), null when it has none. Inside a
// longer string both are their JSON text. {{prompt}} is the last user
// turn: the text of a prompt without messages. GET and HEAD requests send no body; the url may hold
// placeholders too, escaped for the path or the query string.
//
// # Response paths
//
// A response path names a value in the JSON response body: dot-separated
// object keys, where a segment that is an integer indexes an array
// (negative integers count from the end). "choices.0.message.content"
// reads {"choices": [{"message": {"content": "…"}}]}. Write "\." for a dot
// inside a key and "\\" for a backslash. "." or "" is the whole body; a
// leading "." is ignored, so ".data.answer" is "data.answer".
//
// The text path must resolve: a string is the answer, null is an empty
// answer, a number or boolean is its JSON text, and an object or array is
// the answer as JSON text (for probes that check structured output). When
// the text path is "." and the body is not JSON, the whole body is the
// answer, less one trailing newline. The optional paths may name a field
// the response leaves out (the last key is absent from its object, or the
// value is null); any other path that does not resolve is an error naming
// the missing segment. Token counts are non-negative integers (numbers or
// digit strings); tool_calls is an array of {"name", "arguments", "id"}
// objects or of OpenAI-style {"id", "function": {"name", "arguments"}}
// objects, with arguments as an object or a JSON-encoded string.
//
// # Errors
//
// A status code outside status is a *provider.Error: 429, 408, 409 and 5xx
// are retryable and honour Retry-After, other codes are final. A response
// that is not valid JSON when a path needs JSON is retryable (a truncated
// body is usually transient); a path that does not resolve is final.
package httpapi

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/apicall"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

func init() {
	provider.Register("http", Open)
	provider.RegisterChecker("http", Check)
	provider.Declare("http", provider.Capabilities{App: true})
}

// Config describes one endpoint of the user's application.
type Config struct {
	// URL is the endpoint. ${NAME} is replaced by the environment variable
	// NAME; placeholders such as {{prompt}} are replaced, escaped, per call.
	URL string
	// Method is the HTTP method; "" means POST.
	Method string
	// Headers are sent with every request. ${NAME} in a value is replaced
	// by the environment variable NAME, and the result is kept out of
	// errors.
	Headers map[string]string
	// Body is the JSON body template: any value encoding/json can encode,
	// whose strings may hold placeholders. Nil means DefaultBody(). GET and
	// HEAD requests send no body.
	Body any
	// Response says where the answer is in the response body.
	Response Paths
	// Status lists the accepted status codes; empty means 200 only.
	Status []int
	// HTTPClient sends the requests; nil means a client without a global
	// timeout (the run engine bounds each call through its context).
	HTTPClient *http.Client
	// Secrets, when set, receives the header values (and url query or
	// userinfo values) expanded from ${NAME}, and redacts them from
	// errors; nil keeps them private.
	Secrets *redact.Set
}

// Paths are the response paths of a Config (see the package documentation
// for the syntax). An empty optional path is not read.
type Paths struct {
	// Text is the path to the answer text; "" and "." are the whole body.
	Text string
	// PromptTokens and CompletionTokens are the paths to the token counts.
	PromptTokens, CompletionTokens string
	// FinishReason, Model and ToolCalls are the paths to the stop reason,
	// the model that answered and the array of tool calls.
	FinishReason, Model, ToolCalls string
}

// DefaultBody returns the body template used when a Config has none:
// {"prompt": "{{prompt}}", "system": "{{system}}"}.
func DefaultBody() map[string]any {
	return map[string]any{"prompt": "{{prompt}}", "system": "{{system}}"}
}

// Client calls one endpoint of the user's application. It is safe for
// concurrent use: it is never modified after New.
type Client struct {
	name   string
	method string
	url    *urlTemplate
	body   *template // nil: no body
	status []int
	hc     *httpc.Client
	paths  compiledPaths
}

var _ provider.Provider = (*Client)(nil)

// compiledPaths are the parsed response paths; set records which optional
// paths were configured.
type compiledPaths struct {
	text                             respPath
	promptTokens, completionTokens   respPath
	finishReason, model, toolCalls   respPath
	hasPromptTokens, hasCompletion   bool
	hasFinish, hasModel, hasToolCall bool
}

// Open opens "http/NAME" from the settings of its providers: entry.
func Open(model string, opts provider.Options) (provider.Provider, error) {
	if opts.Settings == nil {
		return nil, fmt.Errorf("no settings for %q: describe the endpoint in canary.yaml under providers: with id: http/%s, url: and response: {text: …}", model, model)
	}
	cfg, err := ParseSettings(opts.Settings)
	if err != nil {
		return nil, err
	}
	cfg.HTTPClient = opts.HTTPClient
	cfg.Secrets = opts.Secrets
	return newClient(model, cfg, opts.Env)
}

// Check checks the settings of "http/NAME" as Open does, with the same
// messages (a misspelt key, a missing url, an unknown placeholder, …), but
// needs none of the variables named by ${NAME} (they hold tokens) and
// calls nothing: an unset one stands for an address, so that a url made
// of variables still checks.
func Check(model string, opts provider.Options) error {
	if opts.Settings == nil {
		_, err := Open(model, opts)
		return err
	}
	cfg, err := ParseSettings(opts.Settings)
	if err != nil {
		return err
	}
	_, err = newClient(model, cfg, func(name string) string {
		if v := opts.Env(name); v != "" {
			return v
		}
		return checkValue
	})
	return err
}

// checkValue stands for an unset variable when settings are checked.
const checkValue = "http://unset.invalid"

// New returns a client for the endpoint cfg describes; name identifies it
// in errors. getenv reads the variables named by ${NAME}; nil means
// os.Getenv. New makes no network calls.
func New(name string, cfg Config, getenv func(string) string) (*Client, error) {
	c, err := newClient(name, cfg, getenv)
	if err != nil {
		return nil, fmt.Errorf("http provider %q: %w", name, err)
	}
	return c, nil
}

func newClient(name string, cfg Config, getenv func(string) string) (*Client, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	b := &builder{c: &Client{name: name, hc: &httpc.Client{}}, getenv: getenv}
	b.url(cfg.URL)
	b.method(cfg.Method)
	override := b.headers(cfg.Headers)
	b.c.hc.Secrets = httpc.Secrets(cfg.Secrets, b.secrets...)
	b.transport(cfg.HTTPClient, override)
	b.body(cfg.Body)
	b.paths(cfg.Response)
	b.status(cfg.Status)
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	return b.c, nil
}

// builder fills a Client from its Config one setting at a time, keeping
// every error (the user fixes them all in one pass) and every secret the
// settings hold (so that no error or log shows one).
type builder struct {
	c       *Client
	getenv  func(string) string
	errs    []error
	secrets []string
}

func (b *builder) fail(err error) { b.errs = append(b.errs, err) }

// url compiles the URL template and checks that it is an absolute http(s)
// URL; the variables it uses and any password in it are secrets.
func (b *builder) url(raw string) {
	if raw == "" {
		b.fail(errors.New("url is required"))
		return
	}
	ut, used, err := compileURL(raw, b.getenv)
	if err != nil {
		b.fail(fmt.Errorf("url: %w", err))
		return
	}
	b.c.url = ut
	b.secrets = append(b.secrets, used...)
	u, err := url.Parse(ut.render(&vars{}))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		b.fail(fmt.Errorf("url %q: want an absolute http:// or https:// URL", httpc.Redact(raw)))
	} else if p, ok := u.User.Password(); ok {
		b.secrets = append(b.secrets, p)
	}
}

// method sets the HTTP method, POST when none is given.
func (b *builder) method(raw string) {
	b.c.method = strings.ToUpper(strings.TrimSpace(raw))
	if b.c.method == "" {
		b.c.method = http.MethodPost
	}
	if !httpc.IsToken(b.c.method) {
		b.fail(fmt.Errorf("method %q: want an HTTP method such as POST or GET", raw))
	}
}

// headers expands the configured headers into the client's; it returns
// the ones httpc sets itself (Content-Type, Accept, Host), which replace
// its values through the transport instead.
func (b *builder) headers(headers map[string]string) http.Header {
	header := http.Header{}
	override := http.Header{}
	for _, k := range setting.Keys(headers) {
		if !httpc.IsToken(k) {
			b.fail(fmt.Errorf("header %q: invalid header name", k))
			continue
		}
		v, used, err := setting.ExpandEnv(headers[k], b.getenv)
		if err != nil {
			b.fail(fmt.Errorf("header %q: %w", k, err))
			continue
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			b.fail(fmt.Errorf("header %q: value contains a line break or NUL", k))
			continue
		}
		b.secrets = append(b.secrets, used...)
		if httpc.SensitiveHeader(k) {
			b.secrets = append(b.secrets, v, strings.TrimSpace(strings.TrimPrefix(v, "Bearer ")))
		}
		switch http.CanonicalHeaderKey(k) {
		case "Content-Type", "Accept", "Host":
			// httpc sets these itself; they replace its values instead.
			override.Set(k, v)
		default:
			header.Set(k, v)
		}
	}
	b.c.hc.Header = header
	return override
}

// transport sets the HTTP client, wrapped so that the override headers
// replace httpc's own on requests to the configured host.
func (b *builder) transport(base *http.Client, override http.Header) {
	b.c.hc.HTTP = base
	if len(override) == 0 || b.c.url == nil {
		return
	}
	if base == nil {
		base = &http.Client{}
	}
	hc := *base
	rt := hc.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	u, _ := url.Parse(b.c.url.render(&vars{}))
	hc.Transport = &overrideTransport{base: rt, host: u.Host, header: override}
	b.c.hc.HTTP = &hc
}

// body compiles the body template (DefaultBody when none is given); a GET
// or HEAD request sends none.
func (b *builder) body(body any) {
	if b.c.method == http.MethodGet || b.c.method == http.MethodHead {
		if body != nil {
			b.fail(fmt.Errorf("body: a %s request sends no body; put placeholders such as {{prompt}} in the url instead", b.c.method))
		}
		return
	}
	if body == nil {
		body = DefaultBody()
	}
	t, err := compileTemplate(body)
	if err != nil {
		b.fail(err)
	}
	b.c.body = t
}

// paths parses the response paths: text is required, the others are
// read only when given.
func (b *builder) paths(r Paths) {
	p := &b.c.paths
	for _, f := range []struct {
		key string
		src string
		dst *respPath
		set *bool
	}{
		{"text", r.Text, &p.text, nil},
		{"prompt_tokens", r.PromptTokens, &p.promptTokens, &p.hasPromptTokens},
		{"completion_tokens", r.CompletionTokens, &p.completionTokens, &p.hasCompletion},
		{"finish_reason", r.FinishReason, &p.finishReason, &p.hasFinish},
		{"model", r.Model, &p.model, &p.hasModel},
		{"tool_calls", r.ToolCalls, &p.toolCalls, &p.hasToolCall},
	} {
		if f.set != nil && f.src == "" {
			continue
		}
		rp, err := parsePath(f.src)
		if err != nil {
			b.fail(fmt.Errorf("response.%s: %w", f.key, err))
			continue
		}
		*f.dst = rp
		if f.set != nil {
			*f.set = true
		}
	}
}

// status sets the accepted status codes, 200 alone when none are given.
func (b *builder) status(codes []int) {
	b.c.status = []int{http.StatusOK}
	if len(codes) == 0 {
		return
	}
	b.c.status = slices.Clone(codes)
	for _, s := range codes {
		if s < 100 || s > 599 {
			b.fail(fmt.Errorf("status %d: want an HTTP status code from 100 to 599", s))
		}
	}
}

// Name returns the name the client was opened with.
func (c *Client) Name() string { return c.name }

// Generate sends one request built from req and reads the answer from the
// response. Failures are *provider.Error with secrets redacted, or the
// context's error.
func (c *Client) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	if req == nil || req.Prompt == nil {
		return nil, &provider.Error{Message: "http: request has no prompt"}
	}
	v := varsOf(req)
	var body any
	if c.body != nil {
		buf := make([]byte, 0, 128+len(v.prompt)+len(v.system))
		b, err := c.body.render(buf, &v, req.Config.ExtraParams)
		if err != nil {
			return nil, &provider.Error{Message: c.hc.Redact(err.Error())}
		}
		body = b
	}
	resp, err := apicall.Do(ctx, c.hc, c.method, c.url.render(&v), body, c.status...)
	if err != nil {
		return nil, err
	}
	return c.decode(resp.Body)
}

// decode reads the answer and what the response reports about it.
func (c *Client) decode(body []byte) (*promptcanary.Response, error) {
	p := &c.paths
	optional := p.hasPromptTokens || p.hasCompletion || p.hasFinish || p.hasModel || p.hasToolCall
	if !json.Valid(body) {
		if p.text.isRoot() && !optional {
			return &promptcanary.Response{Content: trimNewline(string(body))}, nil
		}
		var raw json.RawMessage
		if err := apicall.DecodeJSON(body, &raw); err != nil {
			return nil, err
		}
	}
	final := func(err error) error { return &provider.Error{Message: c.hc.Redact(err.Error())} }

	resp := &promptcanary.Response{RawResponse: json.RawMessage(body)}
	raw, err := p.text.resolve(body)
	if err != nil {
		return nil, final(err)
	}
	if resp.Content, err = textValue(raw); err != nil {
		return nil, final(fmt.Errorf("response path %q: %w", p.text.src, err))
	}

	if err := c.decodeOptional(body, resp, final); err != nil {
		return nil, err
	}
	return resp, nil
}

// decodeOptional reads into resp the fields whose paths were given: token
// counts, finish reason, model and tool calls. An absent field leaves its
// value zero; one of the wrong type is an error, wrapped by final. The
// first error in this order is returned.
func (c *Client) decodeOptional(body []byte, resp *promptcanary.Response, final func(error) error) error {
	p := &c.paths
	err := cmp.Or(
		optionalField(body, p.hasPromptTokens, p.promptTokens, &resp.PromptTokens, intValue, final),
		optionalField(body, p.hasCompletion, p.completionTokens, &resp.CompletionTokens, intValue, final),
		optionalField(body, p.hasFinish, p.finishReason, &resp.FinishReason, stringValue, final),
		optionalField(body, p.hasModel, p.model, &resp.ServedModel, stringValue, final),
		optionalField(body, p.hasToolCall, p.toolCalls, &resp.ToolCalls, toolCallsValue, final),
	)
	if err != nil {
		return err
	}
	resp.TotalTokens = resp.PromptTokens + resp.CompletionTokens
	if p.hasToolCall {
		toolcall.Bound(resp, len(resp.ToolCalls))
	}
	return nil
}

// optionalField reads the field at rp into *dst with value when the path
// was given (set); an absent field is read as JSON nothing (nil).
func optionalField[T any](body []byte, set bool, rp respPath, dst *T, value func(json.RawMessage) (T, error), final func(error) error) error {
	if !set {
		return nil
	}
	raw, err := rp.resolve(body)
	if err != nil && !errLeafMissing(err) {
		return final(err)
	}
	if err != nil {
		raw = nil
	}
	if *dst, err = value(raw); err != nil {
		return final(fmt.Errorf("response path %q: %w", rp.src, err))
	}
	return nil
}

// trimNewline removes one trailing "\n" or "\r\n".
func trimNewline(s string) string {
	s, ok := strings.CutSuffix(s, "\n")
	if ok {
		s = strings.TrimSuffix(s, "\r")
	}
	return s
}

// overrideTransport replaces headers that httpc sets itself (Content-Type,
// Accept) and the Host, on requests to the configured host only, so a
// redirect elsewhere does not carry them.
type overrideTransport struct {
	base   http.RoundTripper
	host   string
	header http.Header
}

func (t *overrideTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != t.host {
		return t.base.RoundTrip(r)
	}
	r2 := r.Clone(r.Context())
	for k, vs := range t.header {
		if k == "Host" {
			r2.Host = vs[0]
			continue
		}
		r2.Header[k] = vs
	}
	return t.base.RoundTrip(r2)
}
