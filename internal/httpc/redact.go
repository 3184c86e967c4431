package httpc

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/promptcanary/promptcanary/internal/redact"
)

// ErrorMessage extracts a message from the common error body shapes:
// {"error":{"message":…}}, {"error":"…"}, {"message":…}, {"detail":…};
// a body that is not JSON is the message itself, trimmed. It returns ""
// when the body has none. The message is neither redacted nor cut: pass
// it through Client.Message, which redacts first and cuts after, so that
// no secret straddling the cut leaves a piece behind.
func ErrorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) != nil {
		return strings.TrimSpace(string(body))
	}
	if len(v.Error) > 0 {
		var s string
		if json.Unmarshal(v.Error, &s) == nil {
			return s
		}
		var o struct {
			Message string `json:"message"`
			Type    string `json:"type"`
			Status  string `json:"status"`
		}
		if json.Unmarshal(v.Error, &o) == nil && o.Message != "" {
			if o.Type != "" {
				return o.Type + ": " + o.Message
			}
			if o.Status != "" {
				return o.Status + ": " + o.Message
			}
			return o.Message
		}
	}
	if v.Message != "" {
		return v.Message
	}
	if v.Detail != nil {
		return fmt.Sprint(v.Detail)
	}
	return ""
}

var secretPatterns = regexp.MustCompile(`(?i)(sk-[A-Za-z0-9_\-]{8,}|sk-ant-[A-Za-z0-9_\-]{8,}|AIza[0-9A-Za-z_\-]{20,}|xai-[A-Za-z0-9]{8,}|gsk_[A-Za-z0-9]{8,}|bearer\s+[A-Za-z0-9._\-]{8,}|([?&](?:key|api[-_]?key|token)=)[^&\s"]+)`)

// Redact removes c.Secrets and anything shaped like an API key from s.
func (c *Client) Redact(s string) string { return RedactSet(c.Secrets, s) }

// RedactSet removes set's secrets and anything shaped like an API key or
// bearer token from s.
func RedactSet(set *redact.Set, s string) string { return patterns(set.String(s)) }

// Message is a provider's message made fit for an error: secrets and
// key-shaped strings redacted first, then cut to MaxMessage bytes with
// "…", dropping any piece of a secret left at the cut.
func (c *Client) Message(s string) string { return Truncate(c.Secrets, s, MaxMessage) }

// Truncate redacts set's secrets and key-shaped strings from s, then cuts
// it to n bytes followed by "…" when it is longer (see redact.Set.Truncate).
func Truncate(set *redact.Set, s string, n int) string {
	s = patterns(set.String(s))
	if len(s) <= n {
		return s
	}
	return set.Truncate(s, n) + "…"
}

// Redact removes the given secrets (see redact.Set.Add for which values
// count) and anything shaped like an API key or bearer token from s.
func Redact(s string, secrets ...string) string {
	return patterns(redact.New(secrets...).String(s))
}

// patterns redacts what is shaped like an API key or a bearer token.
func patterns(s string) string {
	return secretPatterns.ReplaceAllStringFunc(s, func(m string) string {
		if i := strings.IndexByte(m, '='); i >= 0 && (m[0] == '?' || m[0] == '&') {
			return m[:i+1] + redact.Placeholder
		}
		return redact.Placeholder
	})
}
