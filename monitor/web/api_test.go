package web

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// decode decodes a JSON answer into v, failing on any other content type.
func decode(t *testing.T, resp *http.Response, body string, v any) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Fatalf("Content-Type %q, want JSON\n%s", ct, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

func TestAPIChecks(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{hourly: 24, reports: 2})
	resp, body := get(t, srv, "/api/v1/checks")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	var got struct {
		Checks []APICheck `json:"checks"`
	}
	decode(t, resp, body, &got)
	if len(got.Checks) != 5 {
		t.Fatalf("%d checks, want 5", len(got.Checks))
	}
	states := map[string]State{}
	for _, c := range got.Checks {
		states[c.Check+" "+c.Provider] = c.State
	}
	want := map[string]State{
		f.check + " " + f.provider:      StateDrift,
		f.check + " " + f.otherProvider: StateClean,
		"support-bot sim/flaky":         StateUnmeasured,
		"nightly-eval openai/gpt-4o":    StateStale,
		"summarizer ollama/llama3.1:8b": StateNoBaseline,
	}
	for k, w := range want {
		if states[k] != w {
			t.Errorf("state of %s = %q, want %q", k, states[k], w)
		}
	}
	c := got.Checks[0]
	if c.Last == nil || c.Last.RunID != f.driftRun || len(c.Open) != 1 || c.Open[0].ID != f.driftIncident || c.URL != "/checks/checkout-prod/openai%2Fgpt-4o-mini" {
		t.Errorf("first check %+v: want its last run, open incident and page", c)
	}
	// Lists are arrays, never null.
	if !strings.Contains(body, `"open": []`) {
		t.Error("a check without incidents does not list them as []")
	}
}

func TestAPIRuns(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{hourly: 24, reports: 2})
	for _, tc := range []struct {
		query string
		n     int
	}{
		{"?check=checkout-prod&provider=openai%2Fgpt-4o-mini", 24},
		{"?check=checkout-prod&provider=openai%2Fgpt-4o-mini&limit=5", 5},
		{"?check=checkout-prod", 48},
		{"?check=support-bot&limit=2", 2},
		{"?check=nope", 0},
	} {
		resp, body := get(t, srv, "/api/v1/runs"+tc.query)
		var got struct {
			Runs []promptcanary.CheckRun `json:"runs"`
		}
		decode(t, resp, body, &got)
		if resp.StatusCode != 200 || len(got.Runs) != tc.n || got.Runs == nil {
			t.Errorf("runs%s: status %d, %d runs, want %d", tc.query, resp.StatusCode, len(got.Runs), tc.n)
		}
		for i := 1; i < len(got.Runs); i++ {
			if got.Runs[i].Slot.After(got.Runs[i-1].Slot) {
				t.Errorf("runs%s are not newest first", tc.query)
				break
			}
		}
	}
	resp, body := get(t, srv, "/api/v1/runs?check=checkout-prod&provider=openai%2Fgpt-4o-mini&limit=1")
	var one struct {
		Runs []promptcanary.CheckRun `json:"runs"`
	}
	decode(t, resp, body, &one)
	if r := one.Runs[0]; r.RunID != f.driftRun || r.Outcome != promptcanary.CheckDrift || r.ReportID != f.driftRep {
		t.Errorf("the newest run is %+v, want the drifting run with its report", r)
	}
	for _, q := range []string{"?limit=0", "?limit=-3", "?limit=x"} {
		resp, body := get(t, srv, "/api/v1/runs"+q)
		var e struct{ Error string }
		decode(t, resp, body, &e)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(e.Error, "limit") {
			t.Errorf("runs%s: %d %q, want 400 about the limit", q, resp.StatusCode, e.Error)
		}
	}
}

func TestAPIRun(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{hourly: 24, reports: 2})
	resp, body := get(t, srv, "/api/v1/runs/"+f.driftRun)
	var run promptcanary.Run
	decode(t, resp, body, &run)
	if resp.StatusCode != 200 || run.RunID != f.driftRun || len(run.ProbeResults) == 0 || len(run.LLMResponses) == 0 {
		t.Errorf("run %s: status %d, got run %q with %d results", f.driftRun, resp.StatusCode, run.RunID, len(run.ProbeResults))
	}
	// An id prefix names the run too.
	resp, body = get(t, srv, "/api/v1/runs/"+f.driftRun[:8])
	decode(t, resp, body, &run)
	if resp.StatusCode != 200 || run.RunID != f.driftRun {
		t.Errorf("run prefix: status %d, run %q", resp.StatusCode, run.RunID)
	}
	resp, body = get(t, srv, "/api/v1/runs/nope-nope")
	var e struct{ Error string }
	decode(t, resp, body, &e)
	if resp.StatusCode != 404 || !strings.Contains(e.Error, "nope-nope") {
		t.Errorf("unknown run: %d %q, want 404 naming it", resp.StatusCode, e.Error)
	}
}

