package vertex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/compute/metadata"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/hint"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
	"github.com/promptcanary/promptcanary/provider/vertex/vertextest"
)

// defaults are canary.yaml's defaults: temperature 0, max_tokens 1024.
var defaults = promptcanary.ProviderConfig{Temperature: 0, MaxTokens: 1024}

// offline keeps Google's library from looking beyond the test: no
// gcloud file in HOME, and a metadata server on a closed port.
func offline(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv(CredentialsEnv, "")
	t.Setenv("GCE_METADATA_HOST", strings.TrimPrefix(providertest.ClosedURL(t), "http://"))
	t.Setenv("GOOGLE_CLOUD_PROJECT", "")
}

type fixture struct {
	srv     *vertextest.Server
	env     map[string]string
	secrets *redact.Set
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	offline(t)
	srv, err := vertextest.NewServer("canary-project")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	path, err := srv.WriteCredentials(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{srv: srv, env: map[string]string{CredentialsEnv: path}, secrets: redact.New()}
}

func (f *fixture) open(t *testing.T, model string, settings map[string]any) (provider.Provider, error) {
	t.Helper()
	s := map[string]any{"base_url": f.srv.URL}
	for k, v := range settings {
		s[k] = v
	}
	return provider.Open("vertex/"+model, provider.Options{Settings: s, Getenv: func(k string) string { return f.env[k] }, Secrets: f.secrets})
}

// capital opens model with settings, asks for the capital of France and
// checks the stand-in's answer.
func (f *fixture) capital(t *testing.T, model string, settings map[string]any) {
	t.Helper()
	p, err := f.open(t, model, settings)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "What is the capital of France?"}, defaults))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "Paris." {
		t.Errorf("got %q, want Paris.", resp.Content)
	}
}

var weatherTool = promptcanary.Tool{Name: "get_weather", Parameters: map[string]any{
	"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}}, "required": []any{"location"},
}}

