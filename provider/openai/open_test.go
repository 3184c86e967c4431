package openai

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
)

// shortcut is one row of the table every name is tested against.
type shortcut struct {
	name       string
	keyEnv     string
	defaultURL string            // URL called with no base_url setting
	defaultEnv map[string]string // environment for that call, besides the key
	path       string            // path called with base_url = server/base
	wantMiss   string            // error when the key is unset
}

var shortcuts = []shortcut{
	{name: "openai", keyEnv: "OPENAI_API_KEY", defaultURL: "https://api.openai.com/v1/chat/completions",
		path: "/base/chat/completions", wantMiss: "OPENAI_API_KEY is not set"},
	{name: "azure", keyEnv: "AZURE_OPENAI_API_KEY",
		defaultURL: "https://res.openai.azure.com/openai/deployments/m/chat/completions?api-version=" + DefaultAzureAPIVersion,
		defaultEnv: map[string]string{"AZURE_OPENAI_ENDPOINT": "https://res.openai.azure.com"},
		path:       "/base/openai/deployments/m/chat/completions", wantMiss: "AZURE_OPENAI_API_KEY is not set"},
	{name: "xai", keyEnv: "XAI_API_KEY", defaultURL: "https://api.x.ai/v1/chat/completions",
		path: "/base/chat/completions", wantMiss: "XAI_API_KEY is not set"},
	{name: "groq", keyEnv: "GROQ_API_KEY", defaultURL: "https://api.groq.com/openai/v1/chat/completions",
		path: "/base/chat/completions", wantMiss: "GROQ_API_KEY is not set"},
	{name: "openrouter", keyEnv: "OPENROUTER_API_KEY", defaultURL: "https://openrouter.ai/api/v1/chat/completions",
		path: "/base/chat/completions", wantMiss: "OPENROUTER_API_KEY is not set"},
	{name: "together", keyEnv: "TOGETHER_API_KEY", defaultURL: "https://api.together.ai/v1/chat/completions",
		path: "/base/chat/completions", wantMiss: "TOGETHER_API_KEY is not set"},
	{name: "mistral", keyEnv: "MISTRAL_API_KEY", defaultURL: "https://api.mistral.ai/v1/chat/completions",
		path: "/base/chat/completions", wantMiss: "MISTRAL_API_KEY is not set"},
	{name: "hosted_vllm", keyEnv: "HOSTED_VLLM_API_KEY", defaultURL: "http://gpu-box:8000/v1/chat/completions",
		defaultEnv: map[string]string{"HOSTED_VLLM_API_BASE": "http://gpu-box:8000/v1"},
		path:       "/base/chat/completions",
		wantMiss:   "hosted_vllm needs the server's base URL: neither base_url nor HOSTED_VLLM_API_BASE is set"},
}

func TestShortcutsCoverEveryName(t *testing.T) {
	var names []string
	for _, s := range shortcuts {
		names = append(names, s.name)
	}
	if got := Names(); !slices.Equal(got, names) {
		t.Errorf("got names %v, want %v", got, names)
	}
	registered := provider.Names()
	for _, n := range names {
		if !slices.Contains(registered, n) {
			t.Errorf("provider %q is not registered; registered: %v", n, registered)
		}
	}
}

func TestShortcutURLs(t *testing.T) {
	for _, sc := range shortcuts {
		t.Run(sc.name+"/base_url", func(t *testing.T) {
			s := newServer(t, 200, nil, fixture(t, "chat.json"))
			p := open(t, sc.name+"/m", provider.Options{
				Getenv:   env(map[string]string{sc.keyEnv: testKey}),
				Settings: map[string]any{"base_url": s.URL + "/base"},
			})
			if _, err := p.Generate(context.Background(), &provider.Request{Prompt: &promptcanary.Prompt{Text: "hi"}}); err != nil {
				t.Fatal(err)
			}
			if got := s.Last(t).URL.Path; got != sc.path {
				t.Errorf("got path %s, want %s", got, sc.path)
			}
		})
		t.Run(sc.name+"/default", func(t *testing.T) {
			s := newServer(t, 200, nil, fixture(t, "chat.json"))
			rt, hc := redirectTo(t, s)
			e := map[string]string{sc.keyEnv: testKey}
			for k, v := range sc.defaultEnv {
				e[k] = v
			}
			p := open(t, sc.name+"/m", provider.Options{Getenv: env(e), HTTPClient: hc})
			if _, err := p.Generate(context.Background(), &provider.Request{Prompt: &promptcanary.Prompt{Text: "hi"}}); err != nil {
				t.Fatal(err)
			}
			if got := rt.last(); got != sc.defaultURL {
				t.Errorf("got URL %s, want %s", got, sc.defaultURL)
			}
		})
	}
}

