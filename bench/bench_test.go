package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
)

func TestIdeal(t *testing.T) {
	tests := []struct {
		name    string
		n, c    int
		latency time.Duration
		want    time.Duration
	}{
		{"issue target", 200, 16, 50 * time.Millisecond, 650 * time.Millisecond},
		{"sequential", 200, 1, 5 * time.Millisecond, time.Second},
		{"wide", 1000, 64, 50 * time.Millisecond, 800 * time.Millisecond},
		{"exact waves", 64, 16, 10 * time.Millisecond, 40 * time.Millisecond},
		{"fewer calls than slots", 10, 64, 50 * time.Millisecond, 50 * time.Millisecond},
		{"no latency", 200, 16, 0, 0},
		{"no calls", 0, 16, 50 * time.Millisecond, 0},
		{"no concurrency", 10, 0, 50 * time.Millisecond, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ideal(tc.n, tc.c, tc.latency); got != tc.want {
				t.Errorf("ideal(%d, %d, %v): got %v, want %v", tc.n, tc.c, tc.latency, got, tc.want)
			}
		})
	}
}

func TestDecide(t *testing.T) {
	mixed := serverConfig{FailTimeout: 0.1, Fail429: 0.2, Fail500: 0.3}
	tests := []struct {
		name string
		u    float64
		cfg  serverConfig
		want outcome
	}{
		{"no failures", 0, serverConfig{}, answer},
		{"all 429", 0.999, serverConfig{Fail429: 1}, rateLimit},
		{"all 500", 0, serverConfig{Fail500: 1}, serverError},
		{"all hang", 0.5, serverConfig{FailTimeout: 1}, hang},
		{"mixed hang", 0.05, mixed, hang},
		{"mixed 429", 0.1, mixed, rateLimit},
		{"mixed 500", 0.35, mixed, serverError},
		{"mixed answer", 0.7, mixed, answer},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := decide(tc.u, tc.cfg); got != tc.want {
				t.Errorf("decide(%v): got %v, want %v", tc.u, got, tc.want)
			}
		})
	}
}

