package httpc

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/promptcanary/promptcanary/internal/redact"
)

// Secrets adds values to set and returns it, or a new set holding them
// when set is nil: a client redacts its own secrets whether or not the
// caller collects them for the run.
func Secrets(set *redact.Set, values ...string) *redact.Set {
	if set == nil {
		return redact.New(values...)
	}
	set.Add(values...)
	return set
}

// IsToken reports whether s is an HTTP token (RFC 9110), as a header name
// or a method must be.
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// ValidHeaderValue reports whether s may be sent as a header value: it
// rejects control characters (tab aside), which would split or corrupt
// the request.
func ValidHeaderValue(s string) bool {
	for _, r := range s {
		if (r < ' ' && r != '\t') || r == 0x7f {
			return false
		}
	}
	return true
}

// SensitiveHeader reports whether a header's value is likely a credential
// (its name holds auth, key, token, secret, cookie, signature or
// password), so that it is redacted from error messages.
func SensitiveHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"auth", "key", "token", "secret", "cookie", "signature", "password"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// ExtraHeader copies a client's configured extra headers into a new
// header (names canonicalised) and returns it with the secrets they and
// the API root carry: the values of SensitiveHeader headers and the
// password of base's userinfo, in that order, for Client.Secrets.
func ExtraHeader(extra http.Header, base *url.URL) (http.Header, []string) {
	h := http.Header{}
	var secrets []string
	for k, vs := range extra {
		for _, v := range vs {
			h.Add(k, v)
			if SensitiveHeader(k) {
				secrets = append(secrets, v)
			}
		}
	}
	if base.User != nil {
		if p, ok := base.User.Password(); ok {
			secrets = append(secrets, p)
		}
	}
	return h, secrets
}
