// Package httpc is the one outbound HTTP stack of PromptCanary: the
// provider clients (chat models, judges, embeddings) and the monitor's
// notifiers send their requests through a Client. It owns what they
// share: the redirect policy (same origin only, or none), bounded bodies,
// Retry-After and rate-limit reset headers, the classification of
// statuses for retries, the *Error of a failed exchange, and the
// scrubbing of secrets from every message.
//
// The provider clients' JSON calls, which fail with *provider.Error and
// read answers through the call's provider.Bound, are built on Send in
// provider/internal/apicall; the notifiers use Exchange and StatusError.
// This package imports no provider code, so that a notifier's
// dependencies stay small.
package httpc

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/promptcanary/promptcanary/internal/redact"
)

// MaxBody bounds a response body read from a provider (32 MiB), after the
// call's provider.Bound has cut its strings.
const MaxBody = 32 << 20

// MaxErrorBody bounds what is read of a provider's error body (64 KiB):
// the message is at its start, and a provider that answers an error with
// megabytes is not read further.
const MaxErrorBody = 64 << 10

// MaxMessage bounds the provider's message kept in an error, in bytes.
const MaxMessage = 300

// Client sends requests to one API or endpoint.
type Client struct {
	// HTTP sends the requests; nil means http.DefaultClient. Its
	// Transport is used as is, but its redirect policy is always the
	// one Redirects names.
	HTTP *http.Client
	// Header is added to every request (keys, versions), after the
	// request's own headers.
	Header http.Header
	// Secrets are redacted from every error message; nil redacts only
	// what looks like an API key (see Redact).
	Secrets *redact.Set
	// ErrorMessage extracts the service's message from an error body; nil
	// means the common {"error":{"message":…}} and {"error":"…"} shapes.
	ErrorMessage func(body []byte) string
	// Authorize, when set, is called by the provider clients on every
	// request after its headers are set, with the body it carries: it adds
	// credentials that depend on the request (a SigV4 signature, an OAuth
	// access token). Its error fails the call; wrap a *provider.Error in
	// it to decide on retries.
	Authorize func(req *http.Request, body []byte) error
	// Redirects is the redirect policy: SameOrigin (the zero value) or
	// NoRedirects.
	Redirects Redirects
}

// Response is an answer: its status, headers and body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// NewRequest builds a request of method to rawURL carrying body (none
// when nil) with header, then c.Header, added. Its error is net/http's,
// which may quote the URL: callers word their own.
func (c *Client) NewRequest(ctx context.Context, method, rawURL string, header http.Header, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
	if err != nil {
		return nil, err
	}
	for _, h := range []http.Header{header, c.Header} {
		for k, vs := range h {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
	}
	return req, nil
}

// Send sends req under c's redirect policy and returns the answer, whose
// body the caller reads (ReadBody) and closes. A failure to get an
// answer is an *Error: retryable (no connection, a reset, a timeout)
// unless a redirect to another origin was refused; its Err is the cause
// without net/http's *url.Error, which names the method and the whole URL
// (a Slack webhook's URL is a secret, a query string may hold a key), and
// its Message the cause with c.Secrets redacted.
func (c *Client) Send(req *http.Request) (*http.Response, error) {
	resp, err := c.client().Do(req)
	if err != nil {
		return nil, c.transportError(err)
	}
	return resp, nil
}

// transportError is the *Error of a failure to get or read an answer.
func (c *Client) transportError(err error) *Error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	if errors.Is(err, context.DeadlineExceeded) {
		msg = "no answer before the deadline (" + msg + ")"
	}
	_, refused := errors.AsType[*redirectError](err)
	return &Error{Message: c.Secrets.String(msg), Retryable: !refused, Err: err}
}

// ReadBody reads r up to limit bytes and reports whether there was more.
func ReadBody(r io.Reader, limit int64) (data []byte, over bool, err error) {
	data, err = io.ReadAll(io.LimitReader(r, limit+1))
	if int64(len(data)) > limit {
		return data[:limit], true, err
	}
	return data, false, err
}

// Error is a failed exchange: no answer, or an answer that was not the
// one wanted. Its text never holds a secret: no request URL, header or
// key goes into it, and a quoted response body is scrubbed of the
// client's secrets (see StatusError).
type Error struct {
	// Op is what was being done, such as "post slack message".
	Op string
	// Code is the HTTP status of the answer, 0 when none came back.
	Code int
	// Message says what went wrong.
	Message string
	// Retryable is set when another attempt may succeed: no answer, a
	// timeout, 408, 429 and 5xx (see RetryableStatus).
	Retryable bool
	// RetryAfter is the delay the server asked for, 0 when it did not
	// say.
	RetryAfter time.Duration
	// Err is the transport error, nil for an answer with a wrong status.
	Err error
}

// Error returns "op: message", or the message when there is no op.
func (e *Error) Error() string {
	if e.Op == "" {
		return e.Message
	}
	return e.Op + ": " + e.Message
}

// Unwrap returns the underlying transport error (never a *url.Error: its
// URL is stripped), so errors.Is(err, context.DeadlineExceeded) works.
func (e *Error) Unwrap() error { return e.Err }

// RetryableStatus reports whether another attempt may get a better
// answer than code: 408, 429 and 5xx; another 4xx (a wrong URL, key or
// payload) will not mend.
func RetryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500
}
