package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// testToken is the admin token of the tests.
const testToken = "s3cret-admin-token-Zq9"

// newTestServer returns the dashboard over the fixture; actions are on
// with testToken.
func newTestServer(t *testing.T, o fixtureOptions) (*httptest.Server, *fakeSource, *memStore, *fixture) {
	t.Helper()
	src, mem, f := newFixture(t, o)
	h := New(Options{Source: src, AdminToken: testToken, ActionsAllowed: true, Now: func() time.Time { return fixtureNow },
		Metrics: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "promptcanary_up 1\n") })})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, src, mem, f
}

// get fetches path without following redirects.
func get(t *testing.T, srv *httptest.Server, path string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// pagePaths are the fixture's pages.
func pagePaths(f *fixture) map[string]string {
	return map[string]string{
		"overview":  "/",
		"check":     CheckPath(f.check, f.provider),
		"run":       RunPath(f.driftRun),
		"runplain":  RunPath(f.cleanRun),
		"incidents": "/incidents",
		"incident":  IncidentPath(f.driftIncident),
		"login":     "/login",
	}
}

func TestPages(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{})
	want := map[string][]string{
		"overview":  {"checkout-prod", "openai/gpt-4o-mini", "support-bot", `class="sparkline"`, "no baseline", "stale", "running", IncidentPath(f.driftIncident)},
		"check":     {`class="history"`, `class="band"`, `class="heatmap"`, "mentions_total", "Recent runs", "drift confirmed by a second run", IncidentPath(f.driftIncident), "<dt>Confirmation</dt><dd>20m after a run that flags drift</dd>"},
		"run":       {"Baseline answer", "Current answer", `class="regression"`, CheckPath(f.check, f.provider), "against baseline"},
		"runplain":  {"No drift report compares this run", "Pass rate"},
		"incidents": {f.driftIncident[:8], "json_valid regressed on gift-card", "resolved", "acknowledged"},
		"incident":  {"Flagged units", "mentions_total/order-status", "500 Internal Server Error", "context deadline exceeded", "delivered", "failed", "Timeline"},
		"login":     {`name="token"`, `type="password"`},
	}
	for name, path := range pagePaths(f) {
		t.Run(name, func(t *testing.T) {
			resp, body := get(t, srv, path)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET %s: status %d, want 200\n%s", path, resp.StatusCode, body)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			for _, w := range want[name] {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s: the page lacks %q", path, w)
				}
			}
		})
	}
}

func TestSecurityHeaders(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{})
	for _, path := range []string{"/", CheckPath(f.check, f.provider), "/api/v1/checks", "/healthz", "/nope", "/static/dashboard.css"} {
		resp, _ := get(t, srv, path)
		if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q, want nosniff", path, got)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("%s: Content-Security-Policy %q", path, csp)
		}
	}
}

func TestPageStatuses(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{})
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/checks/nope/openai%2Fgpt-4o-mini", http.StatusNotFound},
		{"/runs/no-such-run", http.StatusNotFound},
		{"/incidents/ffffffffffff", http.StatusNotFound},
		{"/incidents/" + f.driftIncident[:6], http.StatusOK}, // an id prefix
		{"/nope", http.StatusNotFound},
		{"/static/nope.css", http.StatusNotFound},
		{"/static/dashboard.css", http.StatusOK},
		{"/static/dashboard.js", http.StatusOK},
		{"/metrics", http.StatusOK},
	} {
		resp, body := get(t, srv, tc.path)
		if resp.StatusCode != tc.want {
			t.Errorf("GET %s: status %d, want %d\n%.300s", tc.path, resp.StatusCode, tc.want, body)
		}
	}
}

