package monitor

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// get serves one GET request from m's handler, as a browser on the
// monitor's machine sends it.
func get(t *testing.T, h http.Handler, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9464"+path, nil))
	return rec.Code, rec.Body.String()
}

// scrape parses /metrics.
func scrape(t *testing.T, m *Monitor) map[string]*dto.MetricFamily {
	t.Helper()
	code, body := get(t, m.Handler(), "/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	return fams
}

// value returns the value of the series of name with exactly labels.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	fam, ok := fams[name]
	if !ok {
		t.Fatalf("no metric %s", name)
	}
next:
	for _, mt := range fam.Metric {
		if len(mt.Label) != len(labels) {
			continue
		}
		for _, l := range mt.Label {
			if labels[l.GetName()] != l.GetValue() {
				continue next
			}
		}
		switch {
		case mt.Counter != nil:
			return mt.Counter.GetValue()
		case mt.Gauge != nil:
			return mt.Gauge.GetValue()
		case mt.Histogram != nil:
			return float64(mt.Histogram.GetSampleCount())
		}
	}
	t.Fatalf("no series %s%v", name, labels)
	return 0
}

// Every series of the spec exists from the start at 0 (the pass ratio and
// the score at NaN: nothing is measured yet, and a rate of nothing is no
// rate), with exactly its labels, and moves with the runs.
func TestMetrics(t *testing.T) {
	f, m := newOneSample(t, "1h")
	cp := map[string]string{"check": "canary", "provider": f.spec}
	with := func(k, v string) map[string]string {
		out := map[string]string{k: v}
		for a, b := range cp {
			out[a] = b
		}
		return out
	}
	fams := scrape(t, m)
	zero := []struct {
		name   string
		labels map[string]string
	}{
		{"promptcanary_check_up", cp},
		{"promptcanary_check_drift", cp},
		{"promptcanary_check_last_success_timestamp_seconds", cp},
		{"promptcanary_check_runs_total", with("outcome", "clean")},
		{"promptcanary_check_runs_total", with("outcome", "drift")},
		{"promptcanary_check_runs_total", with("outcome", "unmeasured")},
		{"promptcanary_check_runs_total", with("outcome", "skipped")},
		{"promptcanary_provider_requests_total", map[string]string{"provider": f.spec, "code": "ok"}},
		{"promptcanary_provider_request_duration_seconds", map[string]string{"provider": f.spec}},
		{"promptcanary_tokens_total", map[string]string{"provider": f.spec, "kind": "prompt"}},
		{"promptcanary_tokens_total", map[string]string{"provider": f.spec, "kind": "completion"}},
		{"promptcanary_cost_usd_total", map[string]string{"provider": f.spec}},
		{"promptcanary_incidents_open", map[string]string{"kind": "drift", "severity": "critical"}},
		{"promptcanary_incidents_open", map[string]string{"kind": "budget", "severity": "low"}},
		{"promptcanary_notifications_total", map[string]string{"notifier": "hook", "outcome": "ok"}},
		{"promptcanary_notifications_total", map[string]string{"notifier": "hook", "outcome": "error"}},
	}
	for _, z := range zero {
		if v := value(t, fams, z.name, z.labels); v != 0 {
			t.Errorf("before any run: %s%v = %v, want 0", z.name, z.labels, v)
		}
	}
	for _, name := range []string{"promptcanary_check_pass_ratio", "promptcanary_check_score"} {
		if v := value(t, fams, name, cp); !math.IsNaN(v) {
			t.Errorf("before any run: %s%v = %v, want NaN", name, cp, v)
		}
	}
	if n := len(fams["promptcanary_incidents_open"].Metric); n != 16 {
		t.Errorf("got %d incidents_open series, want 16 (4 kinds × 4 severities)", n)
	}
	if v := value(t, fams, "promptcanary_build_info", map[string]string{"version": "9.9.9-test"}); v != 1 {
		t.Errorf("build_info = %v, want 1", v)
	}

	f.once(m)
	f.flip.set("bad")
	f.clock.Advance(time.Hour)
	f.once(m) // a confirmed drift: an incident
	eventually(t, "the notification", func() bool { return len(f.hook.got()) == 1 })
	fams = scrape(t, m)
	checks := []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"promptcanary_check_up", cp, 1},
		{"promptcanary_check_pass_ratio", cp, 0},
		{"promptcanary_check_drift", cp, 1},
		{"promptcanary_check_last_success_timestamp_seconds", cp, float64(epoch.Add(time.Hour).Unix())},
		{"promptcanary_check_runs_total", with("outcome", "clean"), 1},
		{"promptcanary_check_runs_total", with("outcome", "drift"), 1},
		// A clean run and a drifted one of 4 calls each, and the
		// drift's confirmation of 3 × 4 (policy.ConfirmSamples).
		{"promptcanary_provider_requests_total", map[string]string{"provider": f.spec, "code": "ok"}, 20},
		{"promptcanary_provider_request_duration_seconds", map[string]string{"provider": f.spec}, 20},
		{"promptcanary_tokens_total", map[string]string{"provider": f.spec, "kind": "prompt"}, 2000},
		{"promptcanary_tokens_total", map[string]string{"provider": f.spec, "kind": "completion"}, 1000},
		{"promptcanary_incidents_open", map[string]string{"kind": "drift", "severity": string(f.incidents(true)[0].Severity)}, 1},
		{"promptcanary_notifications_total", map[string]string{"notifier": "hook", "outcome": "ok"}, 1},
	}
	for _, c := range checks {
		if v := value(t, fams, c.name, c.labels); v != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, v, c.want)
		}
	}
	// A failing provider counts its status code.
	f.flip.set("fail")
	f.clock.Advance(time.Hour)
	f.once(m)
	fams = scrape(t, m)
	if v := value(t, fams, "promptcanary_provider_requests_total", map[string]string{"provider": f.spec, "code": "503"}); v != 4 {
		t.Errorf("requests with code 503 = %v, want 4", v)
	}
	if v := value(t, fams, "promptcanary_check_up", cp); v != 0 {
		t.Errorf("check_up after an unmeasured run = %v, want 0", v)
	}
}