func TestAPIIncidents(t *testing.T) {
	srv, _, _, f := newTestServer(t, fixtureOptions{hourly: 24, reports: 2})
	for _, tc := range []struct {
		query string
		want  []string
	}{
		// Newest opened first.
		{"", []string{f.unmeasuredIncident, f.driftIncident, f.resolvedIncident}},
		{"?open=1", []string{f.unmeasuredIncident, f.driftIncident}},
		{"?open=1&check=support-bot", []string{f.unmeasuredIncident}},
		{"?limit=1", []string{f.unmeasuredIncident}},
	} {
		resp, body := get(t, srv, "/api/v1/incidents"+tc.query)
		var got struct {
			Incidents []promptcanary.Incident `json:"incidents"`
		}
		decode(t, resp, body, &got)
		var ids []string
		for _, inc := range got.Incidents {
			ids = append(ids, inc.ID)
		}
		if resp.StatusCode != 200 || strings.Join(ids, ",") != strings.Join(tc.want, ",") {
			t.Errorf("incidents%s = %v, want %v", tc.query, ids, tc.want)
		}
	}
	resp, body := get(t, srv, "/api/v1/incidents?open=maybe")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("open=maybe: %d %s, want 400", resp.StatusCode, body)
	}

	resp, body = get(t, srv, "/api/v1/incidents/"+f.driftIncident)
	var one APIIncident
	decode(t, resp, body, &one)
	if resp.StatusCode != 200 || one.Incident == nil || one.Incident.ID != f.driftIncident || len(one.Events) != 3 || len(one.Notifications) != 5 {
		t.Fatalf("incident: %d, got %+v", resp.StatusCode, one)
	}
	if a := one.Notifications[1]; a.OK || a.Code != 500 || !strings.Contains(a.Error, "500 Internal Server Error") {
		t.Errorf("the failed attempt is %+v", a)
	}
	resp, _ = get(t, srv, "/api/v1/incidents/0000000000")
	if resp.StatusCode != 404 {
		t.Errorf("unknown incident: %d, want 404", resp.StatusCode)
	}
}

func TestAPIErrors(t *testing.T) {
	srv, _, _, _ := newTestServer(t, fixtureOptions{hourly: 2, reports: 1})
	for _, tc := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/api/v1/nope", 404, ""},
		{"GET", "/api/v1/checks/c/openai/gpt-4o-mini/promote", 404, ""},
		{"POST", "/api/v1/checks", 405, "GET"},
		{"DELETE", "/api/v1/incidents", 405, "GET"},
		{"PUT", "/api/v1/runs/x", 405, "GET"},
		{"GET", "/api/v1/incidents/x/ack", 405, "POST"},
		{"GET", "/api/v1/checks/c/p/promote", 405, "POST"},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, nil)
		resp, body := do(t, req)
		var e struct{ Error string }
		decode(t, resp, body, &e)
		if resp.StatusCode != tc.status || e.Error == "" || resp.Header.Get("Allow") != tc.allow {
			t.Errorf("%s %s: %d %q (Allow %q), want %d with an error (Allow %q)", tc.method, tc.path, resp.StatusCode, e.Error, resp.Header.Get("Allow"), tc.status, tc.allow)
		}
	}
	_, body := get(t, srv, "/api/v1/checks/c/openai/gpt-4o-mini/promote")
	if !strings.Contains(body, "%2F") {
		t.Errorf("a provider with an unescaped slash gets no hint: %s", body)
	}
}

// TestAPIUnmeasuredRuns: a check run that measured nothing has no pass
// rate, no score and no baseline rate in the API (null, with "measured":
// false), never 0; a measured one has numbers and "measured": true.
func TestAPIUnmeasuredRuns(t *testing.T) {
	srv, _, _, _ := newTestServer(t, fixtureOptions{hourly: 24, reports: 2})
	resp, body := get(t, srv, "/api/v1/runs?check=support-bot&limit=4")
	var got struct {
		Runs []map[string]any `json:"runs"`
	}
	decode(t, resp, body, &got)
	if len(got.Runs) != 4 {
		t.Fatalf("%d runs, want 4", len(got.Runs))
	}
	for i, r := range got.Runs {
		unmeasured := i < 3 // the provider fails since three hours
		if r["outcome"] != map[bool]string{true: "unmeasured", false: "clean"}[unmeasured] {
			t.Fatalf("run %d: outcome %v", i, r["outcome"])
		}
		if r["measured"] != !unmeasured {
			t.Errorf("run %d (%v): measured %v, want %v", i, r["outcome"], r["measured"], !unmeasured)
		}
		for _, k := range []string{"pass_rate", "score", "baseline_pass_rate"} {
			v, ok := r[k]
			if !ok {
				t.Errorf("run %d: no %q key", i, k)
			}
			if unmeasured && v != nil {
				t.Errorf("unmeasured run %d: %s = %v, want null", i, k, v)
			}
			if !unmeasured {
				if _, isNumber := v.(float64); !isNumber {
					t.Errorf("measured run %d: %s = %v, want a number", i, k, v)
				}
			}
		}
	}
	// The typed form reads null as NaN.
	var typed struct {
		Runs []promptcanary.CheckRun `json:"runs"`
	}
	decode(t, resp, body, &typed)
	if cr := typed.Runs[0]; cr.Measured() || !math.IsNaN(cr.PassRate) || !math.IsNaN(cr.Score) {
		t.Errorf("decoded unmeasured run: measured %v, pass rate %v, score %v, want false, NaN, NaN", cr.Measured(), cr.PassRate, cr.Score)
	}
}