func TestJittered(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name            string
		latency, jitter time.Duration
		u               float64
		want            time.Duration
	}{
		{"no jitter", 50 * ms, 0, 0.9, 50 * ms},
		{"low end", 50 * ms, 10 * ms, 0, 40 * ms},
		{"middle", 50 * ms, 10 * ms, 0.5, 50 * ms},
		{"high end", 50 * ms, 10 * ms, 0.75, 55 * ms},
		{"floored at zero", 5 * ms, 20 * ms, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := jittered(tc.latency, tc.jitter, tc.u); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// post sends one chat completion request to the server at url.
func post(ctx context.Context, url string) (*http.Response, []byte, error) {
	body := `{"model":"bench-model","messages":[{"role":"user","content":"Return a JSON object."}]}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+completionsPath, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

func TestFakeServerFailureInjection(t *testing.T) {
	tests := []struct {
		name           string
		cfg            serverConfig
		wantStatus     int
		wantRetryAfter string
		wantRetryMs    string
		wantType       string
		wantCounts     serverCounts
	}{
		{
			name:       "429 at rate 1",
			cfg:        serverConfig{Fail429: 1, RetryAfter: 10 * time.Millisecond},
			wantStatus: http.StatusTooManyRequests, wantRetryAfter: "1", wantRetryMs: "10", wantType: "requests",
			wantCounts: serverCounts{Requests: 1, RateLimited: 1, Conns: 1},
		},
		{
			name:       "429 asking for no delay",
			cfg:        serverConfig{Fail429: 1},
			wantStatus: http.StatusTooManyRequests, wantRetryAfter: "0", wantRetryMs: "0", wantType: "requests",
			wantCounts: serverCounts{Requests: 1, RateLimited: 1, Conns: 1},
		},
		{
			name:       "500 at rate 1",
			cfg:        serverConfig{Fail500: 1, RetryAfter: 10 * time.Millisecond},
			wantStatus: http.StatusInternalServerError, wantType: "server_error",
			wantCounts: serverCounts{Requests: 1, ServerErrors: 1, Conns: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs, srv := startFake(t, tc.cfg)
			resp, data, err := post(context.Background(), srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status: got %d, want %d", resp.StatusCode, tc.wantStatus)
			}
			if got := resp.Header.Get("Retry-After"); got != tc.wantRetryAfter {
				t.Errorf("Retry-After: got %q, want %q", got, tc.wantRetryAfter)
			}
			if got := resp.Header.Get("Retry-After-Ms"); got != tc.wantRetryMs {
				t.Errorf("retry-after-ms: got %q, want %q", got, tc.wantRetryMs)
			}
			var e apiError
			if err := json.Unmarshal(data, &e); err != nil {
				t.Fatalf("error body %s: %v", data, err)
			}
			if e.Error.Type != tc.wantType || e.Error.Message == "" {
				t.Errorf("error body: got type %q message %q, want type %q and a message", e.Error.Type, e.Error.Message, tc.wantType)
			}
			srv.CloseClientConnections()
			if got := fs.counts(); got != tc.wantCounts {
				t.Errorf("counts: got %+v, want %+v", got, tc.wantCounts)
			}
		})
	}
}

// startFake starts a fake server with cfg; when the test ends it is shut
// down, then closed.
func startFake(t *testing.T, cfg serverConfig) (*fakeServer, *httptest.Server) {
	fs := newFakeServer(cfg)
	srv := fs.start()
	t.Cleanup(srv.Close)
	t.Cleanup(fs.shutdown)
	return fs, srv
}

func TestFakeServerRetryAfterReachesEngine(t *testing.T) {
	_, srv := startFake(t, serverConfig{Fail429: 1, RetryAfter: 1500 * time.Millisecond})
	p, _, err := openClient(srv.URL, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Generate(context.Background(), &provider.Request{Prompt: &promptcanary.Prompt{ID: "p", Text: "hi"}})
	var pe *provider.Error
	if !errors.As(err, &pe) {
		t.Fatalf("got error %v, want a *provider.Error", err)
	}
	if pe.StatusCode != http.StatusTooManyRequests || !pe.Retryable || pe.RetryAfter != 1500*time.Millisecond {
		t.Errorf("got status %d retryable %v retry after %v, want 429 true 1.5s", pe.StatusCode, pe.Retryable, pe.RetryAfter)
	}
}

func TestFakeServerAnswerThroughClient(t *testing.T) {
	fs, srv := startFake(t, serverConfig{})
	p, _, err := openClient(srv.URL, 4)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Generate(context.Background(), &provider.Request{
		Prompt: &promptcanary.Prompt{ID: "p", Text: "Return a JSON object with an answer."},
		Config: promptcanary.ProviderConfig{ModelID: benchProvider},
	})
	if err != nil {
		t.Fatal(err)
	}
	var content map[string]any
	if err := json.Unmarshal([]byte(resp.Content), &content); err != nil {
		t.Errorf("content %q is not a JSON object: %v", resp.Content, err)
	}
	checks := []struct {
		field     string
		got, want any
	}{
		{"content status", content["status"], "ok"},
		{"served model", resp.ServedModel, "bench-model"},
		{"fingerprint", resp.SystemFingerprint, benchFingerprint},
		{"response id", resp.ResponseID, "chatcmpl-bench000000000001"},
		{"finish reason", resp.FinishReason, "stop"},
		{"completion tokens", resp.CompletionTokens, 18},
		{"total tokens", resp.TotalTokens, resp.PromptTokens + 18},
		{"server ok count", fs.counts().OK, int64(1)},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.field, c.got, c.want)
		}
	}
	if resp.PromptTokens <= 0 {
		t.Errorf("prompt tokens: got %d, want > 0", resp.PromptTokens)
	}
}

func TestFakeServerHangsUntilClientGivesUp(t *testing.T) {
	fs, srv := startFake(t, serverConfig{FailTimeout: 1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := post(ctx, srv.URL)
		done <- err
	}()
	for fs.counts().Hung == 0 {
		runtime.Gosched()
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("got error %v, want context.Canceled", err)
	}
	if got := fs.counts(); got.Requests != 1 || got.Hung != 1 || got.OK != 0 {
		t.Errorf("counts: got %+v, want 1 request, 1 hung, 0 ok", got)
	}
}

func TestFakeServerRejects(t *testing.T) {
	fs, srv := startFake(t, serverConfig{})
	tests := []struct {
		name, method, path, body string
		want                     int
	}{
		{"wrong path", http.MethodPost, "/v1/completions", `{}`, http.StatusNotFound},
		{"wrong method", http.MethodGet, completionsPath, "", http.StatusMethodNotAllowed},
		{"malformed body", http.MethodPost, completionsPath, `{"model":`, http.StatusBadRequest},
		{"no messages", http.MethodPost, completionsPath, `{"model":"m","messages":[]}`, http.StatusBadRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("got status %d, want %d", resp.StatusCode, tc.want)
			}
		})
	}
	if got := fs.counts().OK; got != 0 {
		t.Errorf("ok count: got %d, want 0", got)
	}
}

// small returns a quick scenario against a server without latency.
func small(n, c int) scenario {
	return scenario{Name: "test", Calls: n, Concurrency: c, Samples: 1, MaxAttempts: 4, BackoffBase: time.Microsecond, Timeout: 10 * time.Second}
}

func TestRunScenario(t *testing.T) {
	failing500 := small(12, 4)
	failing500.Server.Fail500, failing500.MaxAttempts = 1, 2
	failing429 := small(6, 3)
	failing429.Server.Fail429, failing429.Server.RetryAfter, failing429.MaxAttempts = 1, time.Millisecond, 3
	// Rate limits are retried while the budget lasts, whatever the
	// attempts: a small budget ends the run.
	failing429.MaxRetryWait = 30 * time.Millisecond
	sampled := small(12, 5)
	sampled.Samples, sampled.IdleConns = 3, 5
	tests := []struct {
		name                              string
		sc                                scenario
		wantResp, wantErrs, wantAttempts  int
		wantRequests, wantOK, wantLimited int64
		wantServerErr                     int64
	}{
		{name: "all answered", sc: small(12, 4), wantResp: 12, wantAttempts: 12, wantRequests: 12, wantOK: 12},
		{name: "samples", sc: sampled, wantResp: 12, wantAttempts: 12, wantRequests: 12, wantOK: 12},
		{name: "all 500", sc: failing500, wantErrs: 12, wantAttempts: 24, wantRequests: 24, wantServerErr: 24},
		{name: "all 429", sc: failing429, wantErrs: 6, wantAttempts: -1, wantRequests: -1, wantLimited: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := runScenario(context.Background(), tc.sc)
			if err != nil {
				t.Fatal(err)
			}
			got := []int64{int64(res.Responses), int64(res.Errors), int64(res.Attempts), res.Server.Requests, res.Server.OK, res.Server.RateLimited, res.Server.ServerErrors}
			want := []int64{int64(tc.wantResp), int64(tc.wantErrs), int64(tc.wantAttempts), tc.wantRequests, tc.wantOK, tc.wantLimited, tc.wantServerErr}
			if tc.wantAttempts < 0 {
				// As many as the budget allowed: every attempt a 429, at
				// least the 3 first ones of each of the 3 calls in flight.
				n := int64(res.Attempts)
				if n < 9 || res.Server.Requests != n || res.Server.RateLimited != n {
					t.Errorf("attempts, requests, 429s: got %d %d %d, want equal and at least 9", n, res.Server.Requests, res.Server.RateLimited)
				}
				want[2], want[3], want[5] = got[2], got[3], got[5]
			}
			if !slices.Equal(got, want) {
				t.Errorf("responses, errors, attempts, requests, ok, 429, 500: got %v, want %v", got, want)
			}
			if res.Ideal != 0 {
				t.Errorf("ideal without latency: got %v, want 0", res.Ideal)
			}
			if res.Alloc == 0 {
				t.Errorf("alloc: got 0, want the bytes the run allocated")
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*scenario)
		want   string
	}{
		{"valid", func(*scenario) {}, ""},
		{"no calls", func(s *scenario) { s.Calls = 0 }, "-n 0: want at least 1 call"},
		{"no concurrency", func(s *scenario) { s.Concurrency = 0 }, "-c 0: want at least 1"},
		{"samples do not divide", func(s *scenario) { s.Samples = 5 }, "-n 12 is not a multiple of -samples 5"},
		{"rate above 1", func(s *scenario) { s.Server.Fail429 = 1.5 }, "-fail-429 1.5: want a fraction in [0, 1]"},
		{"rates add up past 1", func(s *scenario) { s.Server.Fail429, s.Server.Fail500 = 0.6, 0.6 }, "failure rates add up to 1.2"},
		{"hang without timeout", func(s *scenario) { s.Server.FailTimeout, s.Timeout = 0.1, 0 }, "-fail-timeout needs a positive -timeout"},
		{"negative latency", func(s *scenario) { s.Server.Latency = -time.Millisecond }, "must not be negative"},
		{"no attempts", func(s *scenario) { s.MaxAttempts = 0 }, "-attempts 0: want at least 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := small(12, 4)
			tc.modify(&sc)
			err := sc.validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBuildPlan(t *testing.T) {
	sc := small(10, 2)
	sc.Samples = 2
	plan, err := buildPlan(&sc)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(plan.Items), 5; got != want {
		t.Fatalf("items: got %d, want %d", got, want)
	}
	if got, want := plan.Samples, 2; got != want {
		t.Errorf("samples: got %d, want %d", got, want)
	}
	if got, want := plan.Config.ModelID, benchProvider; got != want {
		t.Errorf("model: got %q, want %q", got, want)
	}
	for _, it := range plan.Items {
		var ids []string
		for _, in := range it.Probes {
			ids = append(ids, in.Type)
		}
		if got, want := strings.Join(ids, ","), "json_validity,direct_answer"; got != want {
			t.Errorf("probes of %s: got %s, want %s", it.Prompt.ID, got, want)
		}
	}
	if got, want := plan.Items[4].Prompt.ID, "p00004"; got != want {
		t.Errorf("last prompt id: got %q, want %q", got, want)
	}
}

func TestCells(t *testing.T) {
	sc := small(200, 16)
	sc.Name = "issue target"
	sc.Server.Latency = 50 * time.Millisecond
	sc.Server.Fail429, sc.Server.Fail500 = 0.05, 0.05
	r := &result{
		Scenario: sc, Wall: 1300 * time.Millisecond, Ideal: 650 * time.Millisecond,
		CPU: 40 * time.Millisecond, CPUOK: true, PeakRSS: 15 << 20, Alloc: 200 * 20 * 1024,
		Responses: 200, Attempts: 222, Server: serverCounts{Conns: 30},
	}
	got := strings.Join(cells(r), " | ")
	want := "issue target | 200 | 16 | 50 ms | 5% 429 + 5% 500 | 1300 ms | 650 ms | 50% | 40 ms | 200 µs | 15.0 MiB | 20.0 KiB | 154 | 222 | 0 | 30"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if n, m := len(cells(r)), len(tableHeader); n != m {
		t.Errorf("cells: got %d, want %d (one per header)", n, m)
	}

	r.Ideal, r.CPUOK, r.PeakRSS = 0, false, 0
	r.Scenario.Server = serverConfig{FailTimeout: 0.02, Jitter: 5 * time.Millisecond}
	r.Scenario.Samples = 4
	got = strings.Join(cells(r), " | ")
	want = "issue target | 200 | 16 | 0 ms ± 5.00 ms (4 samples) | 2% hang | 1300 ms | – | – | n/a | n/a | n/a | 20.0 KiB | 154 | 222 | 0 | 30"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0 ms"},
		{1500 * time.Microsecond, "1.50 ms"},
		{50 * time.Millisecond, "50 ms"},
		{1076 * time.Millisecond, "1076 ms"},
		{12340 * time.Millisecond, "12.3 s"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := formatDuration(tc.d); got != tc.want {
				t.Errorf("formatDuration(%v): got %q, want %q", tc.d, got, tc.want)
			}
		})
	}
}

func TestParseHWM(t *testing.T) {
	tests := []struct {
		name, status string
		want         int64
	}{
		{"linux status", "Name:\tbench\nVmPeak:\t 1300 kB\nVmHWM:\t   15716 kB\nVmRSS:\t 15000 kB\n", 15716 * 1024},
		{"missing", "Name:\tbench\n", 0},
		{"other unit", "VmHWM:\t 12 MB\n", 0},
		{"garbage", "VmHWM:\t lots kB\n", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseHWM(tc.status); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCustom bool
		wantCalls  int
		wantErr    string
	}{
		{"defaults run the matrix", nil, false, 200, ""},
		{"engine knobs keep the matrix", []string{"-timeout", "2s", "-backoff", "1ms"}, false, 200, ""},
		{"a scenario flag runs one scenario", []string{"-n", "50"}, true, 50, ""},
		{"failure rate is a scenario flag", []string{"-fail-500", "0.1"}, true, 200, ""},
		{"bad rate", []string{"-fail-429", "2"}, false, 0, "-fail-429 2: want a fraction in [0, 1]\nfailure rates add up to 2: want at most 1"},
		{"stray argument", []string{"extra"}, false, 0, `unexpected arguments ["extra"]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseFlags(tc.args, io.Discard)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("got error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.isCustom != tc.wantCustom || o.custom.Calls != tc.wantCalls {
				t.Errorf("got custom %v calls %d, want %v %d", o.isCustom, o.custom.Calls, tc.wantCustom, tc.wantCalls)
			}
		})
	}
}

