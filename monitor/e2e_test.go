package monitor

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/redact"
)

// writeReplay writes the suite's recorded answers: right or wrong, thirty
// samples per prompt, as many as a confirmation of a ten-sample run takes.
func writeReplay(t *testing.T, path string, good bool) {
	t.Helper()
	var b strings.Builder
	for _, id := range []string{"p1", "p2", "p3", "p4"} {
		answer := answers[id]
		if !good {
			answer = "I would rather not say."
		}
		for range 30 {
			fmt.Fprintf(&b, "{\"prompt_id\": %q, \"content\": %q, \"prompt_tokens\": 12, \"completion_tokens\": 3}\n", id, answer)
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The story end to end on the scheduled path: a monitor on a
// loopback port runs a check of a replay provider whose recording the
// test swaps. Drift opens exactly one incident and one signed firing after
// confirmation; recovery sends one resolved after resolve_after clean
// runs; /metrics and the dashboard show them.
func TestEndToEndScheduledReplay(t *testing.T) {
	f := newFixture(t, "provider: replay/answers.jsonl\n")
	f.provider = "" // the suite's own provider
	replay := filepath.Join(f.dir, "suite", "answers.jsonl")
	writeReplay(t, replay, true)
	st := f.loadSuite()
	targets, _, err := check.Resolve(st, check.Settings{Secrets: redact.New()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := check.Run(context.Background(), check.RunRequest{Suite: st, Targets: targets, Samples: 10, History: f.store,
		SaveBaseline: true, BaselineDir: filepath.Join(f.dir, "suite", "baselines")}); err != nil {
		t.Fatal(err)
	}
	m := f.monitor(f.config("1m", 5))
	if p := m.Statuses()[0].Provider; p != "replay/answers.jsonl" {
		t.Fatalf("got provider %q, want the suite's own", p)
	}
	f.started(m)
	step := func(want int) {
		t.Helper()
		f.clock.Advance(time.Minute)
		eventually(t, fmt.Sprintf("%d check runs", want), func() bool { return len(f.checkRuns()) == want })
		f.settled(m)
		f.idle()
	}
	step(1)
	if r := f.checkRuns()[0]; r.Outcome != promptcanary.CheckClean {
		t.Fatalf("got %+v, want clean", r)
	}
	writeReplay(t, replay, false)
	step(2)
	step(3)
	open := f.incidents(true)
	if len(open) != 1 || open[0].Kind != promptcanary.IncidentDrift {
		t.Fatalf("got open incidents %+v, want one drift incident", open)
	}
	eventually(t, "the firing", func() bool { return len(f.hook.got()) == 1 })
	if r := f.checkRuns()[1]; !r.Confirmed || r.ConfirmRunID == "" {
		t.Errorf("got %+v, want the drift confirmed by a second run", r)
	}
	writeReplay(t, replay, true)
	step(4)
	step(5)
	if open := f.incidents(true); len(open) != 0 {
		t.Fatalf("got open incidents %+v, want none after 2 clean runs", open)
	}
	eventually(t, "the resolved", func() bool { return len(f.hook.got()) == 2 })
	got := f.hook.got()
	if got[0].Status != promptcanary.NotificationFiring || got[1].Status != promptcanary.NotificationResolved || got[0].IncidentID != got[1].IncidentID {
		t.Fatalf("got %+v, want one firing then one resolved of one incident", got)
	}
	if want := "http://" + m.Addr() + "/incidents/" + got[0].IncidentID; got[0].ReportURL != want {
		t.Errorf("got report_url %q, want %q", got[0].ReportURL, want)
	}
	for path, want := range map[string]string{
		"/metrics":                        `promptcanary_check_runs_total{check="canary",outcome="drift",provider="replay/answers.jsonl"} 2`,
		"/incidents/" + got[0].IncidentID: "canary",
		"/healthz":                        "",
		"/readyz":                         "",
	} {
		resp, err := http.Get("http://" + m.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d, want 200 with %q:\n%.2000s", path, resp.StatusCode, want, body)
		}
	}
}
