package setting

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/suggest"
)

// Read calls read for every key of m that is in known, in sorted order,
// and reports every other key with Unknown. It returns every problem,
// joined in key order, so the user fixes them all in one pass.
func Read(m map[string]any, known []string, read func(key string, v any) error) error {
	var errs []error
	for _, k := range Keys(m) {
		var err error
		if slices.Contains(known, k) {
			err = read(k, m[k])
		} else {
			err = Unknown(k, known)
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Unknown is the error for a setting key the provider does not accept: it
// suggests the nearest known key and lists them all.
func Unknown(key string, known []string) error {
	return fmt.Errorf("unknown setting %q%s; known settings: %s", key, suggest.Hint(key, known), strings.Join(known, ", "))
}

// String reads setting key as a string with the surrounding space
// trimmed.
func String(key string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("setting %s: want a string, got %s", key, APIWords.TypeName(v))
	}
	return strings.TrimSpace(s), nil
}

// EnvName reads setting key as the name of an environment variable (such
// as api_key_env). The value is never echoed: a key pasted there by
// mistake must not end up in an error message.
func EnvName(key string, v any) (string, error) {
	s, err := String(key, v)
	if err != nil {
		return "", err
	}
	if !IsEnvName(s) {
		return "", fmt.Errorf("setting %s: want the name of an environment variable (letters, digits and _), not the key itself", key)
	}
	return s, nil
}

// Header reads setting key as a map of header names to string values,
// reporting every bad name and value. A value is never echoed: it may be
// a credential.
func Header(key string, v any) (http.Header, error) {
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
		return nil, fmt.Errorf("setting %s: want a map of header names to strings, got %s", key, APIWords.TypeName(v))
	}
	h := http.Header{}
	var errs []error
	for _, k := range Keys(m) {
		s, ok := m[k].(string)
		switch {
		case !httpc.IsToken(k):
			errs = append(errs, fmt.Errorf("setting %s: invalid header name %q", key, k))
		case !ok:
			errs = append(errs, fmt.Errorf("setting %s: %s: want a string, got %s", key, k, APIWords.TypeName(m[k])))
		case !httpc.ValidHeaderValue(s):
			errs = append(errs, fmt.Errorf("setting %s: %s: value holds a line break or control character", key, k))
		default:
			h.Add(k, s)
		}
	}
	return h, errors.Join(errs...)
}

// Root says how a provider reads the root URL of its API (the base_url
// setting, or a variable such as OLLAMA_HOST).
type Root struct {
	// Source names the setting or variable in errors: "setting base_url".
	Source string
	// Default is the root used when the value is empty.
	Default string
	// Want describes a good value in errors, after "want ": "an http or
	// https URL such as https://api.anthropic.com".
	Want string
	// Suffix is dropped from the end of the path, after any trailing
	// slash, so that the client's own paths are not doubled: "/v1".
	Suffix string
	// CheckPort rejects a port outside 1-65535 (url.Parse accepts any
	// digits).
	CheckPort bool
}

// Parse parses raw as an http or https root without a query string or
// fragment. The value is never echoed in an error: it may carry
// credentials.
func (r Root) Parse(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		raw = r.Default
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || r.CheckPort && u.Port() != "" && !validPort(u.Port()) {
		return nil, errors.New(r.Source + ": want " + r.Want)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New(r.Source + ": must not carry a query string or fragment (put credentials in headers)")
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), r.Suffix)
	u.RawPath = ""
	return u, nil
}

// Endpoint returns the URL a client posts its requests to, as given and
// parsed: endpoint when it is set (a full URL, as Vertex AI takes partner
// models), which must name a host; else the root base, read by Parse,
// followed by path.
func (r Root) Endpoint(endpoint, base, path string) (string, *url.URL, error) {
	if endpoint == "" {
		root, err := r.Parse(base)
		if err != nil {
			return "", nil, err
		}
		endpoint = root.String() + path
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return "", nil, fmt.Errorf("invalid endpoint %q", httpc.Redact(endpoint))
	}
	return endpoint, u, nil
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n <= 65535
}