func TestMatrix(t *testing.T) {
	base := small(1, 1)
	base.Timeout = 3 * time.Second
	m := matrix(base)
	want := []struct {
		n, c    int
		latency time.Duration
		fails   float64
	}{
		{200, 16, 50 * time.Millisecond, 0},
		{200, 1, 5 * time.Millisecond, 0},
		{1000, 64, 50 * time.Millisecond, 0},
		{1000, 64, 50 * time.Millisecond, 0},
		{200, 16, 50 * time.Millisecond, 0.1},
		{200, 16, 50 * time.Millisecond, 0.3},
		{1000, 16, 0, 0},
	}
	if len(m) != len(want) {
		t.Fatalf("got %d scenarios, want %d", len(m), len(want))
	}
	for i, w := range want {
		sc := m[i]
		fails := sc.Server.Fail429 + sc.Server.Fail500 + sc.Server.FailTimeout
		if sc.Calls != w.n || sc.Concurrency != w.c || sc.Server.Latency != w.latency || fails != w.fails || sc.Timeout != base.Timeout {
			t.Errorf("scenario %d (%s): got N=%d C=%d latency=%v failures=%v timeout=%v, want %d %d %v %v %v",
				i, sc.Name, sc.Calls, sc.Concurrency, sc.Server.Latency, fails, sc.Timeout, w.n, w.c, w.latency, w.fails, base.Timeout)
		}
		if err := sc.validate(); err != nil {
			t.Errorf("scenario %d (%s): %v", i, sc.Name, err)
		}
	}
	if got, want := m[3].IdleConns, 64; got != want {
		t.Errorf("pooled row idle conns: got %d, want %d", got, want)
	}
	if got, want := m[2].IdleConns, 0; got != want {
		t.Errorf("wide row idle conns: got %d, want %d (http.DefaultClient, as the CLI)", got, want)
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		wantErr  string
	}{
		{"custom scenario", []string{"-n", "4", "-c", "2", "-latency", "0"}, exitOK, "| custom | 4 | 2 | 0 ms | – |", ""},
		{"flag error", []string{"-c", "0"}, exitUsage, "", "bench: error: -c 0: want at least 1"},
		{"bad child spec", []string{"-" + childFlag, "{"}, exitUsage, "", "bench: error: decode scenario"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			if code != tc.wantCode {
				t.Errorf("exit code: got %d, want %d (stderr %s)", code, tc.wantCode, errb.String())
			}
			if !strings.Contains(out.String(), tc.wantOut) {
				t.Errorf("stdout: got %q, want it to contain %q", out.String(), tc.wantOut)
			}
			if !strings.Contains(errb.String(), tc.wantErr) {
				t.Errorf("stderr: got %q, want it to contain %q", errb.String(), tc.wantErr)
			}
		})
	}
}
