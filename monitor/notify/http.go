package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary/internal/redact"
)

// MaxSnippet bounds, in bytes, the piece of a response body an error
// quotes.
const MaxSnippet = 200

// maxBody bounds a response body read from a server.
const maxBody = 8 << 20

// userAgent identifies the monitor's requests (GitHub requires one).
const userAgent = "promptcanary-monitor"

// Error is a failed delivery attempt. Its text never holds a secret: no
// request URL, header or key goes into it, and a quoted response body is
// scrubbed of the notifier's secrets, cut to MaxSnippet bytes and put on
// one line.
type Error struct {
	// Op is what was being done, such as "post slack message".
	Op string
	// Code is the HTTP status of the answer, 0 when none came back.
	Code int
	// Message says what went wrong.
	Message string
	// Retryable is set when another attempt may succeed: no answer, a
	// timeout, 408, 429 and 5xx (and GitHub's rate limits on 403).
	Retryable bool
	// RetryAfter is the delay the server asked for (Retry-After, or
	// GitHub's x-ratelimit-reset), 0 when it did not say.
	RetryAfter time.Duration
	err        error
}

// Error returns "op: message".
func (e *Error) Error() string { return e.Op + ": " + e.Message }

// Unwrap returns the underlying transport error (never a *url.Error: its
// URL is stripped), so errors.Is(err, context.DeadlineExceeded) works.
func (e *Error) Unwrap() error { return e.err }

// sender makes one notifier's HTTP requests.
type sender struct {
	client  *http.Client
	secrets *redact.Set
	now     func() time.Time
}

// newSender returns a sender over a copy of client that never follows a
// redirect (a POST turned into a GET, or a token sent to another host,
// helps no one), scrubbing secrets from what servers send back.
func newSender(client *http.Client, secrets ...string) *sender {
	c := &http.Client{}
	if client != nil {
		*c = *client
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &sender{client: c, secrets: redact.New(secrets...), now: time.Now}
}

// response is a server's answer, whatever its status.
type response struct {
	code   int
	header http.Header
	body   []byte
}

// do sends one request and returns the answer whatever its status; the
// error is a transport failure only (an *Error with Code 0).
func (s *sender) do(ctx context.Context, op, method, rawURL string, header http.Header, body []byte) (*response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
	if err != nil {
		// NewRequest's error may quote the URL.
		return nil, &Error{Op: op, Message: "build request: invalid URL or method"}
	}
	for k, vs := range header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("User-Agent", userAgent)
	if body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, s.transportError(op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		e := s.transportError(op, err)
		e.Code = resp.StatusCode
		e.Message = "read response: " + e.Message
		return nil, e
	}
	if len(data) > maxBody {
		return nil, &Error{Op: op, Code: resp.StatusCode, Message: fmt.Sprintf("response body larger than %d bytes", maxBody)}
	}
	return &response{code: resp.StatusCode, header: resp.Header, body: data}, nil
}

// transportError turns a failure to get an answer into a retryable
// *Error. A *url.Error names the method and the whole URL (a Slack
// webhook URL is a secret), so only what it wraps is kept.
func (s *sender) transportError(op string, err error) *Error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		msg = "no answer before the deadline (" + msg + ")"
	}
	return &Error{Op: op, Message: s.line(msg, 300), Retryable: true, err: err}
}

// statusError is the *Error of an answer with an unexpected status:
// detail is what the server said (from its body), hint the likely fix.
func (s *sender) statusError(op string, r *response, detail, hint string) *Error {
	msg := fmt.Sprintf("HTTP %d", r.code)
	if t := http.StatusText(r.code); t != "" {
		msg += " " + t
	}
	if detail = s.snippet(detail); detail != "" {
		msg += ": " + detail
	}
	if r.code >= 300 && r.code < 400 {
		hint = "redirects are not followed: configure the final URL"
	}
	if hint != "" {
		msg += " (" + hint + ")"
	}
	return &Error{
		Op:         op,
		Code:       r.code,
		Message:    msg,
		Retryable:  retryableStatus(r.code),
		RetryAfter: retryAfter(r.header, s.now()),
	}
}

// retryableStatus reports whether another attempt may get a better
// answer than code: 408, 429 and 5xx.
func retryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500
}

// snippet makes a piece of a response body fit for an error: scrubbed of
// the notifier's secrets, on one line, at most MaxSnippet bytes.
func (s *sender) snippet(body string) string { return s.line(body, MaxSnippet) }

// line scrubs str, turns it into one line of printable text and cuts it to
// n bytes, "…" included.
func (s *sender) line(str string, n int) string {
	str = s.secrets.String(str)
	str = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, str)
	str = strings.Join(strings.Fields(str), " ")
	if len(str) <= n {
		return str
	}
	return s.secrets.Truncate(str, n-len("…")) + "…"
}

// maxRetryAfter caps the delay a server may ask for.
const maxRetryAfter = 24 * time.Hour

// retryAfter parses Retry-After (seconds or an HTTP date); 0 when absent.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs >= maxRetryAfter.Seconds() {
			return maxRetryAfter
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxRetryAfter)
	}
	return 0
}