func TestShortcutMissingKey(t *testing.T) {
	for _, sc := range shortcuts {
		t.Run(sc.name, func(t *testing.T) {
			e := map[string]string{}
			for k, v := range sc.defaultEnv {
				e[k] = v
			}
			if sc.name == "hosted_vllm" {
				// Its key is optional; its base URL is what is required.
				delete(e, "HOSTED_VLLM_API_BASE")
			}
			_, err := provider.Open(sc.name+"/m", provider.Options{Getenv: env(e)})
			if err == nil {
				t.Fatalf("got no error, want %q", sc.wantMiss)
			}
			want := "open provider " + sc.name + "/m: " + sc.wantMiss
			if err.Error() != want {
				t.Errorf("got %q, want %q", err, want)
			}
			var h interface{ Hints() []string }
			if !errors.As(err, &h) || len(h.Hints()) == 0 {
				t.Errorf("got no hints, want at least one")
			}
		})
	}
}

func TestKeyOptional(t *testing.T) {
	tests := []struct {
		name     string
		spec     string
		env      map[string]string
		settings map[string]any
		wantErr  string
	}{
		{name: "openai with base_url needs no key", spec: "openai/llama3", settings: map[string]any{"base_url": "http://localhost:8080/v1"}},
		{name: "openai with OPENAI_BASE_URL needs no key", spec: "openai/llama3", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:1234/v1"}},
		{name: "hosted_vllm needs no key", spec: "hosted_vllm/Qwen/Qwen3-8B", env: map[string]string{"HOSTED_VLLM_API_BASE": "http://localhost:8000/v1"}},
		{name: "groq with base_url still needs its key", spec: "groq/llama", settings: map[string]any{"base_url": "http://localhost:8080/v1"},
			wantErr: "open provider groq/llama: GROQ_API_KEY is not set"},
		{name: "api_key_env names the missing variable", spec: "xai/grok-4", settings: map[string]any{"api_key_env": "TEAM_XAI_KEY"},
			wantErr: "open provider xai/grok-4: TEAM_XAI_KEY is not set"},
		{name: "azure needs an endpoint", spec: "azure/dep", env: map[string]string{"AZURE_OPENAI_API_KEY": testKey},
			wantErr: "open provider azure/dep: azure needs the resource endpoint: neither base_url nor AZURE_OPENAI_ENDPOINT is set"},
		{name: "azure reports endpoint and key together", spec: "azure/dep",
			wantErr: "open provider azure/dep: azure needs the resource endpoint: neither base_url nor AZURE_OPENAI_ENDPOINT is set\nAZURE_OPENAI_API_KEY is not set"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := provider.Open(tc.spec, provider.Options{Getenv: env(tc.env), Settings: tc.settings})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr {
				t.Errorf("got error %q, want %q", got, tc.wantErr)
			}
		})
	}
}

