// Package apicall is the provider clients' JSON call, built on the one
// HTTP stack (internal/httpc): a request encoded as JSON, an answer read
// through the call's provider.Bound, and every failure a *provider.Error
// classified for the run engine's retry policy (429, 408, 409 and 5xx
// retryable, Retry-After and the rate-limit reset headers honoured, other
// 4xx final), bodies size-limited and secrets redacted from every
// message. It lives apart from internal/httpc so that the notifiers,
// which share that stack, do not depend on the provider packages.
package apicall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/clip"
)

// Do sends method url with body (JSON-encoded unless it is []byte or nil)
// through c and returns the body of a 2xx answer (or one of okStatus when
// given). Failures are *provider.Error with c's secrets redacted; a
// cancelled or expired ctx returns ctx.Err().
func Do(ctx context.Context, c *httpc.Client, method, url string, body any, okStatus ...int) (*httpc.Response, error) {
	var payload []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		payload = b
		if payload == nil {
			payload = []byte{}
		}
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return nil, &provider.Error{Message: "encode request: " + err.Error()}
		}
		payload = data
	}
	header := http.Header{"Accept": {"application/json"}}
	if payload != nil {
		header.Set("Content-Type", "application/json")
	}
	req, err := c.NewRequest(ctx, method, url, header, payload)
	if err != nil {
		return nil, &provider.Error{Message: c.Redact("build request: " + err.Error())}
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
	resp, err := c.Send(req)
	if err != nil {
		return nil, transportError(ctx, c, err)
	}
	defer resp.Body.Close()
	return read(ctx, c, resp, okStatus)
}

// transportError is the *provider.Error of a failure to get an answer:
// connection refused, resets and timeouts are worth another try, a
// refused redirect is not.
func transportError(ctx context.Context, c *httpc.Client, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	e := err.(*httpc.Error)
	if !e.Retryable {
		return &provider.Error{Message: c.Redact(e.Err.Error())}
	}
	return &provider.Error{Retryable: true, Message: c.Redact("transport: " + e.Err.Error())}
}

// read reads the answer: an error body to a prefix, the rest left unread
// (only the message at its start is kept); an answer through the call's
// bound, which cuts its strings as they stream in, up to httpc.MaxBody.
func read(ctx context.Context, c *httpc.Client, resp *http.Response, okStatus []int) (*httpc.Response, error) {
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	if len(okStatus) > 0 {
		ok = slices.Contains(okStatus, resp.StatusCode)
	}
	limit, rd := int64(httpc.MaxErrorBody), io.Reader(resp.Body)
	if ok {
		limit, rd = httpc.MaxBody, clip.New(resp.Body, provider.BoundFrom(ctx))
	}
	data, over, err := httpc.ReadBody(rd, limit)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &provider.Error{StatusCode: resp.StatusCode, Retryable: true, Message: c.Redact("read response: " + err.Error())}
	}
	if !ok {
		return nil, statusError(c, resp, data)
	}
	if over {
		return nil, &provider.Error{StatusCode: resp.StatusCode, Message: fmt.Sprintf("response body larger than %d bytes", httpc.MaxBody)}
	}
	return &httpc.Response{Status: resp.StatusCode, Header: resp.Header, Body: data}, nil
}

// statusError classifies a non-success answer.
func statusError(c *httpc.Client, resp *http.Response, body []byte) *provider.Error {
	msg := ""
	if c.ErrorMessage != nil {
		msg = c.ErrorMessage(body)
	}
	if msg == "" {
		msg = httpc.ErrorMessage(body)
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
		e.RetryAfter = httpc.RetryAfter(resp.Header, time.Now())
	default:
		// The reset headers come with every answer: only a 429 is
		// delayed by them.
		e.RetryAfter = httpc.ExplicitRetryAfter(resp.Header, time.Now())
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
