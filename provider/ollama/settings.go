package ollama

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
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
				_, err = hostURL("setting base_url", s.baseURL)
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

// hostURL parses an Ollama server address the way Ollama reads
// OLLAMA_HOST: without a scheme it is http, and without a port it is 11434
// ("0.0.0.0:11434" → http://0.0.0.0:11434, "example.com" →
// http://example.com:11434); with a scheme the scheme's default port
// applies. Empty means DefaultHost. A trailing slash or "/api" is dropped.
// source names the setting or variable in errors.
func hostURL(source, raw string) (*url.URL, error) {
	raw = strings.Trim(strings.TrimSpace(raw), `"'`)
	if raw == "" {
		raw = DefaultHost
	}
	if !strings.Contains(raw, "://") {
		hostport, path, _ := strings.Cut(raw, "/")
		host, port, err := net.SplitHostPort(hostport)
		if err != nil {
			host, port = strings.Trim(hostport, "[]"), defaultPort
		}
		if host == "" {
			host = "127.0.0.1"
		}
		raw = "http://" + net.JoinHostPort(host, port)
		if path != "" {
			raw += "/" + path
		}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Port() != "" && !validPort(u.Port()) {
		// The value is not echoed: it may carry credentials.
		return nil, errors.New(source + ": want a server address such as http://localhost:11434 or 0.0.0.0:11434")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New(source + ": must not carry a query string or fragment (put credentials in headers)")
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/api")
	u.RawPath = ""
	return u, nil
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n <= 65535
}

// checkModel rejects an empty model name or one with whitespace.
func checkModel(model string) error {
	if model == "" {
		return errors.New("missing model name: want ollama/MODEL, for example ollama/llama3.2")
	}
	if strings.IndexFunc(model, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
		return fmt.Errorf("invalid model name %q: it holds whitespace or control characters", httpc.Redact(model))
	}
	return nil
}
