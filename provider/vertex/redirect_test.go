package vertex

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/promptcanary/promptcanary"

	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// TestRedirects checks that the bearer token never follows a redirect to
// another origin, while a redirect within the API's origin keeps it.
func TestRedirects(t *testing.T) {
	f := newFixture(t)
	answers := map[string]string{
		"gemini-2.5-flash":           `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}]}`,
		"claude-sonnet-4-5@20250929": `{"type":"message","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn"}`,
	}
	for model, ok := range answers {
		t.Run(model, func(t *testing.T) {
			providertest.CheckRedirects(t, func(t *testing.T, baseURL string) provider.Provider {
				p, err := provider.Open("vertex/"+model, provider.Options{
					Settings: map[string]any{"base_url": baseURL},
					Getenv:   func(k string) string { return f.env[k] },
					Secrets:  f.secrets,
				})
				if err != nil {
					t.Fatal(err)
				}
				return p
			}, ok, "Bearer ya29.standin-")
		})
	}
}

// TestTokenRedirect: a token endpoint that redirects to another origin
// does not get the signed assertion resent there (a 307 resends the body);
// the token request fails instead.
func TestTokenRedirect(t *testing.T) {
	f := newFixture(t)
	var leaked atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(true)
		f.srv.ServeHTTP(w, r) // the real token endpoint, behind another origin
	}))
	defer other.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	var sa map[string]string
	if err := json.Unmarshal(f.srv.CredentialsJSON(), &sa); err != nil {
		t.Fatal(err)
	}
	sa["token_uri"] = redirector.URL + "/token"
	data, _ := json.Marshal(sa)
	path := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f.env[CredentialsEnv] = path
	p, err := f.open(t, "gemini-2.5-flash", nil)
	if err == nil {
		_, err = p.Generate(context.Background(), providertest.NewRequest(promptcanary.Prompt{Text: "hi"}, defaults))
	}
	if leaked.Load() {
		t.Error("the token request followed a redirect to another origin")
	}
	if err == nil || !strings.Contains(err.Error(), "refused redirect") {
		t.Errorf("got %v, want the redirect refused", err)
	}
}
