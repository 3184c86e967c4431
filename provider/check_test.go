package provider_test

import (
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/provider"
	_ "github.com/promptcanary/promptcanary/provider/builtin"
)

func TestSplitSuggests(t *testing.T) {
	tests := []struct {
		spec, want string
	}{
		{"openai:gpt-4o", `invalid provider "openai:gpt-4o": want NAME/MODEL (did you mean openai/gpt-4o?)`},
		{"opnai:gpt-4o", `invalid provider "opnai:gpt-4o": want NAME/MODEL (did you mean openai/gpt-4o?)`},
		{"gpt-4o", `invalid provider "gpt-4o": want NAME/MODEL (did you mean openai/gpt-4o?)`},
		{"claude-sonnet-4-5", `invalid provider "claude-sonnet-4-5": want NAME/MODEL (did you mean anthropic/claude-sonnet-4-5?)`},
		{"gemini-3-pro", `invalid provider "gemini-3-pro": want NAME/MODEL (did you mean gemini/gemini-3-pro?)`},
		{"llama3", `invalid provider "llama3": want NAME/MODEL, where NAME is one of ` + strings.Join(provider.Names(), ", ")},
		{"openai/", `invalid provider "openai/": want NAME/MODEL, for example sim/stable or openai/gpt-4o`},
		{"", `invalid provider "": want NAME/MODEL, for example sim/stable or openai/gpt-4o`},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			_, _, err := provider.Split(tc.spec)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			if cerr := provider.Check(tc.spec, provider.Options{}); cerr == nil || cerr.Error() != tc.want {
				t.Errorf("Check: got %v, want %q", cerr, tc.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	noEnv := func(string) string { return "" }
	tests := []struct {
		name     string
		spec     string
		settings map[string]any
		want     string // "" means accepted
	}{
		{"unknown name", "opnai/gpt-4o", nil, `unknown provider "opnai" in "opnai/gpt-4o" (did you mean openai?); known providers: `},
		{"unknown sim model", "sim/stabel", nil, `open provider sim/stabel: unknown sim model "stabel" (did you mean sim/stable?)`},
		{"sim", "sim/stable", nil, ""},
		{"openai without a key", "openai/gpt-4o", nil, ""},
		{"azure without a key", "azure/dep", map[string]any{"base_url": "https://res.openai.azure.com"}, ""},
		{"openai setting typo", "openai/gpt-4o", map[string]any{"bse_url": "http://x"}, `open provider openai/gpt-4o: openai: unknown setting "bse_url" (did you mean base_url?)`},
		{"azure needs an endpoint", "azure/dep", nil, "azure needs the resource endpoint"},
		{"anthropic without a key", "anthropic/claude-sonnet-4-5", nil, ""},
		{"anthropic bad base_url", "anthropic/claude-sonnet-4-5", map[string]any{"base_url": "ftp://x"}, "setting base_url: want an http or https URL"},
		{"gemini without a key", "gemini/gemini-2.5-flash", nil, ""},
		{"gemini bad model", "gemini/a?b", nil, `invalid model name "a?b"`},
		{"ollama with api_key_env unset", "ollama/llama3.2", map[string]any{"api_key_env": "OLLAMA_KEY"}, ""},
		{"ollama setting typo", "ollama/llama3.2", map[string]any{"headrs": map[string]any{}}, `unknown setting "headrs" (did you mean headers?)`},
		{"http without settings", "http/bot", nil, "no settings for \"bot\""},
		{"exec missing command", "exec/./no-such-command", nil, `command "./no-such-command": no such file`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			err := provider.Check(tc.spec, provider.Options{Settings: tc.settings, Getenv: noEnv, BaseDir: dir})
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want the configuration accepted", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want it to contain %q", err, tc.want)
			}
			// Check gives the message Open gives with every key set.
			if tc.want != "" {
				anyKey := func(k string) string {
					if strings.HasSuffix(k, "_KEY") {
						return "k-0123456789abcdef"
					}
					return ""
				}
				_, oerr := provider.Open(tc.spec, provider.Options{Settings: tc.settings, Getenv: anyKey, BaseDir: dir})
				if oerr == nil || err == nil || oerr.Error() != err.Error() {
					t.Errorf("Open gave %v, Check %v", oerr, err)
				}
			}
		})
	}
}

func TestRegisterCheckerPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"unregistered": func() {
			provider.RegisterChecker("no-such-provider", func(string, provider.Options) error { return nil })
		},
		"nil":       func() { provider.RegisterChecker("sim", nil) },
		"duplicate": func() { provider.RegisterChecker("sim", func(string, provider.Options) error { return nil }) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("got no panic, want one")
				}
			}()
			f()
		})
	}
}

// Capabilities are declared beside Register and read by spec or name; a
// provider that declared nothing has none, and a declaration for an
// unregistered name or a second one panics.
func TestDeclare(t *testing.T) {
	provider.Register("declaretest", func(string, provider.Options) (provider.Provider, error) { return nil, nil })
	if provider.CapabilitiesOf("declaretest/x").VendorModels {
		t.Error("capabilities before Declare")
	}
	provider.Declare("declaretest", provider.Capabilities{VendorModels: true})
	if !provider.CapabilitiesOf("declaretest/gpt-5").VendorModels || !provider.CapabilitiesOf("declaretest").VendorModels {
		t.Error("declared capabilities not found")
	}
	if provider.CapabilitiesOf("nosuchprovider/x") != (provider.Capabilities{}) {
		t.Error("an unregistered provider has capabilities")
	}
	for _, name := range []string{"declaretest", "nosuchprovider"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Declare(%q) did not panic", name)
				}
			}()
			provider.Declare(name, provider.Capabilities{})
		}()
	}
}
