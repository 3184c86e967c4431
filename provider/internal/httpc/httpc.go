// Package httpc is the HTTP plumbing the provider clients share: one JSON
// request, errors classified for the retry policy (429 and 5xx retryable,
// Retry-After honoured, other 4xx final), bodies size-limited, secrets
// redacted from every message, and no credential sent to another origin
// by a redirect (see Client.Do).
package httpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/clip"
)

// MaxBody bounds a response body read from a provider (32 MiB), after the
// call's provider.Bound has cut its strings.
const MaxBody = 32 << 20

// MaxErrorBody bounds what is read of an error body (64 KiB): the message
// is at its start, and a provider that answers an error with megabytes is
// not read further.
const MaxErrorBody = 64 << 10

// MaxMessage bounds the provider's message kept in an error, in bytes.
const MaxMessage = 300

// MaxRetryAfter caps the delay a Retry-After header may ask for; the run
// engine's retry budget decides whether to wait that long.
const MaxRetryAfter = 24 * time.Hour

// Client sends JSON requests to one API.
type Client struct {
	// HTTP sends the requests; nil means http.DefaultClient. Its
	// Transport is used as is, but its redirect policy is always
	// Client.Do's own.
	HTTP *http.Client
	// Header is added to every request (keys, versions).
	Header http.Header
	// Secrets are redacted from every error message; nil redacts only
	// what looks like an API key.
	Secrets *redact.Set
	// ErrorMessage extracts the provider's message from an error body; nil
	// means the common {"error":{"message":…}} and {"error":"…"} shapes.
	ErrorMessage func(body []byte) string
	// Authorize, when set, is called on every request after its headers
	// are set, with the body it carries: it adds credentials that depend
	// on the request (a SigV4 signature, an OAuth access token). Its error
	// fails the call; wrap a *provider.Error in it to decide on retries.
	Authorize func(req *http.Request, body []byte) error
}

// Response is a successful call's body and status.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends method url with body (JSON-encoded unless it is []byte or nil)
// and returns the body of a 2xx answer (or one of okStatus when given).
// Failures are *provider.Error with secrets redacted.
func (c *Client) Do(ctx context.Context, method, url string, body any, okStatus ...int) (*Response, error) {
	var rd io.Reader
	var payload []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		payload = b
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return nil, &provider.Error{Message: "encode request: " + err.Error()}
		}
		payload = data
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return nil, &provider.Error{Message: c.Redact("build request: " + err.Error())}
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	for k, vs := range c.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if c.Authorize != nil {
		if err := c.Authorize(req, payload); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if pe, ok := errors.AsType[*provider.Error](err); ok {
				return nil, pe
			}
			return nil, &provider.Error{Message: c.Redact("authorize request: " + err.Error())}
		}
	}
	resp, err := c.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var re *redirectError
		if errors.As(err, &re) {
			return nil, &provider.Error{Message: c.Redact(re.Error())}
		}
		// Connection refused, resets and timeouts are worth another try.
		return nil, &provider.Error{Retryable: true, Message: c.Redact(transportMessage(err))}
	}
	defer resp.Body.Close()
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	if len(okStatus) > 0 {
		ok = slices.Contains(okStatus, resp.StatusCode)
	}
	// An error body is read to a prefix, the rest left unread: only the
	// message at its start is kept. An answer is read through the call's
	// bound, which cuts its strings as they stream in.
	limit, rd := int64(MaxErrorBody), io.Reader(resp.Body)
	if ok {
		limit, rd = MaxBody, clip.New(resp.Body, provider.BoundFrom(ctx))
	}
	data, err := io.ReadAll(io.LimitReader(rd, limit+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &provider.Error{StatusCode: resp.StatusCode, Retryable: true, Message: c.Redact("read response: " + err.Error())}
	}
	if !ok {
		return nil, c.statusError(resp, data[:min(len(data), MaxErrorBody)])
	}
	if len(data) > MaxBody {
		return nil, &provider.Error{StatusCode: resp.StatusCode, Message: fmt.Sprintf("response body larger than %d bytes", MaxBody)}
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}, nil
}

// statusError classifies a non-success answer.
func (c *Client) statusError(resp *http.Response, body []byte) *provider.Error {
	msg := ""
	if c.ErrorMessage != nil {
		msg = c.ErrorMessage(body)
	}
	if msg == "" {
		msg = ErrorMessage(body)
	}
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	code := resp.StatusCode
	e := &provider.Error{
		StatusCode: code,
		Retryable:  code == http.StatusTooManyRequests || code == http.StatusRequestTimeout || code == 409 || code >= 500,
		Message:    c.Message(msg),
	}
	e.RateLimited = e.Retryable && (code == http.StatusTooManyRequests || code == 529 || strings.Contains(strings.ToLower(msg), "overloaded"))
	switch {
	case code == http.StatusTooManyRequests && quotaExhausted(body):
		// Out of credits, not out of rate: no wait will help.
		e.Retryable, e.RateLimited = false, false
		e.Message += " (the account's quota or credit is used up: check its plan and billing; retrying will not help)"
	case code == http.StatusTooManyRequests:
		e.RetryAfter = RetryAfter(resp.Header, time.Now())
	default:
		// The reset headers come with every answer: only a 429 is
		// delayed by them.
		e.RetryAfter = ExplicitRetryAfter(resp.Header, time.Now())
	}
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden:
		e.Message += " (check the API key)"
	}
	return e
}

