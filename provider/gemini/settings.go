package gemini

import (
	"errors"
	"fmt"
	"strings"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// root is how base_url (and Config.BaseURL) is read, defaulting to
// DefaultBaseURL: a trailing "/v1beta" is dropped so that paths are not
// doubled.
var root = setting.Root{
	Source:  "setting base_url",
	Default: DefaultBaseURL,
	Want:    "an http or https URL such as " + DefaultBaseURL,
	Suffix:  "/" + apiVersion,
}

// modelPath turns a model name into its resource name: "gemini-2.5-flash"
// and "models/gemini-2.5-flash" give "models/gemini-2.5-flash", and
// "tunedModels/NAME" is kept. The name becomes part of the URL path, so
// anything that would change the path is rejected.
func modelPath(model string) (string, error) {
	if model == "" {
		return "", errors.New("missing model name: want gemini/MODEL, for example gemini/gemini-2.5-flash")
	}
	collection, name := "models", model
	if c, n, ok := strings.Cut(model, "/"); ok && (c == "models" || c == "tunedModels") {
		collection, name = c, n
	}
	if name == "" || strings.ContainsAny(name, "/?#%:\\") || strings.IndexFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return "", fmt.Errorf("invalid model name %q: want a name such as gemini-2.5-flash", httpc.Redact(model))
	}
	return collection + "/" + name, nil
}
