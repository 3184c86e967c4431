// Package provider defines how PromptCanary talks to a model: the Provider
// interface, the registry of provider names used in "name/model" strings,
// and the error type the run engine uses to decide on retries.
//
// Clients live in subpackages (provider/sim, provider/replay, …) and
// register themselves from init.
package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/internal/suggest"
)

// Request is one call: a prompt and the sampling parameters.
type Request struct {
	Prompt *promptcanary.Prompt
	// Config carries temperature, max_tokens, seed and extra parameters.
	// Config.ModelID is the full "name/model" string.
	Config promptcanary.ProviderConfig
	// Sample is the index of this call among the samples of the prompt.
	Sample int
}

// System returns the system prompt to send, if any.
func (r *Request) System() string { return r.Prompt.SystemPrompt }

// CallSeed is the seed an API client sends for this call: the configured
// seed plus the sample's index, and false when no seed is configured.
// Sample 0 sends the configured seed itself (a one-sample run sends what
// the Python original sends); the other samples of a prompt send seeds of
// their own, so that an API that honours seeds (OpenAI's "best effort",
// Ollama, Gemini) draws each sample afresh instead of repeating the first
// answer, which would hide the model's spread from every multi-sample
// test. The sum wraps around at the ends of int64.
func (r *Request) CallSeed() (int64, bool) {
	if r.Config.Seed == nil {
		return 0, false
	}
	return *r.Config.Seed + int64(r.Sample), true
}

// Provider answers prompts. Implementations must be safe for concurrent use.
// Generate fills Content and whatever the API reports (finish reason, token
// counts, tool calls, served model); the run engine fills prompt id, sample,
// timestamp and, when the provider leaves it zero, latency.
type Provider interface {
	Generate(ctx context.Context, req *Request) (*promptcanary.Response, error)
}

// Options configure a provider when it is opened.
type Options struct {
	// BaseDir resolves relative paths (the directory of canary.yaml).
	BaseDir string
	// Settings are the provider's settings from canary.yaml, if any.
	Settings map[string]any
	// HTTPClient is used by HTTP clients; nil means a default client. Its
	// Transport is shared, but its redirect policy is not used: every
	// client follows redirects within the API's origin only, and refuses
	// one to another origin, which would receive the credentials.
	HTTPClient *http.Client
	// Getenv reads environment variables; nil means os.Getenv.
	Getenv func(string) string
	// Secrets collects every secret the provider reads (API keys, header
	// values expanded from ${ENV}, passwords in URLs), so that the run
	// engine and the CLI scrub them from everything they print or store.
	// Nil collects nothing; the provider still keeps its own secrets out
	// of its errors.
	Secrets *redact.Set
	// MaxAnswerBytes is the run's bound on an answer, for a provider that
	// holds answers before it is asked for them (replay cuts each as it
	// reads the file); 0 keeps everything. Answers read when called are
	// cut through the call's Bound instead.
	MaxAnswerBytes int
}

// Env reads an environment variable through o.Getenv.
func (o Options) Env(key string) string {
	if o.Getenv != nil {
		return o.Getenv(key)
	}
	return os.Getenv(key)
}

// Factory opens a provider for one model (the part after the slash).
type Factory func(model string, opts Options) (Provider, error)

// Checker checks a provider's configuration for one model exactly as its
// Factory reads it, with the same messages, but needs no API key in the
// environment and makes no network call: what validate and a dry run use.
type Checker func(model string, opts Options) error

var (
	mu           sync.RWMutex
	factories    = map[string]Factory{}
	checkers     = map[string]Checker{}
	capabilities = map[string]Capabilities{}
)

