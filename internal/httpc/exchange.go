package httpc

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary/internal/redact"
)

// MaxAnswer bounds the body of an answer Exchange reads (8 MiB).
const MaxAnswer = 8 << 20

// MaxSnippet bounds, in bytes, the piece of a response body that
// StatusError quotes.
const MaxSnippet = 200

// maxLine bounds, in bytes, a transport error's message in an *Error.
const maxLine = 300

// Exchange sends one request and returns the answer whatever its status,
// its body read whole up to MaxAnswer. Its error is an *Error with op: a
// failure to get or read an answer (retryable, Code the status when the
// body failed), a request that could not be built, or a body larger than
// MaxAnswer. No message quotes the URL.
func (c *Client) Exchange(ctx context.Context, op, method, rawURL string, header http.Header, body []byte) (*Response, error) {
	req, err := c.NewRequest(ctx, method, rawURL, header, body)
	if err != nil {
		// NewRequest's error may quote the URL.
		return nil, &Error{Op: op, Message: "build request: invalid URL or method"}
	}
	resp, err := c.Send(req)
	if err != nil {
		e := err.(*Error)
		e.Op, e.Message = op, c.Line(e.Message, maxLine)
		return nil, e
	}
	defer resp.Body.Close()
	data, over, err := ReadBody(resp.Body, MaxAnswer)
	if err != nil {
		e := c.transportError(err)
		e.Op, e.Code, e.Message = op, resp.StatusCode, "read response: "+c.Line(e.Message, maxLine)
		return nil, e
	}
	if over {
		return nil, &Error{Op: op, Code: resp.StatusCode, Message: fmt.Sprintf("response body larger than %d bytes", MaxAnswer)}
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: data}, nil
}

// StatusError is the *Error of an answer with an unexpected status:
// detail is what the server said (from its body; quoted scrubbed, on one
// line, cut to MaxSnippet bytes), hint the likely fix. A 3xx gets the
// hint that redirects are not followed. Retryable and RetryAfter follow
// RetryableStatus and RetryAfterHeader, read at now.
func (c *Client) StatusError(op string, r *Response, detail, hint string, now time.Time) *Error {
	msg := fmt.Sprintf("HTTP %d", r.Status)
	if t := http.StatusText(r.Status); t != "" {
		msg += " " + t
	}
	if detail = c.Line(detail, MaxSnippet); detail != "" {
		msg += ": " + detail
	}
	if r.Status >= 300 && r.Status < 400 {
		hint = "redirects are not followed: configure the final URL"
	}
	if hint != "" {
		msg += " (" + hint + ")"
	}
	return &Error{
		Op:         op,
		Code:       r.Status,
		Message:    msg,
		Retryable:  RetryableStatus(r.Status),
		RetryAfter: RetryAfterHeader(r.Header, now),
	}
}

// Line makes s fit for an error: c.Secrets scrubbed, one line of
// printable text, at most n bytes, "…" included.
func (c *Client) Line(s string, n int) string { return Line(c.Secrets, s, n) }

// Line scrubs set's secrets from s, turns it into one line of printable
// text and cuts it to n bytes, "…" included, dropping any piece of a
// secret left at the cut.
func Line(set *redact.Set, s string, n int) string {
	s = set.String(s)
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return set.Truncate(s, n-len("…")) + "…"
}
