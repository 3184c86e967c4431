package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// versionedSource is a fake Source that says when it changed, as the
// monitor does.
type versionedSource struct {
	*fakeSource
	version atomic.Uint64
	reads   *countingState
}

func (v *versionedSource) Version() uint64      { return v.version.Load() }
func (v *versionedSource) State() store.Monitor { return v.reads }

// countingState counts the store's reads of check runs.
type countingState struct {
	store.Monitor
	checkRuns atomic.Int64
}

func (c *countingState) CheckRuns(ctx context.Context, check, provider string, n int) ([]promptcanary.CheckRun, error) {
	c.checkRuns.Add(1)
	return c.Monitor.CheckRuns(ctx, check, provider, n)
}

// newVersionedServer is newTestServer over a versionedSource.
func newVersionedServer(t *testing.T) (*httptest.Server, *versionedSource, *fixture) {
	t.Helper()
	src, mem, f := newFixture(t, fixtureOptions{})
	vs := &versionedSource{fakeSource: src, reads: &countingState{Monitor: mem}}
	h := New(Options{Source: vs, AdminToken: testToken, ActionsAllowed: true, Now: func() time.Time { return fixtureNow }})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, vs, f
}

// Between two versions of the source the pages read the store once, for
// however many visitors at once; a new version reads it again.
func TestPagesReadTheStoreOncePerVersion(t *testing.T) {
	srv, src, f := newVersionedServer(t)
	paths := []string{"/", CheckPath(f.check, f.provider), "/api/v1/checks"}
	var wg sync.WaitGroup
	for range 20 {
		for _, p := range paths {
			wg.Go(func() {
				req, _ := http.NewRequest(http.MethodGet, srv.URL+p, nil)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("GET %s: %d", p, resp.StatusCode)
				}
			})
		}
	}
	wg.Wait()
	first := src.reads.checkRuns.Load()
	// The overview reads each check's runs, the check page its own: once.
	if want := int64(len(src.Statuses()) + 1); first > want {
		t.Errorf("got %d reads of check runs for 40 pages, want at most %d", first, want)
	}
	get(t, srv, "/")
	if n := src.reads.checkRuns.Load(); n != first {
		t.Errorf("an unchanged source was read again: %d reads, then %d", first, n)
	}
	src.version.Add(1) // a run was recorded
	_, body := get(t, srv, "/")
	if n := src.reads.checkRuns.Load(); n <= first {
		t.Errorf("a new version was not read: still %d reads", n)
	}
	if !strings.Contains(body, "checkout-prod") {
		t.Errorf("the overview after a new version lacks its checks:\n%.300s", body)
	}
}

// A page kept for visitors who are not signed in is never served to one
// who is: theirs has the action forms and their own CSRF token.
func TestCachedPagesAreNotForSignedIn(t *testing.T) {
	srv, _, f := newVersionedServer(t)
	path := CheckPath(f.check, f.provider)
	_, anon := get(t, srv, path)
	if strings.Contains(anon, `name="csrf"`) {
		t.Fatal("the anonymous page has an action form")
	}
	_, c := login(t, srv, testToken)
	if c == nil {
		t.Fatal("no session")
	}
	_, signed := get(t, srv, path, "Cookie", c.Name+"="+c.Value)
	if !strings.Contains(signed, `name="csrf"`) {
		t.Error("a signed-in visitor got the page kept for anonymous ones (no action form)")
	}
	_, again := get(t, srv, path)
	if strings.Contains(again, `name="csrf"`) {
		t.Error("an anonymous visitor got a signed-in visitor's page")
	}
}

// A kept page is served compressed to clients that take gzip, the same
// page once inflated.
func TestCachedPagesGzip(t *testing.T) {
	srv, _, _ := newVersionedServer(t)
	_, plain := get(t, srv, "/")
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, raw := do(t, req)
	if resp.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("got Content-Encoding %q, Vary %q; want gzip, Accept-Encoding", resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
	}
	zr, err := gzip.NewReader(bytes.NewReader([]byte(raw)))
	if err != nil {
		t.Fatal(err)
	}
	page, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if string(page) != plain || len(raw) >= len(plain) {
		t.Errorf("got %d compressed bytes inflating to %d, want the %d-byte page, smaller", len(raw), len(page), len(plain))
	}
}

// Oversized bodies are refused before any handler reads them, and the
// Host check is off without AllowedHosts (the handler embedded in tests).
func TestBodyLimitAndHosts(t *testing.T) {
	src, _, _ := newFixture(t, fixtureOptions{})
	h := New(Options{Source: src, AdminToken: testToken, ActionsAllowed: true, AllowedHosts: []string{"canary.internal:9464"}})
	tests := []struct {
		name, method, host string
		body               int
		want               int
	}{
		{"big body", http.MethodPost, "127.0.0.1", MaxBody + 1, http.StatusRequestEntityTooLarge},
		{"rebinding", http.MethodGet, "evil.example", 0, http.StatusMisdirectedRequest},
		{"allowed name", http.MethodGet, "canary.internal", 0, http.StatusOK},
		{"trailing dot", http.MethodGet, "localhost.:9464", 0, http.StatusOK},
		{"probe", http.MethodGet, "evil.example", 0, http.StatusOK},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := "/api/v1/checks"
			if tc.name == "probe" {
				path = "/healthz"
			}
			if tc.method == http.MethodPost {
				path = "/login"
			}
			req := httptest.NewRequest(tc.method, "http://"+tc.host+path, strings.NewReader(strings.Repeat("a", tc.body)))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.want {
				t.Errorf("got %d, want %d", rec.Code, tc.want)
			}
		})
	}
}
