package monitor

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/monitor/notify"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/backend"
	"github.com/promptcanary/promptcanary/store/postgres/pgtest"
	"github.com/promptcanary/promptcanary/suite"
)

// The environment of a monitor process the fleet test starts: this test
// binary, run again, starts a monitor on the monitor.yaml fleetConfig
// names, with fleetOwner as its owner and fleetTTL as its lease TTL,
// prints "ready ADDR" once it serves, and stops on SIGTERM.
const (
	fleetConfig = "PROMPTCANARY_FLEET_CONFIG"
	fleetOwner  = "PROMPTCANARY_FLEET_OWNER"
	fleetTTL    = "PROMPTCANARY_FLEET_TTL"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(fleetConfig); path != "" {
		os.Exit(fleetMonitor(path))
	}
	os.Exit(m.Run())
}

// fleetMonitor is the main of a monitor process of the fleet test.
func fleetMonitor(path string) int {
	ctx := context.Background()
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "fleet monitor:", err)
		return 2
	}
	cfg, err := config.Load(path, os.Getenv)
	if err != nil {
		return fail(err)
	}
	st, err := backend.Open(ctx, cfg.Store)
	if err != nil {
		return fail(err)
	}
	defer st.Close()
	ttl, err := time.ParseDuration(os.Getenv(fleetTTL))
	if err != nil {
		return fail(err)
	}
	m, err := New(cfg, Options{
		Store:         st,
		Getenv:        os.Getenv,
		Logger:        slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Tool:          "promptcanary fleet-test",
		LeaseTTL:      ttl,
		Owner:         os.Getenv(fleetOwner),
		NotifyBackoff: notify.Backoff{Initial: 20 * time.Millisecond, Max: 200 * time.Millisecond, Attempts: 4},
	})
	if err != nil {
		return fail(err)
	}
	if err := m.Start(ctx); err != nil {
		return fail(err)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	fmt.Println("ready", m.Addr())
	<-sig
	if err := m.Stop(ctx); err != nil {
		return fail(err)
	}
	return 0
}

// fleetApp is the application under watch, an exec provider: valid JSON
// while the mode file says good, prose once it says bad; while the hold
// file exists, every call waits.
const fleetApp = `cat >/dev/null
while [ -e {DIR}/hold ]; do sleep 0.02; done
if [ "$(cat {DIR}/mode)" = bad ]; then echo 'Sure! The status is fine.'; else echo '{"status": "ok"}'; fi
`

// fleetSuite is the suite of the fleet's one check.
const fleetSuite = `name: fleet
prompts:
  - id: status
    text: Reply with the JSON status object only.
probes:
  - json_validity
`

// notice is one webhook notification the fleet sent.
type notice struct {
	incident, status, event, kind string
}

// hookLog receives the fleet's webhook notifications, checking each
// signature.
type hookLog struct {
	mu     sync.Mutex
	got    []notice
	badSig int
}

func (h *hookLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	if notify.VerifyWebhook(body, hookSecret, r.Header.Get(notify.WebhookSignatureHeader), time.Now()) != nil {
		h.badSig++
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	var b notify.WebhookBody
	if err := json.Unmarshal(body, &b); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	h.got = append(h.got, notice{incident: b.IncidentID, status: string(b.Status), event: string(b.Event), kind: string(b.Kind)})
}

func (h *hookLog) notices() []notice {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.got)
}

// proc is a monitor process of the fleet.
type proc struct {
	owner  string
	cmd    *exec.Cmd
	logs   *syncBuffer
	done   chan error
	exited bool // done was received
}

// fleet is the world of a fleet test: the files, the store as the test
// sees it, the webhook log and the monitor processes.
type fleet struct {
	t     *testing.T
	dir   string
	st    backend.Store
	hook  *hookLog
	procs []*proc
}