// Capabilities are what a registered provider declares about itself, so
// that callers decide by capability, never by a list of provider names.
type Capabilities struct {
	// VendorModels: the model part of "name/model" names a model of a
	// model vendor (gpt-5, claude-sonnet-4-5, gemini-2.5-pro, a Bedrock
	// model id), whose request rules (provider/modelrules) apply. Clients
	// whose requests the user writes (http/, exec/) or that call no model
	// (sim/, replay/) leave it unset.
	VendorModels bool
	// BaseURL: the provider calls a remote API whose address a base_url
	// setting (and the CLI's --base-url) overrides. Clients that call no
	// remote API (sim/, replay/) or whose address the user writes
	// (http/, exec/) leave it unset.
	BaseURL bool
	// Free: the provider runs locally or offline and costs nothing, so
	// LookupPrice prices its calls at zero (sim/, replay/, exec/,
	// ollama/, a self-hosted vLLM).
	Free bool
	// App: the provider calls the user's own application in front of a
	// model (http/), so a change its control arm (the raw model) did not
	// share is the app's (docs/attribution.md).
	App bool
	// Stream, when set, reads the file the model part of "name/model"
	// names as recorded answers that a run can judge line by line
	// without holding them (replay/).
	Stream Streamer
}

// Declare records, beside Register, the capabilities of the provider
// registered under name. It panics when name is not registered or was
// declared before. A provider that declares nothing has none.
func Declare(name string, c Capabilities) {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := factories[name]; !ok {
		panic("provider: Declare for unregistered provider " + name)
	}
	if _, dup := capabilities[name]; dup {
		panic("provider: Declare called twice for " + name)
	}
	capabilities[name] = c
}

// CapabilitiesOf returns what the provider named in spec ("name/model" or
// a bare name) declared; the zero value when it declared nothing or is
// not registered.
func CapabilitiesOf(spec string) Capabilities {
	name, _, _ := strings.Cut(spec, "/")
	mu.RLock()
	defer mu.RUnlock()
	return capabilities[name]
}

// Registered reports whether a provider registered the name in spec
// ("name/model" or a bare name).
func Registered(spec string) bool {
	name, _, _ := strings.Cut(spec, "/")
	mu.RLock()
	defer mu.RUnlock()
	_, ok := factories[name]
	return ok
}

// Register makes a provider available under name. It panics on an empty
// name, a nil factory or a duplicate name.
func Register(name string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if name == "" || strings.Contains(name, "/") {
		panic(fmt.Sprintf("provider: Register with invalid name %q", name))
	}
	if f == nil {
		panic("provider: Register " + name + " with nil factory")
	}
	if _, dup := factories[name]; dup {
		panic("provider: Register called twice for " + name)
	}
	factories[name] = f
}

// RegisterChecker declares, beside Register, how the provider registered
// under name checks its configuration without opening (see Checker). It
// panics when name is not registered, on a nil checker or a duplicate.
// A provider without a checker is checked by name only.
func RegisterChecker(name string, c Checker) {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := factories[name]; !ok {
		panic("provider: RegisterChecker for unregistered provider " + name)
	}
	if c == nil {
		panic("provider: RegisterChecker " + name + " with nil checker")
	}
	if _, dup := checkers[name]; dup {
		panic("provider: RegisterChecker called twice for " + name)
	}
	checkers[name] = c
}

// Names returns the registered provider names, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return slices.Sorted(maps.Keys(factories))
}

// Split parses "name/model" into its parts. The model may itself contain
// slashes ("replay/runs/prod.jsonl"). A spec without a slash gets a
// did-you-mean hint: "openai:gpt-4o" and a bare "gpt-4o" both suggest
// openai/gpt-4o (see Suggest).
func Split(spec string) (name, model string, err error) {
	name, model, ok := strings.Cut(spec, "/")
	if !ok || name == "" || model == "" {
		if s := Suggest(spec); s != "" {
			return "", "", fmt.Errorf("invalid provider %q: want NAME/MODEL (did you mean %s?)", spec, s)
		}
		if !ok && spec != "" && !strings.ContainsAny(spec, ": ") {
			if names := Names(); len(names) > 0 {
				return "", "", fmt.Errorf("invalid provider %q: want NAME/MODEL, where NAME is one of %s", spec, strings.Join(names, ", "))
			}
		}
		return "", "", fmt.Errorf("invalid provider %q: want NAME/MODEL, for example sim/stable or openai/gpt-4o", spec)
	}
	return name, model, nil
}