// No secret (the webhook secret, the admin token, a provider key) reaches
// the logs, the store, the API, the pages, the metrics, the notifications
// or an error, though the provider puts its key into its errors.
func TestSecretsNeverLeak(t *testing.T) {
	f, m := newOneSample(t, "1h")
	f.flip.set("fail")
	f.once(m)
	f.clock.Advance(time.Hour)
	f.once(m) // an unmeasured incident, notified
	f.flip.set("bad")
	f.clock.Advance(time.Hour)
	f.once(m)
	f.clock.Advance(time.Hour)
	f.once(m) // a drift incident, notified
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Stop(context.Background())
	eventually(t, "the notifications", func() bool { return len(f.hook.got()) >= 2 })

	secrets := []string{hookSecret, adminToken, providerKey}
	var surfaces []struct{ name, text string }
	add := func(name, text string) { surfaces = append(surfaces, struct{ name, text string }{name, text}) }
	add("logs", f.logs.String())
	if !strings.Contains(f.logs.String(), "[REDACTED]") {
		t.Errorf("the logs show no scrubbed provider error; the test would not see a leak:\n%s", f.logs.String())
	}
	// The store's files, byte for byte (SQLite keeps text as is).
	files, _ := filepath.Glob(filepath.Join(f.dir, "store", "*"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		add("store file "+filepath.Base(p), string(b))
	}
	inc := f.incidents(false)[0]
	runs := f.checkRuns()
	var runID string
	for _, r := range runs {
		if r.RunID != "" {
			runID = r.RunID
			break
		}
	}
	h := m.Handler()
	for _, p := range []string{"/", "/incidents", "/incidents/" + inc.ID, "/checks/canary/" + url.PathEscape(f.spec),
		"/runs/" + runID, "/api/v1/checks", "/api/v1/incidents", "/api/v1/runs?check=canary", "/api/v1/runs/" + runID,
		"/metrics", "/healthz", "/readyz"} {
		_, body := get(t, h, p)
		add("GET "+p, body)
	}
	// Over the real listener too.
	resp, err := http.Get("http://" + m.Addr() + "/api/v1/incidents")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	add("GET /api/v1/incidents over TCP", string(b))
	f.hook.mu.Lock()
	add("webhook requests", f.hook.raw.String())
	f.hook.mu.Unlock()
	// Errors.
	if err := m.Acknowledge(context.Background(), "nope-"+adminToken, "x"); err != nil {
		add("acknowledge error", err.Error())
	}
	if err := m.Promote(context.Background(), "canary", f.spec, providerKey); err != nil {
		add("promote error", err.Error())
	}
	bad := f.config("1h", 1)
	bad.Checks[0].Baseline = "run-" + providerKey
	if _, err := New(bad, f.options()); err != nil {
		add("New error", err.Error())
	} else {
		t.Error("New with a missing pinned baseline: no error")
	}
	for _, s := range surfaces {
		for _, sec := range secrets {
			if strings.Contains(s.text, sec) || bytes.Contains([]byte(s.text), []byte(url.QueryEscape(sec))) {
				t.Errorf("%s holds a secret (%.6s…)", s.name, sec)
			}
		}
	}
	if len(surfaces) < 18 {
		t.Errorf("checked %d surfaces, want every one", len(surfaces))
	}
}

// Acknowledging silences repeats until the state changes; promoting a run
// makes it the check's baseline, and a pinned check refuses.
func TestAcknowledgeAndPromote(t *testing.T) {
	f := newFixture(t, "")
	f.saveBaseline(3)
	cfg := f.config("1h", 1)
	cfg.Incidents.RepeatInterval = 2 * time.Hour
	m := f.monitor(cfg)
	f.flip.set("fail")
	f.once(m)
	f.clock.Advance(time.Hour)
	f.once(m)
	inc := f.incidents(true)[0]
	// The repeat interval passes: a repeat.
	f.clock.Advance(2 * time.Hour)
	f.once(m)
	eventually(t, "a repeat", func() bool { return len(f.hook.got()) == 2 })
	if err := m.Acknowledge(context.Background(), inc.ID[:8], "alice"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(3 * time.Hour)
	f.once(m)
	if err := m.outbox.Drain(context.Background(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := f.hook.got(); len(got) != 2 {
		t.Fatalf("got %d notifications after the acknowledge, want still 2 (repeats silenced)", len(got))
	}
	stored, err := f.store.Incident(context.Background(), inc.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.AcknowledgedBy != "alice" || stored.AcknowledgedAt.IsZero() {
		t.Errorf("got incident %+v, want acknowledged by alice", stored)
	}
	if types := f.eventTypes(inc.ID); types != "opened,repeated,acknowledged" {
		t.Errorf("got events %s, want opened,repeated,acknowledged", types)
	}

	// Promote the latest measured run (a good one) to baseline.
	f.flip.set("good")
	f.clock.Advance(time.Hour)
	cr := f.once(m)
	before := m.Statuses()[0].Baseline
	if err := m.Promote(context.Background(), "canary", f.spec, cr.RunID); err != nil {
		t.Fatal(err)
	}
	after := m.Statuses()[0].Baseline
	if after == before || after == "" {
		t.Fatalf("baseline %q → %q, want a new one", before, after)
	}
	f.clock.Advance(time.Hour)
	if cr := f.once(m); cr.BaselineID != after {
		t.Errorf("next run compared against %s, want the promoted %s", cr.BaselineID, after)
	}
	if err := m.Promote(context.Background(), "canry", f.spec, cr.RunID); err == nil || !strings.Contains(err.Error(), "did you mean") {
		t.Errorf("got %v for an unknown check, want a did-you-mean", err)
	}

	// A pinned check refuses.
	f.extra = "    baseline: " + before + "\n"
	pinned := f.monitor(f.config("1h", 1))
	err = pinned.Promote(context.Background(), "canary", f.spec, cr.RunID)
	if err == nil || !strings.Contains(err.Error(), "is pinned to baseline "+before) {
		t.Errorf("got %v, want a refusal naming the pinned baseline", err)
	}
	f.clock.Advance(time.Hour)
	if cr := f.once(pinned); cr.BaselineID != before {
		t.Errorf("pinned check compared against %s, want %s", cr.BaselineID, before)
	}
}
