package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/promptcanary/promptcanary/monitor/notify"
)

// webhookReceiver collects the monitor's webhook notifications and checks
// each one's signature.
type webhookReceiver struct {
	t      *testing.T
	secret string
	mu     sync.Mutex
	got    []map[string]any
}

func (w *webhookReceiver) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if err := notify.VerifyWebhook(body, w.secret, r.Header.Get(notify.WebhookSignatureHeader), time.Now()); err != nil {
		w.t.Errorf("webhook: bad signature %q: %v", r.Header.Get(notify.WebhookSignatureHeader), err)
		rw.WriteHeader(http.StatusUnauthorized)
		return
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		w.t.Errorf("webhook: body is not JSON: %v", err)
	}
	w.mu.Lock()
	w.got = append(w.got, m)
	w.mu.Unlock()
	rw.WriteHeader(http.StatusNoContent)
}

// statuses returns the status of every drift notification received, in
// order.
func (w *webhookReceiver) statuses() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, m := range w.drift() {
		out = append(out, fmt.Sprint(m["status"]))
	}
	return out
}

// events returns "status/event" of every drift notification received, in
// order.
func (w *webhookReceiver) events() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, m := range w.drift() {
		out = append(out, fmt.Sprint(m["status"], "/", m["event"]))
	}
	return out
}

// drift returns the drift notifications, in order. On a loaded machine a
// run can take longer than twice the 1s interval, which opens (and later
// resolves) an incident of kind "unmeasured" by design; those are
// checked apart (see unmeasuredPaired). The caller holds w.mu.
func (w *webhookReceiver) drift() []map[string]any {
	var out []map[string]any
	for _, m := range w.got {
		if m["kind"] == "drift" {
			out = append(out, m)
		}
	}
	return out
}

