package setting

import (
	"net/http"
	"net/url"
	"slices"
)

// CheckKey stands in for the API key when a client's configuration is
// checked without one; it is never sent.
const CheckKey = "check-without-key"

// Common holds the settings every model API client (anthropic, gemini,
// ollama) accepts.
type Common struct {
	// BaseURL is base_url, trimmed; "" when not set.
	BaseURL string
	// KeyEnv is api_key_env: the variable holding the key; "" when not set.
	KeyEnv string
	// Header is headers: extra request headers.
	Header http.Header
}

// ReadCommon reads base_url (checked with parse, which names the setting
// in its errors), api_key_env and headers from m, and every key of extra
// with its own function. Any other key is reported with Unknown, listing
// them all; every problem is returned, joined.
func ReadCommon(m map[string]any, parse func(raw string) (*url.URL, error), extra map[string]func(v any) error) (Common, error) {
	known := []string{"api_key_env", "base_url", "headers"}
	for k := range extra {
		known = append(known, k)
	}
	slices.Sort(known)
	var c Common
	err := Read(m, known, func(k string, v any) error {
		var err error
		switch k {
		case "base_url":
			c.BaseURL, err = String(k, v)
			if err == nil {
				_, err = parse(c.BaseURL)
			}
		case "api_key_env":
			c.KeyEnv, err = EnvName(k, v)
		case "headers":
			c.Header, err = Header(k, v)
		default:
			err = extra[k](v)
		}
		return err
	})
	return c, err
}