// newFleet writes the suite, the application and monitor.yaml for the
// store target, saves the baseline there and starts n monitors.
func newFleet(t *testing.T, target string, n int) *fleet {
	t.Helper()
	f := &fleet{t: t, dir: t.TempDir(), hook: &hookLog{}}
	srv := httptest.NewServer(f.hook)
	t.Cleanup(srv.Close)
	f.write("mode", "good")
	f.write("app.sh", strings.ReplaceAll(fleetApp, "{DIR}", f.dir))
	f.write("canary.yaml", fleetSuite)
	spec := "exec/sh " + filepath.Join(f.dir, "app.sh")
	f.write("monitor.yaml", `listen: 127.0.0.1:0
store: "${FLEET_STORE}"
shutdown_grace: 5s
incidents: {resolve_after: 2, repeat_interval: 24h}
defaults: {every: 1s, jitter: 0, samples: 5, confirm: true, notify: [hook]}
checks:
  - name: app
    suite: canary.yaml
    provider: `+spec+`
notifiers:
  - {name: hook, type: webhook, url: "${HOOK_URL}", secret: "${HOOK_SECRET}"}
`)
	ctx := context.Background()
	st, err := backend.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f.st = st

	path := filepath.Join(f.dir, "canary.yaml")
	data, _ := os.ReadFile(path)
	s, err := suite.Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	targets, _, err := check.Resolve(s, check.Settings{Providers: []string{spec}, Secrets: redact.New()})
	if err != nil {
		t.Fatal(err)
	}
	if out, err := check.Run(ctx, check.RunRequest{Suite: s, Targets: targets, Samples: 5, History: st, SaveBaseline: true,
		BaselineDir: filepath.Join(f.dir, "baselines")}); err != nil || len(out.Baselines) != 1 {
		t.Fatalf("save the baseline: %v, %+v", err, out)
	}

	env := append(os.Environ(), "FLEET_STORE="+target, "HOOK_URL="+srv.URL, "HOOK_SECRET="+hookSecret,
		fleetConfig+"="+filepath.Join(f.dir, "monitor.yaml"), fleetTTL+"=1s")
	ready := make(chan error, n)
	for i := range n {
		p := &proc{owner: fmt.Sprintf("fleet-%d", i), logs: &syncBuffer{}, done: make(chan error, 1)}
		p.cmd = exec.Command(os.Args[0], "-test.run=^$")
		p.cmd.Env = append(env, fleetOwner+"="+p.owner)
		p.cmd.Stderr = p.logs
		out, err := p.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			sc := bufio.NewScanner(out)
			sent := false
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "ready ") && !sent {
					ready <- nil
					sent = true
				}
			}
			if !sent {
				ready <- fmt.Errorf("monitor %s exited before it was ready", p.owner)
			}
			p.done <- p.cmd.Wait()
		}()
		f.procs = append(f.procs, p)
	}
	t.Cleanup(func() {
		for _, p := range f.procs {
			if !p.exited {
				_ = p.cmd.Process.Kill()
				<-p.done
				p.exited = true
			}
		}
		if t.Failed() {
			for _, p := range f.procs {
				t.Logf("log of %s (last 60 lines):\n%s", p.owner, tail(p.logs.String(), 60))
			}
		}
	})
	for range n {
		select {
		case err := <-ready:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the monitors did not start within 30s")
		}
	}
	return f
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func (f *fleet) write(name, data string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.dir, name), []byte(data), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// waitFor polls cond every 20ms until it holds; the deadline only bounds
// a hang.
func (f *fleet) waitFor(what string, cond func() bool) {
	f.t.Helper()
	for end := time.Now().Add(40 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	f.t.Fatalf("timed out waiting for %s; notifications: %v", what, f.hook.notices())
}

func (f *fleet) checkRuns() []promptcanary.CheckRun { return checkRunsIn(f.t, f.st) }

func (f *fleet) leases() []store.SlotLease {
	f.t.Helper()
	ls, err := f.st.(store.Leases).SlotLeases(context.Background(), "", "", 0)
	noErr(f.t, err)
	return ls
}

func (f *fleet) incidents(openOnly bool) []promptcanary.Incident {
	return incidentsIn(f.t, f.st, openOnly)
}

// kill kills p with SIGKILL and waits for it to die.
func (f *fleet) kill(p *proc) {
	f.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		f.t.Fatal(err)
	}
	<-p.done
	p.exited = true
}

