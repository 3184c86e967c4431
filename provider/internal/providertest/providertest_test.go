package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
)

// fakeT records failures instead of failing the real test, so that the
// checks themselves can be tested.
type fakeT struct {
	testing.TB
	msgs     []string
	cleanups []func()
}

func (f *fakeT) Helper() {}

func (f *fakeT) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }

func (f *fakeT) Errorf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

func (f *fakeT) Fatal(args ...any) {
	f.msgs = append(f.msgs, fmt.Sprint(args...))
	runtime.Goexit()
}

// run runs check against a fakeT and returns what it reported.
func run(check func(t testing.TB)) []string {
	f := &fakeT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(f)
	}()
	<-done
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
	return f.msgs
}

func TestServeRecordsAndAnswers(t *testing.T) {
	srv := Serve(t, Answer{Status: 429, ContentType: "application/json; charset=UTF-8", Header: map[string]string{"Retry-After": "3"}, Body: `{"error":"slow"}`})
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("got %d requests before any call, want 0", n)
	}
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1beta/models/a%2Fb:generate?x=1", strings.NewReader(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Api-Key", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || resp.Header.Get("Content-Type") != "application/json; charset=UTF-8" || string(body) != `{"error":"slow"}` {
		t.Errorf("got %d %v %s, want the configured answer", resp.StatusCode, resp.Header, body)
	}
	seen := srv.Last(t)
	if seen.Method != "POST" || seen.URL.Path != "/v1beta/models/a/b:generate" || seen.URL.EscapedPath() != "/v1beta/models/a%2Fb:generate" || seen.URL.RawQuery != "x=1" {
		t.Errorf("got %s %s (%s) ?%s, want the request as sent", seen.Method, seen.URL.Path, seen.URL.EscapedPath(), seen.URL.RawQuery)
	}
	if seen.Header.Get("X-Api-Key") != "k" {
		t.Errorf("got header %v, want X-Api-Key k", seen.Header)
	}
	if m := seen.JSON(t); m["model"] != "m" {
		t.Errorf("got body %v, want model m", m)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("got %d requests, want 1", n)
	}
}

func TestServeDefaults(t *testing.T) {
	srv := Serve(t, Answer{Body: "{}", AnyBody: true})
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("got %d %q, want 200 application/json", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

func TestServeWantsJSONObjects(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		anyBody   bool
		wantFails int
	}{
		{"object", `{"a":1}`, false, 0},
		{"list", `[1]`, false, 1},
		{"no body", ``, false, 1},
		{"no body accepted", ``, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs := run(func(ft testing.TB) {
				srv := Serve(ft, Answer{AnyBody: tc.anyBody})
				resp, err := http.Post(srv.URL, "application/json", strings.NewReader(tc.body))
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
			})
			if len(msgs) != tc.wantFails {
				t.Errorf("got failures %q, want %d", msgs, tc.wantFails)
			}
		})
	}
}

func TestLastAndJSONFail(t *testing.T) {
	srv := Serve(t, Answer{})
	if msgs := run(func(t testing.TB) { srv.Last(t) }); len(msgs) != 1 || msgs[0] != "server saw no request" {
		t.Errorf("Last on a server without requests: got %q, want one failure", msgs)
	}
	if msgs := run(func(t testing.TB) { Request{Body: []byte("[1]")}.JSON(t) }); len(msgs) != 1 || !strings.Contains(msgs[0], "not a JSON object") {
		t.Errorf("JSON of a list: got %q, want one failure", msgs)
	}
}

