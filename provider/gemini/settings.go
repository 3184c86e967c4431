package gemini

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/provider/internal/httpc"
)

// settings are the provider's settings from canary.yaml.
type settings struct {
	baseURL string
	keyEnv  string
	header  http.Header
}

// knownSettings are the setting keys Open accepts, sorted.
var knownSettings = []string{"api_key_env", "base_url", "headers"}

var (
	envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// tokenRE is an HTTP header field name (RFC 9110 token).
	tokenRE = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
)

// readSettings validates m and reports every problem at once.
func readSettings(m map[string]any) (settings, error) {
	var (
		s    settings
		errs []error
	)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		var err error
		switch k {
		case "base_url":
			s.baseURL, err = stringSetting(k, v)
			if err == nil {
				_, err = baseURL(s.baseURL)
			}
		case "api_key_env":
			s.keyEnv, err = stringSetting(k, v)
			if err == nil && !envNameRE.MatchString(s.keyEnv) {
				// Never echo the value: a key pasted here by mistake must not
				// end up in an error message.
				err = errors.New("setting api_key_env: want the name of an environment variable (letters, digits and _), not the key itself")
			}
		case "headers":
			s.header, err = headerSetting(v)
		default:
			err = fmt.Errorf("unknown setting %q%s; known settings: %s", k, suggest.Hint(k, knownSettings), strings.Join(knownSettings, ", "))
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return s, errors.Join(errs...)
}

func stringSetting(key string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("setting %s: want a string, got %s", key, typeName(v))
	}
	return strings.TrimSpace(s), nil
}

// headerSetting reads a map of header names to string values.
func headerSetting(v any) (http.Header, error) {
	var m map[string]any
	switch t := v.(type) {
	case map[string]any:
		m = t
	case map[string]string:
		m = make(map[string]any, len(t))
		for k, s := range t {
			m[k] = s
		}
	default:
		return nil, fmt.Errorf("setting headers: want a map of header names to strings, got %s", typeName(v))
	}
	h := http.Header{}
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s, ok := m[k].(string)
		switch {
		case !tokenRE.MatchString(k):
			errs = append(errs, fmt.Errorf("setting headers: invalid header name %q", k))
		case !ok:
			errs = append(errs, fmt.Errorf("setting headers: %s: want a string, got %s", k, typeName(m[k])))
		case !validHeaderValue(s):
			errs = append(errs, fmt.Errorf("setting headers: %s: value holds a line break or control character", k))
		default:
			h.Add(k, s)
		}
	}
	return h, errors.Join(errs...)
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int, int64, float64, uint64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	}
	return fmt.Sprintf("%T", v)
}

// validHeaderValue rejects control characters, which would split or
// corrupt the request.
func validHeaderValue(s string) bool {
	for _, r := range s {
		if (r < ' ' && r != '\t') || r == 0x7f {
			return false
		}
	}
	return true
}

// sensitiveHeader reports whether a header's value is likely a credential,
// so it is redacted from error messages.
func sensitiveHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"auth", "key", "token", "secret", "cookie", "signature", "password"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// baseURL parses the API root, defaulting to DefaultBaseURL. A trailing
// slash or "/v1beta" is dropped so that paths are not doubled.
func baseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = DefaultBaseURL
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		// The value is not echoed: it may carry credentials.
		return nil, errors.New("setting base_url: want an http or https URL such as " + DefaultBaseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("setting base_url: must not carry a query string or fragment (put credentials in headers)")
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/"+apiVersion)
	u.RawPath = ""
	return u, nil
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