var conversation = promptcanary.Prompt{
	Text:  "Weather in Paris?",
	Tools: []promptcanary.Tool{weatherTool},
	Messages: []promptcanary.Message{
		{Role: promptcanary.RoleAssistant, ToolCalls: []promptcanary.ToolCall{{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"location":"Paris"}`)}}},
		{Role: promptcanary.RoleTool, ToolCallID: "c1", Name: "get_weather", Content: "18C"},
	},
}

func TestEveryRequestAccepted(t *testing.T) {
	prompts := map[string]promptcanary.Prompt{
		"plain":        {Text: "What is the capital of France?", SystemPrompt: "Be brief."},
		"tools":        {Text: "Weather?", Tools: []promptcanary.Tool{weatherTool, {Name: "get_time"}}},
		"conversation": conversation,
		"json":         {Text: "A city.", ResponseFormat: &promptcanary.ResponseFormat{Type: promptcanary.FormatJSONSchema, Schema: weatherTool.Parameters}},
		"refusal":      {Text: "Please refuse."},
		"thinking":     {Text: "Think hard about it."},
	}
	models := []string{"gemini-2.5-flash", "gemini-2.5-pro", "claude-sonnet-4-5@20250929", "claude-opus-4-1@20250805", "claude-haiku-4-5@20251001"}
	f := newFixture(t)
	providertest.CheckAccepted(t, models, prompts, defaults, func(t *testing.T, model string) provider.Provider {
		p, err := f.open(t, model, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	})
	if n := len(f.srv.Tokens()); n != len(models) {
		t.Errorf("minted %d tokens, want %d: one per provider opened, cached for its calls", n, len(models))
	}
}

func TestWireForms(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		model   string
		want    string
		content string
	}{
		{"gemini-2.5-flash", `"contents":[{"role":"user","parts":[{"text":"Weather in Paris?"}]},{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"location":"Paris"}}}]},{"role":"user","parts":[{"functionResponse":{"name":"get_weather","response":{"output":"18C"}}}]}]`, `The tools returned: {"output":"18C"}`},
		{"claude-sonnet-4-5@20250929", `"anthropic_version":"vertex-2023-10-16"`, "The tool returned: 18C"},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			p, err := f.open(t, tc.model, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := p.Generate(context.Background(), providertest.NewRequest(conversation, defaults))
			if err != nil {
				t.Fatal(err)
			}
			bodies := f.srv.Bodies()
			last := string(bodies[len(bodies)-1])
			if !strings.Contains(last, tc.want) || strings.Contains(last, `"model":`) {
				t.Errorf("got body %s, want it to hold %s and no model", last, tc.want)
			}
			if resp.Content != tc.content {
				t.Errorf("got content %q, want %q", resp.Content, tc.content)
			}
		})
	}
}

func TestSecretsRegistered(t *testing.T) {
	f := newFixture(t)
	p, err := f.open(t, "gemini-2.5-flash", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, defaults)); err != nil {
		t.Fatal(err)
	}
	tokens := f.srv.Tokens()
	if len(tokens) != 1 {
		t.Fatalf("got %d tokens minted, want 1", len(tokens))
	}
	key := f.srv.PrivateKeyPEM()
	line := strings.Split(key, "\n")[3]
	got := f.secrets.String("token " + tokens[0] + " key " + key + " line " + line)
	for _, secret := range []string{tokens[0], key, line} {
		if strings.Contains(got, secret) {
			t.Errorf("secret %.20q… not registered with the scrubber: %s", secret, got)
		}
	}
}

func TestProjectAndLocation(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name     string
		settings map[string]any
		env      map[string]string
		wantErr  string
	}{
		{"project from the service account", nil, nil, ""},
		{"project setting wins", map[string]any{"project": "other-project"}, nil, "PERMISSION_DENIED"},
		{"GOOGLE_CLOUD_PROJECT", nil, map[string]string{ProjectEnv: "env-project"}, "PERMISSION_DENIED"},
		{"location setting", map[string]any{"location": "us-east5"}, nil, ""},
		{"bad location", map[string]any{"location": "US East"}, nil, "setting location: want a region"},
		{"bad location variable", nil, map[string]string{LocationEnv: "a/b"}, "GOOGLE_CLOUD_LOCATION: want a region"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				f.env[k] = v
				defer delete(f.env, k)
			}
			p, err := f.open(t, "gemini-2.5-flash", tc.settings)
			if err == nil {
				_, err = p.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, defaults))
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("got %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestEndpoints(t *testing.T) {
	tests := []struct{ location, publisher, model, method, want string }{
		{"global", "google", "gemini-2.5-flash", "generateContent", "https://aiplatform.googleapis.com/v1/projects/p-1/locations/global/publishers/google/models/gemini-2.5-flash:generateContent"},
		{"us-east5", "anthropic", "claude-sonnet-4-5@20250929", "rawPredict", "https://us-east5-aiplatform.googleapis.com/v1/projects/p-1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict"},
	}
	for _, tc := range tests {
		w, err := settings{location: tc.location}.where(provider.Options{Getenv: func(string) string { return "" }}, "p-1")
		if err != nil {
			t.Fatal(err)
		}
		if got := w.url(tc.publisher, tc.model, tc.method); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

func TestCredentialErrors(t *testing.T) {
	f := newFixture(t)
	// A key file for the same account but another key: the token
	// endpoint refuses its signature.
	other, err := vertextest.NewServer("canary-project")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var sa map[string]string
	json.Unmarshal(other.CredentialsJSON(), &sa)
	sa["token_uri"], sa["client_email"] = f.srv.TokenURI(), f.srv.Email
	data, _ := json.Marshal(sa)
	forged := filepath.Join(t.TempDir(), "forged.json")
	os.WriteFile(forged, data, 0o600)
	f.env[CredentialsEnv] = forged
	p, err := f.open(t, "gemini-2.5-flash", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, defaults))
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Retryable || !strings.Contains(pe.Message, "Invalid JWT Signature") {
		t.Errorf("got %v, want a final error naming the invalid signature", err)
	}
	if strings.Contains(err.Error(), "PRIVATE KEY") {
		t.Errorf("error leaks the key: %v", err)
	}

	f.env[CredentialsEnv] = filepath.Join(t.TempDir(), "missing.json")
	_, err = f.open(t, "gemini-2.5-flash", nil)
	if err == nil || !strings.Contains(err.Error(), "read Google credentials from GOOGLE_APPLICATION_CREDENTIALS") {
		t.Errorf("got %v, want an error naming GOOGLE_APPLICATION_CREDENTIALS", err)
	}
}

func TestCheckNeedsNoCredentials(t *testing.T) {
	offline(t)
	if err := provider.Check("vertex/claude-sonnet-4-5@20250929", provider.Options{Getenv: func(string) string { return "" }}); err != nil {
		t.Errorf("got %v, want nil", err)
	}
	err := provider.Check("vertex/gemini 2.5", provider.Options{Settings: map[string]any{"projekt": "x"}, Getenv: func(string) string { return "" }})
	for _, want := range []string{"invalid model name", `unknown setting "projekt" (did you mean project?)`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want it to contain %q", err, want)
		}
	}
}

func TestTransportFailures(t *testing.T) {
	f := newFixture(t)
	call := func(ctx context.Context, baseURL string) error {
		p, err := f.open(t, "gemini-2.5-flash", map[string]any{"base_url": baseURL})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Generate(ctx, providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, defaults))
		return err
	}
	key := strings.Split(f.srv.PrivateKeyPEM(), "\n")[2]
	t.Run("API down", func(t *testing.T) {
		providertest.CheckServerDown(t, func(url string) error { return call(context.Background(), url) }, "ya29.standin-", key)
	})
	t.Run("deadline", func(t *testing.T) {
		providertest.CheckDeadline(t, 200*time.Millisecond, call, "ya29.standin-", key)
	})
	t.Run("token endpoint down", func(t *testing.T) {
		var sa map[string]string
		json.Unmarshal(f.srv.CredentialsJSON(), &sa)
		sa["token_uri"] = providertest.ClosedURL(t) + "/token"
		data, _ := json.Marshal(sa)
		path := filepath.Join(t.TempDir(), "sa.json")
		os.WriteFile(path, data, 0o600)
		f.env[CredentialsEnv] = path
		defer func() { f.env[CredentialsEnv] = filepath.Join(filepath.Dir(path), "unused") }()
		err := call(context.Background(), f.srv.URL)
		if !provider.IsRetryable(err) {
			t.Errorf("got %v, want a retryable error", err)
		}
		providertest.NoLeak(t, err, key)
	})
}

// TestGcloudUserCredentials uses the file "gcloud auth application-default
// login" writes, found where the library looks for it, with the token
// endpoint of the stand-in.
func TestGcloudUserCredentials(t *testing.T) {
	f := newFixture(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := filepath.Join(home, ".config", "gcloud")
	os.MkdirAll(dir, 0o700)
	if err := os.WriteFile(filepath.Join(dir, "application_default_credentials.json"), f.srv.UserCredentialsJSON(), 0o600); err != nil {
		t.Fatal(err)
	}
	f.env = map[string]string{"HOME": home}
	orig := detect
	detect = func(o *credentials.DetectOptions) (*auth.Credentials, error) {
		o.TokenURL = f.srv.TokenURI() // the library's default is Google's
		return orig(o)
	}
	defer func() { detect = orig }()

	if _, err := f.open(t, "gemini-2.5-flash", nil); err == nil || !strings.Contains(err.Error(), "no Google Cloud project") {
		t.Errorf("got %v, want an error asking for the project (user credentials name none)", err)
	} else if h, ok := errors.AsType[*hint.Error](err); !ok || !strings.Contains(strings.Join(h.Hints(), " "), "GOOGLE_CLOUD_PROJECT") {
		t.Errorf("got %v, want a hint naming project: and GOOGLE_CLOUD_PROJECT", err)
	}
	f.capital(t, "claude-sonnet-4-5@20250929", map[string]any{"project": "canary-project"})
	got := f.secrets.String(vertextest.UserClientSecret + " " + vertextest.UserRefreshToken + " " + f.srv.Tokens()[0])
	if got != "[REDACTED] [REDACTED] [REDACTED]" {
		t.Errorf("secrets not all registered: %s", got)
	}
}

// TestMetadataServer uses the credentials of a Compute Engine instance:
// no file, the metadata server (GCE_METADATA_HOST) gives the project and
// the token.
func TestMetadataServer(t *testing.T) {
	f := newFixture(t)
	f.env = map[string]string{"HOME": t.TempDir()}
	t.Setenv("GCE_METADATA_HOST", strings.TrimPrefix(f.srv.URL, "http://"))
	f.capital(t, "gemini-2.5-pro", nil)
	if toks := f.srv.Tokens(); len(toks) != 1 || f.secrets.String(toks[0]) != "[REDACTED]" {
		t.Errorf("got tokens %d, want one, registered with the scrubber", len(toks))
	}
}

// TestKeyArmourNotScrubbed: the PEM armour of the service account's key
// is no secret, so an answer or error that says "private key" keeps it
// (it was scrubbed to "A[REDACTED] is…", failing keyword probes), while
// the key itself, with or without its armour, is still scrubbed.
func TestKeyArmourNotScrubbed(t *testing.T) {
	f := newFixture(t)
	if _, err := f.open(t, "gemini-2.5-flash", nil); err != nil {
		t.Fatal(err)
	}
	const answer = "A private key is the secret half of a key pair: -----BEGIN PRIVATE KEY-----"
	if got := f.secrets.String(answer); got != answer {
		t.Errorf("got %q, want %q unchanged", got, answer)
	}
	key := f.srv.PrivateKeyPEM()
	body := strings.Join(strings.Split(strings.TrimSpace(key), "\n")[1:3], "")
	got := f.secrets.String("key " + key + " body " + body)
	for _, secret := range strings.Split(strings.TrimSpace(key), "\n")[1:] {
		if !strings.HasPrefix(secret, "-----") && strings.Contains(got, secret) {
			t.Errorf("key line %.20q… not scrubbed: %s", secret, got)
		}
	}
	if strings.Contains(got, body[:40]) {
		t.Errorf("joined key body not scrubbed: %s", got)
	}
}

// TestCorruptKeyFailsAtOpen: a service-account key file whose private
// key cannot be parsed ("MII" changed to "MIX") fails when the provider
// opens, naming the file, with a hint and without quoting the key; it
// used to fail every call with a retryable error until the retry budget
// was spent.
func TestCorruptKeyFailsAtOpen(t *testing.T) {
	f := newFixture(t)
	var sa map[string]string
	json.Unmarshal(f.srv.CredentialsJSON(), &sa)
	if !strings.Contains(sa["private_key"], "MII") {
		t.Fatal("stand-in key has no MII prefix")
	}
	sa["private_key"] = strings.Replace(sa["private_key"], "MII", "MIX", 1)
	data, _ := json.Marshal(sa)
	path := filepath.Join(t.TempDir(), "broken.json")
	os.WriteFile(path, data, 0o600)
	f.env[CredentialsEnv] = path
	_, err := f.open(t, "gemini-2.5-flash", nil)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "private_key") {
		t.Fatalf("got %v, want an error naming %s and its private_key", err, path)
	}
	var h interface{ Hints() []string }
	if !errors.As(err, &h) || len(h.Hints()) == 0 || !strings.Contains(h.Hints()[0], CredentialsEnv) {
		t.Errorf("got %v, want a hint naming %s", err, CredentialsEnv)
	}
	providertest.NoLeak(t, err, strings.Split(sa["private_key"], "\n")[2])
}

// TestTokenRetryable: only transport errors, timeouts and 429/5xx answers
// (of the token endpoint or the metadata server) are retried.
func TestTokenRetryable(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&metadata.Error{Code: 503, Message: "unavailable"}, true},
		{fmt.Errorf("credentials: cannot fetch token: %w", &metadata.Error{Code: 404}), false},
		{&url.Error{Op: "Post", URL: "http://x/token", Err: errors.New("connection refused")}, true},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), true},
		{errors.New("credentials: could not parse key: failed to parse private key"), false},
		{&auth.Error{Response: &http.Response{StatusCode: 500}}, true},
		{&auth.Error{Response: &http.Response{StatusCode: 400}}, false},
	}
	for _, tc := range tests {
		if got := tokenRetryable(tc.err); got != tc.want {
			t.Errorf("tokenRetryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestMetadataServerDownHint: a token error at call time says where
// Application Default Credentials come from, and stays retryable.
func TestMetadataServerDownHint(t *testing.T) {
	f := newFixture(t)
	f.env = map[string]string{"HOME": t.TempDir()}
	t.Setenv("GCE_METADATA_HOST", strings.TrimPrefix(f.srv.URL, "http://"))
	p, err := f.open(t, "gemini-2.5-pro", map[string]any{"project": "canary-project"})
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Close()
	_, err = p.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, defaults))
	if !provider.IsRetryable(err) || !strings.Contains(err.Error(), "gcloud auth application-default login") || !strings.Contains(err.Error(), CredentialsEnv) {
		t.Errorf("got %v, want a retryable error with the ADC hint", err)
	}
}

// TestMetadataServerErrors: a metadata server that answers its token
// request with a 5xx is worth another try; one that refuses it (403: the
// instance's service account lacks the scope) is not.
func TestMetadataServerErrors(t *testing.T) {
	for _, tc := range []struct {
		status    int
		retryable bool
	}{{http.StatusServiceUnavailable, true}, {http.StatusForbidden, false}} {
		md := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Metadata-Flavor", "Google")
			if strings.HasSuffix(r.URL.Path, "/token") {
				http.Error(w, "metadata says no", tc.status)
				return
			}
			io.WriteString(w, "canary-project")
		}))
		f := newFixture(t)
		f.env = map[string]string{"HOME": t.TempDir()}
		t.Setenv("GCE_METADATA_HOST", strings.TrimPrefix(md.URL, "http://"))
		p, err := f.open(t, "gemini-2.5-flash", map[string]any{"project": "canary-project"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = p.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, defaults))
		if err == nil || provider.IsRetryable(err) != tc.retryable || !strings.Contains(err.Error(), "metadata says no") {
			t.Errorf("metadata %d: got %v (retryable %v), want retryable %v", tc.status, err, provider.IsRetryable(err), tc.retryable)
		}
		md.Close()
	}
}

// TestCredentialsFileTypes checks that a file named by
// GOOGLE_APPLICATION_CREDENTIALS is read as the type it declares, and only
// a service account's or a user's: other types make the library fetch URLs
// or run commands the file names.
func TestCredentialsFileTypes(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	user := filepath.Join(dir, "user.json")
	if err := os.WriteFile(user, f.srv.UserCredentialsJSON(), 0o600); err != nil {
		t.Fatal(err)
	}
	f.env[CredentialsEnv] = user
	if _, err := f.open(t, "gemini-2.5-flash", map[string]any{"project": "canary-project"}); err != nil {
		t.Errorf("authorized_user file: %v", err)
	}
	for _, typ := range []string{"external_account", "impersonated_service_account", ""} {
		path := filepath.Join(dir, "other.json")
		data, _ := json.Marshal(map[string]any{"type": typ, "audience": "//iam.googleapis.com/x",
			"credential_source": map[string]any{"url": f.srv.URL + "/token"}})
		os.WriteFile(path, data, 0o600)
		f.env[CredentialsEnv] = path
		_, err := f.open(t, "gemini-2.5-flash", map[string]any{"project": "canary-project"})
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprintf("credential type %q", typ)) {
			t.Errorf("type %q: got %v, want an error naming %s and the type", typ, err, path)
		}
	}
}