func TestChecks(t *testing.T) {
	const key = "ak-test-0123456789"
	rateLimited := &provider.Error{StatusCode: 429, Retryable: true, RetryAfter: 3 * time.Second, Message: "rate_limit_error: slow down"}
	want := WantError{Status: 429, Retryable: true, After: 3 * time.Second, Msg: "slow down"}
	resp := &promptcanary.Response{Content: "hi", RawResponse: json.RawMessage(`{"a":1}`)}
	tests := []struct {
		name      string
		check     func(t testing.TB)
		wantFails int
		wantMsg   string
	}{
		{"no leak", func(t testing.TB) { NoLeak(t, errors.New("bad key [REDACTED]"), key) }, 0, ""},
		{"no leak in nil", func(t testing.TB) { NoLeak(t, nil, key) }, 0, ""},
		{"leak", func(t testing.TB) { NoLeak(t, errors.New("bad key "+key), "other", key) }, 1, "leaks"},
		{"error as wanted", func(t testing.TB) { CheckError(t, rateLimited, want, key) }, 0, ""},
		{"error wrapped", func(t testing.TB) { CheckError(t, fmt.Errorf("call: %w", rateLimited), want) }, 0, ""},
		{"no error", func(t testing.TB) { CheckError(t, nil, want) }, 1, "want one"},
		{"not a provider error", func(t testing.TB) { CheckError(t, errors.New("x"), want) }, 1, "want *provider.Error"},
		{"wrong classification", func(t testing.TB) { CheckError(t, rateLimited, WantError{Status: 429, Msg: "slow"}) }, 1, "got status 429 retryable true"},
		{"wrong message", func(t testing.TB) {
			CheckError(t, rateLimited, WantError{Status: 429, Retryable: true, After: 3 * time.Second, Msg: "quota"})
		}, 1, "want it to contain"},
		{"error leaks", func(t testing.TB) { CheckError(t, rateLimited, want, "slow") }, 1, "leaks"},
		{"contains all", func(t testing.TB) { ErrorContains(t, errors.New("a\nb"), []string{"a", "b"}, key) }, 0, ""},
		{"contains some", func(t testing.TB) { ErrorContains(t, errors.New("a"), []string{"a", "b", "c"}) }, 2, "want it to contain"},
		{"contains on nil", func(t testing.TB) { ErrorContains(t, nil, []string{"a"}) }, 1, "got nil error"},
		{"response as wanted", func(t testing.TB) { CheckResponse(t, resp, `{"a":1}`, promptcanary.Response{Content: "hi"}) }, 0, ""},
		{"raw response differs", func(t testing.TB) { CheckResponse(t, resp, `{"a":2}`, promptcanary.Response{Content: "hi"}) }, 1, "raw response"},
		{"response differs", func(t testing.TB) { CheckResponse(t, resp, `{"a":1}`, promptcanary.Response{Content: "ho"}) }, 1, "response (-want +got)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs := run(tc.check)
			if len(msgs) != tc.wantFails {
				t.Fatalf("got failures %q, want %d", msgs, tc.wantFails)
			}
			for _, m := range msgs {
				if !strings.Contains(m, tc.wantMsg) {
					t.Errorf("got failure %q, want it to contain %q", m, tc.wantMsg)
				}
			}
		})
	}
	if string(resp.RawResponse) != `{"a":1}` {
		t.Errorf("CheckResponse changed the response: got raw %s", resp.RawResponse)
	}
}

func TestCheckDeadlineAndServerDown(t *testing.T) {
	const key = "ak-test-0123456789"
	call := func(ctx context.Context, url string) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &provider.Error{Retryable: true, Message: "transport: " + key}
	}
	if msgs := run(func(t testing.TB) { CheckDeadline(t, 10*time.Millisecond, call, key) }); len(msgs) != 0 {
		t.Errorf("deadline honoured: got failures %q, want none", msgs)
	}
	if msgs := run(func(t testing.TB) {
		CheckDeadline(t, 10*time.Millisecond, func(context.Context, string) error { return errors.New("final") })
	}); len(msgs) != 1 {
		t.Errorf("final error at the deadline: got failures %q, want one", msgs)
	}
	if msgs := run(func(t testing.TB) {
		CheckServerDown(t, func(url string) error { return call(context.Background(), url) }, key)
	}); len(msgs) != 1 || !strings.Contains(msgs[0], "leaks") {
		t.Errorf("server down with a leaking error: got failures %q, want one about the leak", msgs)
	}
}