// stop stops the monitors still alive with SIGTERM, and fails the test
// when one does not exit 0.
func (f *fleet) stop(alive []*proc) {
	f.t.Helper()
	for _, p := range alive {
		if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			f.t.Fatal(err)
		}
	}
	for _, p := range alive {
		select {
		case err := <-p.done:
			p.exited = true
			if err != nil {
				f.t.Errorf("monitor %s after SIGTERM: %v, want exit 0", p.owner, err)
			}
		case <-time.After(30 * time.Second):
			f.t.Errorf("monitor %s did not stop within 30s of SIGTERM", p.owner)
		}
	}
}

// TestFleetOnPostgres starts three monitors on one PostgreSQL store with
// a check every second, kills one with SIGKILL in the middle of a run,
// then drifts the application and recovers it.
func TestFleetOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three monitors for several seconds")
	}
	testFleet(t, pgtest.FreshDSN(t), 3)
}

// TestFleetOnSQLite is TestFleetOnPostgres with two monitors on one
// SQLite file: immediate transactions make their claims atomic.
func TestFleetOnSQLite(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two monitors for several seconds")
	}
	testFleet(t, filepath.Join(t.TempDir(), "history.db"), 2)
}

// testFleet is the fleet test on the store target with n monitors. It
// checks that no slot ran twice (the slot of the killed monitor ran once,
// to completion, by the monitor that took it over), that no slot was
// lost, that the drift opened one incident notified once and resolved
// once, and that the history is consistent.
func testFleet(t *testing.T, target string, n int) {
	f := newFleet(t, target, n)
	started := time.Now()
	// cleanSince waits for k clean runs started after since.
	cleanSince := func(since time.Time, k int) {
		t.Helper()
		f.waitFor(fmt.Sprintf("%d clean runs", k), func() bool {
			n := 0
			for _, r := range f.checkRuns() {
				if r.Outcome == promptcanary.CheckClean && r.StartedAt.After(since) {
					n++
				}
			}
			return n >= k
		})
	}
	cleanSince(started, 3)

	// A run in flight is held while its monitor is killed.
	f.write("hold", "")
	var victim *proc
	var slot store.SlotKey
	f.waitFor("a run in flight", func() bool {
		for _, l := range f.leases() {
			if l.State != store.LeaseRunning {
				continue
			}
			for _, p := range f.procs {
				if p.owner == l.Owner {
					victim, slot = p, l.SlotKey
					return true
				}
			}
		}
		return false
	})
	f.kill(victim)
	if err := os.Remove(filepath.Join(f.dir, "hold")); err != nil {
		t.Fatal(err)
	}
	killedAt := time.Now()
	var alive []*proc
	for _, p := range f.procs {
		if p != victim {
			alive = append(alive, p)
		}
	}
	f.waitFor("the killed monitor's slot taken over", func() bool {
		for _, l := range f.leases() {
			if l.SlotKey == slot {
				return l.State == store.LeaseDone
			}
		}
		return false
	})
	t.Logf("slot %s of %s taken over after %s", slot.Slot.Format(time.RFC3339), victim.owner, time.Since(killedAt).Round(time.Millisecond))
	// Staleness may have opened an unmeasured incident meanwhile (no run
	// completed for two seconds): measured runs resolve it.
	f.waitFor("no open incident", func() bool { return len(f.incidents(true)) == 0 })

	f.write("mode", "bad")
	f.waitFor("the drift's notification", func() bool {
		return slices.ContainsFunc(f.hook.notices(), func(x notice) bool { return x.kind == "drift" && x.status == "firing" })
	})
	f.write("mode", "good")
	f.waitFor("the drift's resolve", func() bool {
		return slices.ContainsFunc(f.hook.notices(), func(x notice) bool { return x.kind == "drift" && x.status == "resolved" })
	})
	cleanSince(time.Now(), 2)
	stopping := time.Now()
	f.stop(alive)

	runs := f.checkRuns()
	leases := f.leases()
	owners := map[string]int{}
	for _, l := range leases {
		owners[l.Owner]++
	}
	t.Logf("%d check runs, %d leases by owner %v, notifications %v", len(runs), len(leases), owners, f.hook.notices())

	// No slot ran twice; every lease is done and names its check run.
	bySlot := map[time.Time][]promptcanary.CheckRun{}
	byID := map[string]promptcanary.CheckRun{}
	for _, r := range runs {
		bySlot[r.Slot.UTC()] = append(bySlot[r.Slot.UTC()], r)
		byID[r.ID] = r
	}
	for s, rs := range bySlot {
		if len(rs) != 1 {
			t.Errorf("slot %s has %d check runs, want 1: %+v", s.Format(time.RFC3339Nano), len(rs), rs)
		}
	}
	done := map[time.Time]store.SlotLease{}
	for _, l := range leases {
		done[l.Slot.UTC()] = l
		if l.State != store.LeaseDone {
			t.Errorf("lease %s is %s by %s after the stop, want done", l.SlotKey, l.State, l.Owner)
			continue
		}
		if cr, ok := byID[l.CheckRunID]; !ok || !cr.Slot.Equal(l.Slot) {
			t.Errorf("lease %s names check run %q, which is not the slot's", l.SlotKey, l.CheckRunID)
		}
	}
	// The killed monitor's slot ran once, to completion, by another.
	l := done[slot.Slot.UTC()]
	if l.Owner == victim.owner || l.PreviousOwner != victim.owner || l.Takeovers < 1 {
		t.Errorf("the killed monitor's slot: got lease %+v, want it taken over from %s", l, victim.owner)
	}
	if cr := byID[l.CheckRunID]; cr.Outcome == promptcanary.CheckSkipped || cr.Outcome == "" {
		t.Errorf("the killed monitor's slot: got check run %+v, want a run made", cr)
	}
	// No slot was lost: every second from when all monitors ran to the
	// stop has its lease and check run.
	for s := started.Add(time.Second).Truncate(time.Second); s.Before(stopping.Add(-time.Second)); s = s.Add(time.Second) {
		if _, ok := done[s.UTC()]; !ok {
			t.Errorf("slot %s has no lease: lost", s.UTC().Format(time.RFC3339))
		}
		if len(bySlot[s.UTC()]) != 1 {
			t.Errorf("slot %s has no check run: lost", s.UTC().Format(time.RFC3339))
		}
	}
	// The history is consistent: every run and report a check run names
	// is stored.
	ctx := context.Background()
	for _, r := range runs {
		for _, id := range []string{r.RunID, r.ConfirmRunID} {
			if _, err := f.st.Run(ctx, id); id != "" && err != nil {
				t.Errorf("check run %s names run %s: %v", r.ID, id, err)
			}
		}
		for _, id := range []string{r.ReportID, r.ConfirmReportID} {
			if _, err := f.st.Drift(ctx, id); id != "" && err != nil {
				t.Errorf("check run %s names report %s: %v", r.ID, id, err)
			}
		}
	}

	// One incident per drift, notified once when it opened and once when
	// it resolved; any other incident (staleness while the killed
	// monitor's slot waited) the same.
	incs := f.incidents(false)
	drifts := 0
	for _, inc := range incs {
		if inc.Kind == promptcanary.IncidentDrift {
			drifts++
		}
		if inc.Open() {
			t.Errorf("incident %s (%s) still open", inc.ID, inc.Kind)
		}
		var events []string
		for _, x := range f.hook.notices() {
			if x.incident == inc.ID {
				events = append(events, x.status+"/"+x.event)
			}
		}
		if !slices.Equal(events, []string{"firing/opened", "resolved/resolved"}) {
			t.Errorf("incident %s (%s): got notifications %v, want [firing/opened resolved/resolved]", inc.ID, inc.Kind, events)
		}
	}
	if drifts != 1 {
		t.Errorf("got %d drift incidents, want 1: %+v", drifts, incs)
	}
	if len(f.hook.notices()) != 2*len(incs) {
		t.Errorf("got notifications %v for %d incidents, want two each", f.hook.notices(), len(incs))
	}
	if f.hook.badSig > 0 {
		t.Errorf("%d notifications had a bad signature", f.hook.badSig)
	}
	ds, err := f.st.(store.Outbox).Deliveries(ctx, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.State != store.DeliverySent || d.DoneBy == "" || d.DoneBy == victim.owner && d.DoneAt.After(killedAt) {
			t.Errorf("delivery %+v, want sent by a live monitor", d)
		}
	}
}
