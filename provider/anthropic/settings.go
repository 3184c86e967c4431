package anthropic

import (
	"errors"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// settings are the provider's settings from canary.yaml: the common ones
// and anthropic_version.
type settings struct {
	setting.Common
	version string
}

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
	var err error
	s.Common, err = setting.ReadCommon(m, root.Parse, map[string]func(any) error{
		"anthropic_version": func(v any) error {
			var err error
			s.version, err = setting.String("anthropic_version", v)
			if err == nil && (s.version == "" || !httpc.ValidHeaderValue(s.version)) {
				err = errors.New("setting anthropic_version: want a version such as 2023-06-01")
			}
			return err
		},
	})
	return s, err
}

// checkModel rejects an empty model name or one with whitespace.
func checkModel(model string) error {
	return setting.Model(model, "anthropic/MODEL, for example anthropic/claude-sonnet-4-5")
}
