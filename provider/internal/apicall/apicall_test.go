package apicall

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/providertest"
)

func TestDoClassifiesStatuses(t *testing.T) {
	const key = "sk-test-SECRETSECRETSECRET"
	tests := []struct {
		name          string
		status        int
		header        map[string]string
		body          string
		wantRetryable bool
		wantAfter     time.Duration
		wantMsg       string
	}{
		{"rate limited with seconds", 429, map[string]string{"Retry-After": "3"}, `{"error":{"message":"Rate limit reached","type":"requests"}}`, true, 3 * time.Second, "requests: Rate limit reached"},
		{"rate limited with ms header", 429, map[string]string{"Retry-After-Ms": "250"}, `{"error":"slow down"}`, true, 250 * time.Millisecond, "slow down"},
		{"server error", 500, nil, `{"error":{"message":"The server had an error"}}`, true, 0, "The server had an error"},
		{"overloaded", 529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, true, 0, "overloaded_error: Overloaded"},
		{"bad request is final", 400, nil, `{"error":{"message":"Invalid 'messages'"}}`, false, 0, "Invalid 'messages'"},
		{"wrong key names no key", 401, nil, `{"error":{"message":"Incorrect API key provided: ` + key + `"}}`, false, 0, "Incorrect API key provided: [REDACTED] (check the API key)"},
		{"plain text body", 502, nil, `<html>bad gateway</html>`, true, 0, "<html>bad gateway</html>"},
		{"empty body", 503, nil, ``, true, 0, "Service Unavailable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := providertest.Reply(t, tc.status, tc.header, tc.body)
			c := &httpc.Client{Secrets: redact.New(key)}
			_, err := Do(context.Background(), c, "POST", srv.URL, map[string]string{"a": "b"})
			var pe *provider.Error
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, want *provider.Error", err)
			}
			if pe.StatusCode != tc.status || pe.Retryable != tc.wantRetryable || pe.RetryAfter != tc.wantAfter || pe.Message != tc.wantMsg {
				t.Errorf("got {%d %v %v %q}, want {%d %v %v %q}", pe.StatusCode, pe.Retryable, pe.RetryAfter, pe.Message, tc.status, tc.wantRetryable, tc.wantAfter, tc.wantMsg)
			}
			if strings.Contains(err.Error(), key) {
				t.Errorf("error %q leaks the key", err)
			}
		})
	}
}

func TestDoSendsJSONAndHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("X-Api-Key") != "k" {
			w.WriteHeader(400)
			return
		}
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	c := &httpc.Client{Header: http.Header{"X-Api-Key": {"k"}}}
	resp, err := Do(context.Background(), c, "POST", srv.URL, map[string]int{"n": 1})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != `{"ok":true}` {
		t.Errorf("got body %q", resp.Body)
	}
}

func TestDoTransportErrorIsRetryable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	url := srv.URL + "/v1?key=AIzaSyA-very-secret-key-value-123"
	srv.Close()
	_, err := Do(context.Background(), &httpc.Client{}, "GET", url, nil)
	var pe *provider.Error
	if !errors.As(err, &pe) || !pe.Retryable {
		t.Fatalf("got %v, want a retryable provider error", err)
	}
	if strings.Contains(err.Error(), "very-secret") {
		t.Errorf("error %q leaks the key", err)
	}
}

func TestDoCancelledReturnsContextError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Do(ctx, &httpc.Client{}, "GET", srv.URL, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestDecodeJSON(t *testing.T) {
	var v map[string]any
	err := DecodeJSON([]byte(`{"choices":[{"message":`), &v)
	var pe *provider.Error
	if !errors.As(err, &pe) || !pe.Retryable || !strings.Contains(pe.Message, "malformed JSON") {
		t.Errorf("got %v, want a retryable malformed JSON error", err)
	}
	err = DecodeJSON([]byte(`{"choices":"x"}`), &struct{ Choices []int }{})
	if !errors.As(err, &pe) || pe.Retryable {
		t.Errorf("got %v, want a final error for a well-formed but wrong body", err)
	}
}

func TestErrorRedactedBeforeCut(t *testing.T) {
	const key = "ak-test-7f3e9c1b5d2a8e4f6071"
	for _, pad := range []int{280, 290, 296, 299} {
		body := strings.Repeat("x", pad) + key + " more text after the key"
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte(body))
		}))
		c := &httpc.Client{Secrets: redact.New(key)}
		_, err := Do(context.Background(), c, "POST", srv.URL, nil)
		srv.Close()
		var pe *provider.Error
		if !errors.As(err, &pe) {
			t.Fatalf("got %v, want *provider.Error", err)
		}
		for k := redact.MinPrefix; k <= len(key); k++ {
			if strings.Contains(pe.Message, key[:k]) {
				t.Errorf("pad %d: message %q holds %q, the first %d bytes of the key", pad, pe.Message, key[:k], k)
				break
			}
		}
		if !strings.HasPrefix(pe.Message, strings.Repeat("x", min(pad, 280))) || !strings.HasSuffix(pe.Message, "…") {
			t.Errorf("pad %d: got %q, want the body's start cut with …", pad, pe.Message)
		}
	}
}

func TestDoAuthorize(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	var seen []byte
	c := &httpc.Client{Header: http.Header{"X-Version": {"1"}}, Authorize: func(req *http.Request, body []byte) error {
		if req.Header.Get("X-Version") != "1" {
			t.Error("Authorize ran before the client's headers were set")
		}
		seen = body
		req.Header.Set("Authorization", "Signed "+string(body))
		return nil
	}}
	if _, err := Do(context.Background(), c, http.MethodPost, srv.URL, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if string(seen) != `{"a":1}` || got.Get("Authorization") != `Signed {"a":1}` {
		t.Errorf("Authorize saw %q; the server got Authorization %q", seen, got.Get("Authorization"))
	}

	const secret = "tok-SECRETSECRETSECRET"
	calls := 0
	srv2 := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { calls++ }))
	defer srv2.Close()
	c = &httpc.Client{Secrets: httpc.Secrets(nil, secret), Authorize: func(*http.Request, []byte) error {
		return errors.New("token endpoint refused " + secret)
	}}
	_, err := Do(context.Background(), c, http.MethodPost, srv2.URL, nil)
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Retryable || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "authorize request: token endpoint refused") {
		t.Errorf("a failed Authorize: got %v", err)
	}
	c.Authorize = func(*http.Request, []byte) error {
		return fmt.Errorf("fetch token: %w", &provider.Error{StatusCode: 503, Retryable: true, Message: "unavailable"})
	}
	_, err = Do(context.Background(), c, http.MethodPost, srv2.URL, nil)
	if !errors.As(err, &pe) || !pe.Retryable || pe.StatusCode != 503 {
		t.Errorf("a retryable Authorize failure: got %v", err)
	}
	if calls != 0 {
		t.Errorf("the server got %d calls after Authorize failed, want none", calls)
	}
}
