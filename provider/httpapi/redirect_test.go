package httpapi

import (
	"net/http"
	"testing"

	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

// TestRedirects checks that a header expanded from ${ENV} (the app's own
// token) never follows a redirect to another origin, even through a
// shared client, while a redirect within the app's origin still works.
func TestRedirects(t *testing.T) {
	shared := &http.Client{}
	open := func(t *testing.T, baseURL string) provider.Provider {
		set := redact.New()
		p, err := provider.Open("http/app", provider.Options{
			Settings: map[string]any{
				"url":      baseURL + "/api/chat",
				"headers":  map[string]any{"X-Bot-Token": "${APP_TOKEN}"},
				"response": map[string]any{"text": "answer"},
			},
			Getenv:     env(map[string]string{"APP_TOKEN": secretToken}),
			HTTPClient: shared,
			Secrets:    set,
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := set.String(secretToken); got != redact.Placeholder {
			t.Errorf("Open did not register the token: %q", got)
		}
		return p
	}
	providertest.CheckRedirects(t, open, `{"answer":"hi"}`, secretToken)
	if shared.CheckRedirect != nil {
		t.Error("the shared client's redirect policy was changed")
	}
}
