package anthropic

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/promptcanary/promptcanary/provider/internal/httpc"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// settings are the provider's settings from canary.yaml.
type settings struct {
	baseURL string
	keyEnv  string
	version string
	header  http.Header
}

// knownSettings are the setting keys Open accepts, sorted.
var knownSettings = []string{"anthropic_version", "api_key_env", "base_url", "headers"}

// root is how base_url (and Config.BaseURL) is read, defaulting to
// DefaultBaseURL: a trailing "/v1" is dropped so that paths are not
// doubled.
var root = setting.Root{
	Source:  "setting base_url",
	Default: DefaultBaseURL,
	Want:    "an http or https URL such as " + DefaultBaseURL,
	Suffix:  "/v1",
}

// readSettings validates m and reports every problem at once.
func readSettings(m map[string]any) (settings, error) {
	var s settings
	err := setting.Read(m, knownSettings, func(k string, v any) error {
		var err error
		switch k {
		case "base_url":
			s.baseURL, err = setting.String(k, v)
			if err == nil {
				_, err = root.Parse(s.baseURL)
			}
		case "api_key_env":
			s.keyEnv, err = setting.EnvName(k, v)
		case "anthropic_version":
			s.version, err = setting.String(k, v)
			if err == nil && (s.version == "" || !httpc.ValidHeaderValue(s.version)) {
				err = errors.New("setting anthropic_version: want a version such as 2023-06-01")
			}
		case "headers":
			s.header, err = setting.Header(k, v)
		}
		return err
	})
	return s, err
}

// checkModel rejects an empty model name or one with whitespace.
func checkModel(model string) error {
	if model == "" {
		return errors.New("missing model name: want anthropic/MODEL, for example anthropic/claude-sonnet-4-5")
	}
	if strings.IndexFunc(model, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return fmt.Errorf("invalid model name %q: it holds whitespace or control characters", httpc.Redact(model))
	}
	return nil
}
