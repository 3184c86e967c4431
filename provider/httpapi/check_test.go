package httpapi

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/provider"
)

// TestCheckMatchesOpen checks that validate (provider.Check) reports every
// configuration mistake of testdata/invalid-*.yaml with the message run
// (provider.Open) gives, except an unset variable: Check needs none.
func TestCheckMatchesOpen(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "invalid-*.yaml"))
	if err != nil || len(files) < 10 {
		t.Fatalf("got %d fixtures (%v), want the invalid-*.yaml files", len(files), err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			opts := provider.Options{Settings: loadSettings(t, name), Getenv: env(nil)}
			_, openErr := provider.Open("http/app", opts)
			checkErr := provider.Check("http/app", opts)
			if openErr == nil {
				t.Fatal("Open accepted an invalid fixture")
			}
			if name == "invalid-missing-env.yaml" {
				if checkErr != nil {
					t.Errorf("got %v, want no error: Check needs no variable", checkErr)
				}
				return
			}
			if checkErr == nil || checkErr.Error() != openErr.Error() {
				t.Errorf("Check gave\n%v\nwant what Open gives\n%v", checkErr, openErr)
			}
		})
	}
}

func TestCheckAcceptsValidWithoutVariables(t *testing.T) {
	settings := map[string]any{
		"url":      "${APP_BASE}/chat?key=${APP_KEY}",
		"headers":  map[string]any{"Authorization": "Bearer ${APP_TOKEN}"},
		"response": map[string]any{"text": "answer"},
	}
	opts := provider.Options{Settings: settings, Getenv: env(nil)}
	if err := provider.Check("http/app", opts); err != nil {
		t.Errorf("got %v, want a valid entry accepted without its variables", err)
	}
	if _, err := provider.Open("http/app", opts); err == nil || !strings.Contains(err.Error(), "APP_TOKEN is not set") {
		t.Errorf("Open: got %v, want the unset variable reported", err)
	}
	if err := provider.Check("http/app", provider.Options{Getenv: env(nil)}); err == nil || !strings.Contains(err.Error(), "no settings") {
		t.Errorf("got %v, want an entry without settings reported", err)
	}
}