func TestSettingsErrors(t *testing.T) {
	tests := []struct {
		name     string
		spec     string
		settings map[string]any
		want     []string
	}{
		{name: "unknown key with a suggestion", spec: "openai/gpt-4o", settings: map[string]any{"base_ur": "http://x"},
			want: []string{`openai: unknown setting "base_ur" (did you mean base_url?); known settings: base_url, api_key_env, headers, max_tokens_field`}},
		{name: "api_version is azure only", spec: "groq/llama", settings: map[string]any{"api_version": "2024-10-21"},
			want: []string{"groq: setting api_version is only for azure"}},
		{name: "wrong types", spec: "openai/gpt-4o", settings: map[string]any{"base_url": 8080, "api_key_env": true},
			want: []string{"openai: setting api_key_env: want a string, got bool", "openai: setting base_url: want a string, got int"}},
		{name: "not an http URL", spec: "openai/gpt-4o", settings: map[string]any{"base_url": "localhost:8000"},
			want: []string{`openai: base URL "localhost:8000": want an http or https URL`}},
		{name: "bad max_tokens_field", spec: "openai/gpt-4o", settings: map[string]any{"base_url": "http://x", "max_tokens_field": "max_output_tokens"},
			want: []string{`openai: setting max_tokens_field: got "max_output_tokens", want max_tokens or max_completion_tokens`}},
		{name: "headers not a map", spec: "openai/gpt-4o", settings: map[string]any{"base_url": "http://x", "headers": []any{"a"}},
			want: []string{"openai: setting headers: want a map of header names to values, got []interface {}"}},
		{name: "header value not a string", spec: "openai/gpt-4o", settings: map[string]any{"base_url": "http://x", "headers": map[string]any{"X-N": 1}},
			want: []string{"openai: setting headers: header X-N: want a string, got int"}},
		{name: "header value with a line break", spec: "openai/gpt-4o", settings: map[string]any{"base_url": "http://x", "headers": map[string]string{"X-A": "a\r\nb"}},
			want: []string{"openai: setting headers: header X-A: value contains a line break"}},
		{name: "missing model", spec: "openai/ ", settings: map[string]any{"base_url": "http://x"},
			want: []string{"openai: missing model: want openai/MODEL"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := provider.Open(tc.spec, provider.Options{Getenv: env(map[string]string{"OPENAI_API_KEY": testKey, "GROQ_API_KEY": testKey}), Settings: tc.settings})
			if err == nil {
				t.Fatalf("got no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestBaseURLPasswordNotPrinted(t *testing.T) {
	_, err := provider.Open("openai/m", provider.Options{Settings: map[string]any{"base_url": "ftp://user:hunter2secret@host/v1"}})
	if err == nil || strings.Contains(err.Error(), "hunter2secret") {
		t.Errorf("got %v, want an error without the password", err)
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantURL string
		wantErr string
	}{
		{name: "openai defaults", cfg: Config{Name: "openai", Model: "gpt-4o"}, wantURL: "https://api.openai.com/v1/chat/completions"},
		{name: "base already ends in chat/completions", cfg: Config{Name: "lmstudio", Model: "m", BaseURL: "http://localhost:1234/v1/chat/completions"},
			wantURL: "http://localhost:1234/v1/chat/completions"},
		{name: "azure flag with endpoint ending in /openai", cfg: Config{Name: "corp", Model: "my dep", BaseURL: "https://r.openai.azure.com/openai/", Azure: true, APIVersion: "2024-06-01"},
			wantURL: "https://r.openai.azure.com/openai/deployments/my%20dep/chat/completions?api-version=2024-06-01"},
		{name: "unknown name needs a base URL", cfg: Config{Name: "lmstudio", Model: "m"}, wantErr: "new lmstudio client: missing base URL"},
		{name: "missing model", cfg: Config{Name: "openai"}, wantErr: "new openai client: missing model"},
		{name: "bad max tokens field", cfg: Config{Name: "openai", Model: "m", MaxTokensField: "n"},
			wantErr: `new openai client: max tokens field "n": want max_tokens or max_completion_tokens`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.cfg)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("got %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.URL() != tc.wantURL {
				t.Errorf("got URL %s, want %s", c.URL(), tc.wantURL)
			}
		})
	}
}

func TestNewHeadersAndSecretHeaders(t *testing.T) {
	s := newServer(t, 500, nil, []byte(`{"error":{"message":"proxy rejected token corp-proxy-token-123"}}`))
	c, err := New(Config{
		Name: "litellm", Model: "gpt-4o", BaseURL: s.URL,
		Header: http.Header{"X-Proxy-Token": {"corp-proxy-token-123"}, "Http-Referer": {"https://example.com"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Generate(context.Background(), &provider.Request{Prompt: &promptcanary.Prompt{Text: "hi"}})
	if err == nil || strings.Contains(err.Error(), "corp-proxy-token-123") {
		t.Errorf("got %v, want an error without the proxy token", err)
	}
	got := s.Last(t).Header
	if got.Get("X-Proxy-Token") != "corp-proxy-token-123" || got.Get("Http-Referer") != "https://example.com" {
		t.Errorf("got headers %v, want the configured ones", got)
	}
	if got.Get("Authorization") != "" {
		t.Errorf("got Authorization %q, want none without a key", got.Get("Authorization"))
	}
}