// Suggest returns the provider spec a malformed one most likely meant, or
// "": "openai:gpt-4o" or "openai gpt-4o" → "openai/gpt-4o" (a registered
// name, or one a letter or two away, before a colon or a space), and a
// bare model name of a known family → its provider's spec ("gpt-4o" →
// "openai/gpt-4o", "claude-sonnet-4-5" → "anthropic/claude-sonnet-4-5").
func Suggest(spec string) string {
	spec = strings.TrimSpace(spec)
	if spec == "" || strings.Contains(spec, "/") {
		return ""
	}
	if i := strings.IndexAny(spec, ": "); i > 0 {
		name, model := spec[:i], strings.TrimLeft(spec[i+1:], ": ")
		if model == "" {
			return ""
		}
		names := Names()
		if !slices.Contains(names, name) {
			name = suggest.Closest(name, names)
		}
		if name == "" {
			return ""
		}
		return name + "/" + model
	}
	if p := modelProvider(spec); p != "" {
		return p + "/" + spec
	}
	return ""
}

// Open opens the provider named by spec ("name/model").
func Open(spec string, opts Options) (Provider, error) {
	name, model, err := Split(spec)
	if err != nil {
		return nil, err
	}
	mu.RLock()
	f, ok := factories[name]
	mu.RUnlock()
	if !ok {
		return nil, unknown(name, spec)
	}
	p, err := f(model, opts)
	if err != nil {
		return nil, fmt.Errorf("open provider %s: %w", spec, err)
	}
	return p, nil
}

// Check checks spec and its configuration in opts the way Open would, with
// the same messages, but needs no API key and calls nothing: the name must
// be registered, and the provider's Checker, when it declared one, must
// accept the model and settings.
func Check(spec string, opts Options) error {
	name, model, err := Split(spec)
	if err != nil {
		return err
	}
	mu.RLock()
	_, ok := factories[name]
	c := checkers[name]
	mu.RUnlock()
	if !ok {
		return unknown(name, spec)
	}
	if c == nil {
		return nil
	}
	if err := c(model, opts); err != nil {
		return fmt.Errorf("open provider %s: %w", spec, err)
	}
	return nil
}

// unknown is the error for a name no provider registered.
func unknown(name, spec string) error {
	names := Names()
	if len(names) == 0 {
		return fmt.Errorf("unknown provider %q in %q: no provider is registered (forgotten import of provider/builtin?)", name, spec)
	}
	return fmt.Errorf("unknown provider %q in %q%s; known providers: %s", name, spec,
		suggest.Hint(name, names), strings.Join(names, ", "))
}

// Error is a failed call, classified for the retry policy.
type Error struct {
	// StatusCode is the HTTP status, 0 when there was none.
	StatusCode int
	// Retryable is set for rate limits, server errors, resets and timeouts.
	Retryable bool
	// RetryAfter is the delay the server asked for, 0 when it named none.
	RetryAfter time.Duration
	// RateLimited is set when the provider turned the call away for load:
	// HTTP 429, Anthropic's 529, an "overloaded" answer. The run engine
	// retries these for as long as the run's retry budget allows rather
	// than a fixed number of times, and lowers the concurrency while they
	// repeat (see IsRateLimited).
	RateLimited bool
	// Message is the provider's message, with secrets redacted.
	Message string
	Err     error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, "HTTP %d", e.StatusCode)
	}
	if e.Message != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Message)
	}
	if e.Err != nil {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	if b.Len() == 0 {
		return "provider error"
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// IsRateLimited reports whether err is a retryable answer that turned the
// call away for load: an Error marked RateLimited, or one with status 429
// (Too Many Requests) or 529 (Anthropic's "overloaded", see
// https://docs.anthropic.com/en/api/errors), or whose message says
// overloaded (Anthropic's overloaded_error, Gemini's and OpenAI's "model is
// overloaded" 503s) or rate_limit_error (an Anthropic error passed through
// with a 2xx status by a proxy).
func IsRateLimited(err error) bool {
	var pe *Error
	if !errors.As(err, &pe) || !pe.Retryable {
		return false
	}
	if pe.RateLimited || pe.StatusCode == 429 || pe.StatusCode == 529 {
		return true
	}
	m := strings.ToLower(pe.Message)
	return strings.Contains(m, "overloaded") || strings.Contains(m, "rate_limit_error")
}

// IsRetryable reports whether err is worth another attempt.
func IsRetryable(err error) bool {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Retryable
	}
	return false
}