func TestProviderPathEncoding(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{})
	for _, tc := range []struct {
		provider, path string
	}{
		{"openai/gpt-4o-mini", "/checks/checkout-prod/openai%2Fgpt-4o-mini"},
		{"exec/./model.sh --x", "/checks/c/exec%2F.%2Fmodel.sh%20--x"},
		{"replay/../x?y#z", "/checks/c/replay%2F..%2Fx%3Fy%23z"},
	} {
		if got := CheckPath(strings.Split(tc.path, "/")[2], tc.provider); got != tc.path {
			t.Errorf("CheckPath(%q) = %q, want %q", tc.provider, got, tc.path)
		}
	}
	// The escaped form and the provider's slashes typed as they are reach
	// the same page.
	for _, path := range []string{CheckPath(f.check, f.provider), "/checks/checkout-prod/openai/gpt-4o-mini"} {
		resp, body := get(t, srv, path)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<span class="provider mono">openai/gpt-4o-mini</span>`) {
			t.Errorf("GET %s: status %d, want the check page of openai/gpt-4o-mini", path, resp.StatusCode)
		}
	}
	// A provider with dots and escapes survives the round trip through the
	// router: the page of a check that exists only in the history.
	src, mem, _ := newFixture(t, fixtureOptions{hourly: 2})
	odd := "exec/./model.sh ../x?y#z%2F"
	cr := *src.statuses[0].Last
	cr.ID, cr.Check, cr.Provider = "odd-cr", "odd", odd
	if err := mem.SaveCheckRun(context.Background(), &cr); err != nil {
		t.Fatal(err)
	}
	srv2 := httptest.NewServer(New(Options{Source: src, Now: func() time.Time { return fixtureNow }}))
	defer srv2.Close()
	resp, body := get(t, srv2, CheckPath("odd", odd))
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "exec/./model.sh ../x?y#z%2F") {
		t.Errorf("GET %s: status %d, want the page of provider %q\n%.500s", CheckPath("odd", odd), resp.StatusCode, odd, body)
	}
}

func TestHealth(t *testing.T) {
	srv, src, _, _ := newTestServer(t, fixtureOptions{hourly: 2})
	resp, body := get(t, srv, "/healthz")
	if resp.StatusCode != 200 || strings.TrimSpace(body) != "ok" {
		t.Errorf("/healthz: %d %q", resp.StatusCode, body)
	}
	resp, body = get(t, srv, "/readyz")
	if resp.StatusCode != 200 || strings.TrimSpace(body) != "ok" {
		t.Errorf("/readyz: %d %q", resp.StatusCode, body)
	}
	src.ready = errors.New("store: database is locked")
	resp, body = get(t, srv, "/readyz")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "database is locked") {
		t.Errorf("/readyz of a source that is not ready: %d %q, want 503 with the reason", resp.StatusCode, body)
	}
}

func TestNoMetrics(t *testing.T) {
	src, _, _ := newFixture(t, fixtureOptions{hourly: 2})
	srv := httptest.NewServer(New(Options{Source: src}))
	defer srv.Close()
	if resp, _ := get(t, srv, "/metrics"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/metrics without a metrics handler: %d, want 404", resp.StatusCode)
	}
}

func TestNewPanicsWithoutSource(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New without a source did not panic")
		}
	}()
	New(Options{})
}

func TestRunPageFindsReport(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{})
	// Without ?report= the page finds the run's report, and the
	// confirmation run's page says what it is.
	for _, tc := range []struct{ path, want string }{
		{RunPath(f.driftRun), "Baseline answer"},
		{RunPath(f.confirmRun), "confirmation run"},
		{runReportPath(f.driftRun, f.driftRep), "Baseline answer"},
		// A report of another run is not shown as this run's.
		{runReportPath(f.cleanRun, f.driftRep), "No drift report compares this run"},
	} {
		resp, body := get(t, srv, tc.path)
		if resp.StatusCode != 200 || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: %d, want a page with %q", tc.path, resp.StatusCode, tc.want)
		}
	}
}

func TestIncidentsFilter(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{})
	_, open := get(t, srv, "/incidents?state=open")
	if !strings.Contains(open, f.driftIncident[:8]) || strings.Contains(open, f.resolvedIncident) {
		t.Error("?state=open does not list only the open incidents")
	}
	_, resolved := get(t, srv, "/incidents?state=resolved")
	if strings.Contains(resolved, IncidentPath(f.driftIncident)) || !strings.Contains(resolved, IncidentPath(f.resolvedIncident)) {
		t.Error("?state=resolved does not list only the resolved incidents")
	}
	_, all := get(t, srv, "/incidents")
	if i, j := strings.Index(all, IncidentPath(f.driftIncident)), strings.Index(all, IncidentPath(f.resolvedIncident)); i < 0 || j < 0 || i > j {
		t.Error("the open incident is not listed before the resolved one")
	}
	_, byCheck := get(t, srv, "/incidents?check="+url.QueryEscape("support-bot"))
	if strings.Contains(byCheck, IncidentPath(f.driftIncident)) || !strings.Contains(byCheck, IncidentPath(f.unmeasuredIncident)) {
		t.Error("?check= does not keep the check's incidents")
	}
}

// The check page of a check with run_level: true says that the run-level
// rule judges its suite, with how many reference runs, and whether it
// applies yet; with a control, what its control window learned.
func TestCheckPageRunLevel(t *testing.T) {
	src, _, _ := newFixture(t, fixtureOptions{hourly: 2})
	for i, tc := range []struct {
		rl   *RunLevel
		want string
	}{
		{nil, ""},
		{&RunLevel{BaselineRuns: 6, Learned: 60, Applies: true, Open: 2}, "run-level rule, 66 reference runs (6 of the baseline, 60 clean); window open (2 of at most 4 runs)"},
		{&RunLevel{BaselineRuns: 1, Learned: 3}, "run-level rule, 4 reference runs (1 of the baseline, 3 clean); not applied yet (needs 6 that spread beyond sampling)"},
		{&RunLevel{BaselineRuns: 6, Learned: 60, Applies: true, Control: &ControlWindow{Learned: 60, Applies: true, Held: 3}},
			"<span class=\"mono\">sim/stable</span>; the suite is also judged against it (run_level: true): 60 clean runs' differences learned, the mean of the last 3 runs tested"},
		{&RunLevel{BaselineRuns: 6, Learned: 60, Applies: true, Control: &ControlWindow{Learned: 60, Applies: true, Held: 4}},
			"60 clean runs' differences learned, the means of the last 3 to 4 runs tested"},
		{&RunLevel{BaselineRuns: 6, Learned: 4, Control: &ControlWindow{Learned: 4}},
			"the suite is also judged against it (run_level: true): 4 clean runs' differences learned, not applied yet (needs 6 that spread)"},
	} {
		src.statuses[0].RunLevel = tc.rl
		src.statuses[0].Control = ""
		if tc.rl != nil && tc.rl.Control != nil {
			src.statuses[0].Control = "sim/stable"
		}
		srv := httptest.NewServer(New(Options{Source: src, Now: func() time.Time { return fixtureNow }}))
		_, body := get(t, srv, CheckPath(src.statuses[0].Check, src.statuses[0].Provider))
		srv.Close()
		if tc.want == "" && strings.Contains(body, "Suite judged by") || tc.want != "" && !strings.Contains(body, tc.want) {
			t.Errorf("case %d: the check page does not say %q:\n%.3000s", i, tc.want, body)
		}
	}
}