// unmeasuredPaired reports whether every "unmeasured" incident that was
// opened was also resolved, and nothing else but drift was notified.
func (w *webhookReceiver) unmeasuredPaired() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	open := map[any]int{}
	for _, m := range w.got {
		switch {
		case m["kind"] == "drift":
		case m["kind"] == "unmeasured" && m["event"] == "opened":
			open[m["incident_id"]]++
		case m["kind"] == "unmeasured" && m["event"] == "resolved":
			open[m["incident_id"]]--
		case m["kind"] == "unmeasured" && m["event"] == "updated":
		default:
			return false
		}
	}
	for _, n := range open {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestServeEndToEnd is the monitor's acceptance test: serve on a loopback
// port watches a provider whose behaviour the test flips. Drift opens
// exactly one incident and sends one signed "firing" notification after
// confirmation; recovery sends one "resolved" after resolve_after clean
// runs; /metrics shows the series; the dashboard shows the incident in
// Chromium (skipped without a browser).
func TestServeEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the monitor for several seconds")
	}
	dir := t.TempDir()
	mode := filepath.Join(dir, "mode")
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("mode", "good")
	// The application under watch: valid JSON while good, a preamble
	// wrapped around prose once it drifts.
	write("app.sh", `cat >/dev/null
if [ "$(cat `+mode+`)" = bad ]; then echo 'Sure! The status is fine.'; else echo '{"status": "ok"}'; fi
`)
	write("canary.yaml", `name: e2e
prompts:
  - id: status
    text: Reply with the JSON status object only.
probes:
  - json_validity
`)
	spec := "exec/sh " + filepath.Join(dir, "app.sh")
	const secret = "e2e-webhook-secret-0123456789"
	recv := &webhookReceiver{t: t, secret: secret}
	hook := httptest.NewServer(recv)
	defer hook.Close()
	write("monitor.yaml", `listen: 127.0.0.1:0
checks:
  - name: app
    suite: canary.yaml
    provider: `+spec+`
    every: 1s
    jitter: 0%
    samples: 5
    notify: [hook]
notifiers:
  - {name: hook, type: webhook, url: "`+hook.URL+`/canary", secret: "${HOOK_SECRET}"}
incidents: {resolve_after: 2}
`)
	t.Setenv("HOOK_SECRET", secret)

	var out strings.Builder
	if code := Main(context.Background(), []string{"run", "-c", filepath.Join(dir, "canary.yaml"), "-p", spec, "--samples", "5", "--save-baseline", "--no-progress"},
		Stdio{Out: &out, Err: &out}); code != 0 {
		t.Fatalf("save baseline: exit %d\n%s", code, out.String())
	}

	ctx, stop := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := Main(ctx, []string{"serve", "-c", filepath.Join(dir, "monitor.yaml")}, Stdio{Out: io.Discard, Err: pw})
		pw.Close()
		done <- code
	}()
	addrRe := regexp.MustCompile(`dashboard on http://([^/ ]+)/`)
	addr := make(chan string, 1)
	var logMu sync.Mutex
	var logs strings.Builder
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			logMu.Lock()
			logs.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if m := addrRe.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	defer func() {
		stop()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("serve exited %d after SIGINT, want 0", code)
			}
		case <-time.After(60 * time.Second):
			t.Errorf("serve did not stop within 60s of the signal")
		}
		if t.Failed() {
			logMu.Lock()
			t.Logf("serve's log:\n%s", logs.String())
			logMu.Unlock()
		}
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case <-time.After(30 * time.Second):
		t.Fatal("serve printed no dashboard address")
	}

	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s\n%s", path, resp.Status, b)
		}
		return string(b)
	}
	// waitFor polls cond until it holds; the deadline only bounds a hang.
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for end := time.Now().Add(60 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
			if cond() {
				return
			}
		}
		t.Fatalf("timed out waiting for %s; notifications so far: %v", what, recv.statuses())
	}
	checkRuns := func() []map[string]any {
		var v struct {
			Runs []map[string]any `json:"runs"`
		}
		if err := json.Unmarshal([]byte(get("/api/v1/runs?check=app")), &v); err != nil {
			t.Fatalf("/api/v1/runs: %v", err)
		}
		return v.Runs
	}
	outcomes := func() []string {
		var out []string
		for _, r := range checkRuns() {
			out = append(out, fmt.Sprint(r["outcome"]))
		}
		return out
	}

	if got := get("/healthz"); !strings.Contains(got, "ok") {
		t.Errorf("/healthz: %q", got)
	}
	waitFor("a clean run", func() bool { return len(outcomes()) > 0 && outcomes()[0] == "clean" })
	if got := recv.events(); len(got) != 0 {
		t.Fatalf("drift notifications while clean: %v", got)
	}

	// Drift: one confirmed incident, one signed firing notification.
	write("mode", "bad")
	waitFor("the firing notification", func() bool { return len(recv.statuses()) >= 1 })
	var incidents struct {
		Incidents []map[string]any `json:"incidents"`
	}
	if err := json.Unmarshal([]byte(get("/api/v1/incidents?open=1")), &incidents); err != nil {
		t.Fatal(err)
	}
	if len(incidents.Incidents) != 1 || incidents.Incidents[0]["kind"] != "drift" {
		t.Fatalf("open incidents: got %v, want one drift incident", incidents.Incidents)
	}
	incID := fmt.Sprint(incidents.Incidents[0]["id"])
	recv.mu.Lock()
	first := recv.drift()[0]
	recv.mu.Unlock()
	if first["status"] != "firing" || first["event"] != "opened" || first["incident_id"] != incID || first["check"] != "app" || first["kind"] != "drift" {
		t.Errorf("firing notification: got %v", first)
	}
	// The newest run that was made (slots that came while it ran are
	// recorded as skipped, and newer) is the confirmed drift.
	for _, r := range checkRuns() {
		if r["outcome"] == "skipped" {
			continue
		}
		if r["outcome"] != "drift" || r["confirmed"] != true {
			t.Errorf("the run that opened the incident is not a confirmed drift: %v", r)
		}
		break
	}

	metrics := get("/metrics")
	for _, want := range []string{
		`promptcanary_check_drift{check="app",provider="` + spec + `"} 1`,
		`promptcanary_check_up{check="app",provider="` + spec + `"} 1`,
		`promptcanary_check_runs_total{check="app",outcome="drift",provider="` + spec + `"}`,
		`promptcanary_incidents_open{kind="drift",severity="`,
		`promptcanary_notifications_total{notifier="hook",outcome="ok"} `,
		`promptcanary_build_info{version="`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(metrics, secret) || strings.Contains(get("/api/v1/incidents"), secret) {
		t.Errorf("the webhook secret is served")
	}

	// The dashboard shows the incident in a real browser.
	if browser, err := exec.LookPath("chromium"); err != nil {
		t.Log("chromium not found: the dashboard part is skipped; run scripts/test-deps.sh (apt-get install chromium)")
	} else {
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU)
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
		bctx, cancelB := chromedp.NewContext(actx)
		bctx, cancelT := context.WithTimeout(bctx, 60*time.Second)
		_, err := chromedp.Run(bctx, chromedp.Navigate(base+"/"))
		var text string
		if err == nil {
			text, err = chromedp.Run(bctx, chromedp.Evaluate[string](`document.body.innerText`))
		}
		linked := false
		if err == nil {
			linked, err = chromedp.Run(bctx, chromedp.Evaluate[bool](`document.querySelector('a[href*="/incidents/`+incID+`"]') !== null`))
		}
		cancelT()
		cancelB()
		cancelA()
		if err != nil {
			t.Fatalf("chromium: %v", err)
		}
		if !linked || !strings.Contains(text, "app") || !strings.Contains(text, "json_validity/status 100.0% → 0.0%") {
			t.Errorf("the dashboard in chromium does not show the open incident %s (linked: %v):\n%s", incID, linked, text)
		}
	}

	// Recovery: one resolved notification after resolve_after clean runs,
	// sent once, and nothing more while clean.
	// A run that was under way when the provider flipped back may see both
	// behaviours: its smaller drop changes the severity, which is notified
	// as an update (firing, event "updated") by design.
	write("mode", "good")
	waitFor("the resolved notification", func() bool { return slices.Contains(recv.statuses(), "resolved") })
	n := len(outcomes())
	waitFor("two more runs", func() bool { return len(outcomes()) >= n+2 })
	got := recv.events()
	opened, resolved, other := 0, 0, 0
	for _, e := range got {
		switch e {
		case "firing/opened":
			opened++
		case "resolved/resolved":
			resolved++
		case "firing/updated":
		default:
			other++
		}
	}
	if opened != 1 || resolved != 1 || other != 0 || got[0] != "firing/opened" || got[len(got)-1] != "resolved/resolved" {
		t.Errorf("notifications: got %v, want firing/opened, then only updates, then one resolved/resolved", got)
	}
	if err := json.Unmarshal([]byte(get("/api/v1/incidents?open=1")), &incidents); err != nil {
		t.Fatal(err)
	}
	for _, inc := range incidents.Incidents {
		if inc["kind"] == "drift" {
			t.Errorf("a drift incident is open after recovery: %v", inc)
		}
	}
	// A slow run's unmeasured incident resolves with the measured runs
	// that follow it.
	waitFor("every unmeasured incident resolved", recv.unmeasuredPaired)
	if metrics := get("/metrics"); !strings.Contains(metrics, `promptcanary_check_drift{check="app",provider="`+spec+`"} 0`) {
		t.Errorf("/metrics: check_drift is not back to 0")
	}
}
