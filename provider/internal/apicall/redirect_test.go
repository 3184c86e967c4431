package apicall

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/provider"
)

func TestRedirectToAnotherOriginIsRefused(t *testing.T) {
	const token = "tok-9f8e7d6c5b4a3210"
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Write([]byte(`{"stolen":"` + r.Header.Get("X-Bot-Token") + `"}`))
	}))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer first.Close()

	// The caller's client keeps its own policy: a shared client is not changed.
	shared := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	c := &httpc.Client{HTTP: shared, Header: http.Header{"X-Bot-Token": {token}}, Secrets: redact.New(token)}
	_, err := Do(context.Background(), c, "POST", first.URL+"/v1/chat", map[string]string{"a": "b"})
	var pe *provider.Error
	if !errors.As(err, &pe) {
		t.Fatalf("got %v, want *provider.Error", err)
	}
	if reached.Load() != 0 {
		t.Errorf("the other origin received %d request(s)", reached.Load())
	}
	if pe.Retryable {
		t.Errorf("got a retryable error, want a final one")
	}
	want := "refused redirect from " + first.URL + "/v1/chat to " + other.URL + "/v1/chat: another origin would receive the credentials (set base_url to the final address)"
	if pe.Message != want {
		t.Errorf("got %q, want %q", pe.Message, want)
	}
	if shared.CheckRedirect != nil {
		t.Errorf("the caller's client was changed")
	}
	if strings.Contains(err.Error(), token) {
		t.Errorf("error %q leaks the token", err)
	}
}

func TestRedirectSameOriginIsFollowed(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
			return
		}
		got.Store(r.Header.Get("X-Api-Key"))
		w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	c := &httpc.Client{Header: http.Header{"X-Api-Key": {"k-123456789"}}}
	resp, err := Do(context.Background(), c, "POST", srv.URL+"/old", map[string]int{"n": 1})
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != `{"ok":true}` || got.Load() != "k-123456789" {
		t.Errorf("got body %q and key %q, want the moved answer with the key", resp.Body, got.Load())
	}
}