// quotaExhausted reports whether a 429 body is OpenAI's insufficient_quota
// error ("You exceeded your current quota, please check your plan and
// billing details", https://platform.openai.com/docs/guides/error-codes):
// the account is out of credit, which no retry mends.
func quotaExhausted(body []byte) bool {
	var v struct {
		Error struct {
			Type string `json:"type"`
			Code any    `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	return v.Error.Type == "insufficient_quota" || v.Error.Code == "insufficient_quota"
}

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

// RetryAfter is the delay a rate-limited answer (a 429) asks for: the
// retry-after-ms or Retry-After header when there is one (see
// ExplicitRetryAfter), else the time until the provider's rate-limit
// window resets, from OpenAI's x-ratelimit-reset-requests and
// x-ratelimit-reset-tokens (durations such as "1s", "6m0s", "20ms",
// https://platform.openai.com/docs/guides/rate-limits) or Anthropic's
// anthropic-ratelimit-*-reset (RFC 3339 times,
// https://docs.anthropic.com/en/api/rate-limits). It returns 0 when none
// is present or parsable and caps the delay at MaxRetryAfter. The delay is
// what the server asked for: the run engine's retry budget decides
// whether to wait that long, and names the delay when it will not.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if d := ExplicitRetryAfter(h, now); d > 0 {
		return d
	}
	return ResetAfter(h, now)
}

// ExplicitRetryAfter parses the retry-after-ms header some APIs send
// (OpenAI's and Anthropic's), else Retry-After (seconds or an HTTP date,
// RFC 9110 section 10.2.3). It returns 0 when both are absent or
// unparsable, and caps the delay at MaxRetryAfter.
func ExplicitRetryAfter(h http.Header, now time.Time) time.Duration {
	var d time.Duration
	if ms := h.Get("Retry-After-Ms"); ms != "" {
		if v, err := strconv.ParseFloat(ms, 64); err == nil && v > 0 {
			d = capped(v, time.Millisecond)
		}
	}
	if d == 0 {
		if s := strings.TrimSpace(h.Get("Retry-After")); s != "" {
			if v, err := strconv.ParseFloat(s, 64); err == nil && v > 0 {
				d = capped(v, time.Second)
			} else if t, err := http.ParseTime(s); err == nil && t.After(now) {
				d = t.Sub(now)
			}
		}
	}
	return min(d, MaxRetryAfter)
}

// capped converts v units to a duration, capped at MaxRetryAfter before
// the conversion so that no value overflows time.Duration.
func capped(v float64, unit time.Duration) time.Duration {
	if v >= MaxRetryAfter.Seconds()*float64(time.Second/unit) {
		return MaxRetryAfter
	}
	return time.Duration(v * float64(unit))
}

// resetHeaders pairs each rate-limit window's reset header with the header
// that counts what is left of it: OpenAI's, then Anthropic's.
var resetHeaders = [][2]string{
	{"X-Ratelimit-Reset-Requests", "X-Ratelimit-Remaining-Requests"},
	{"X-Ratelimit-Reset-Tokens", "X-Ratelimit-Remaining-Tokens"},
	{"Anthropic-Ratelimit-Requests-Reset", "Anthropic-Ratelimit-Requests-Remaining"},
	{"Anthropic-Ratelimit-Tokens-Reset", "Anthropic-Ratelimit-Tokens-Remaining"},
	{"Anthropic-Ratelimit-Input-Tokens-Reset", "Anthropic-Ratelimit-Input-Tokens-Remaining"},
	{"Anthropic-Ratelimit-Output-Tokens-Reset", "Anthropic-Ratelimit-Output-Tokens-Remaining"},
}

// ResetAfter is the wait until the rate-limit windows that turned a call
// away reset, from the x-ratelimit-reset-* and anthropic-ratelimit-*-reset
// headers. The windows whose remaining header says 0 are the exhausted
// ones, and the wait is until the last of them resets; when no remaining
// header names one (a token window can refuse a call with tokens left),
// it is until the first window resets, the soonest the provider said
// anything frees up. It returns 0 when no reset header parses, and caps
// the delay at MaxRetryAfter. These headers come with every answer; only
// a rate-limited one should be read for a delay.
func ResetAfter(h http.Header, now time.Time) time.Duration {
	var exhausted, soonest time.Duration
	for _, hh := range resetHeaders {
		d := resetIn(h.Get(hh[0]), now)
		if d <= 0 {
			continue
		}
		if strings.TrimSpace(h.Get(hh[1])) == "0" {
			exhausted = max(exhausted, d)
		}
		if soonest == 0 || d < soonest {
			soonest = d
		}
	}
	if exhausted > 0 {
		return exhausted
	}
	return soonest
}

// resetIn parses one reset header: a Go-style duration ("6m0s", "20ms",
// "1m30.5s", OpenAI's form) or an RFC 3339 time (Anthropic's), 0 when
// empty, unparsable or past.
func resetIn(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if d, err := time.ParseDuration(v); err == nil {
		return min(max(d, 0), MaxRetryAfter)
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil && t.After(now) {
		return min(t.Sub(now), MaxRetryAfter)
	}
	return 0
}

// transportMessage shortens a transport error: net/http's error names the
// method and URL, which is noise (and could carry a query-string key).
func transportMessage(err error) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return "transport: " + inner.Error()
		}
	}
	return "transport: " + err.Error()
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

// DecodeJSON unmarshals a provider body, turning malformed or truncated JSON
// into a retryable *provider.Error (a cut-off body is usually transient).
func DecodeJSON(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		msg := "malformed JSON response: " + err.Error()
		var se *json.SyntaxError
		if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected end of JSON input") {
			return &provider.Error{Retryable: true, Message: msg}
		}
		return &provider.Error{Message: msg}
	}
	return nil
}
