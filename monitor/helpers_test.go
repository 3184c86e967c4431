package monitor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/monitor/notify"
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	"github.com/promptcanary/promptcanary/provider"
	_ "github.com/promptcanary/promptcanary/provider/builtin"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/store/sqlite"
	"github.com/promptcanary/promptcanary/suite"
)

// The secrets of the tests: none may appear on any surface.
const (
	hookSecret  = "whsec-test-0123456789abcdef"
	adminToken  = "admin-token-0123456789abcdef"
	providerKey = "sk-flip-key-0123456789abcdef"
)

// fakeClock is the monitor's clock in tests: time moves only when the
// test says so, and every After fires once the time passes its deadline.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []fakeTimer
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

func newClock(t time.Time) *fakeClock { return &fakeClock{now: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.timers = append(c.timers, fakeTimer{c.now.Add(d), ch})
	return ch
}

// Set moves the clock to t (backwards too) and fires the timers due.
func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if !tm.at.After(t) {
			tm.ch <- t
			continue
		}
		kept = append(kept, tm)
	}
	c.timers = kept
}

// Jump moves the wall clock to t (backwards too) as an NTP step or a
// manual change does: timers keep the time they have left (they run on
// the monotonic clock), so none fires.
func (c *fakeClock) Jump(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := t.Sub(c.now)
	c.now = t
	for i := range c.timers {
		c.timers[i].at = c.timers[i].at.Add(d)
	}
}

// Advance moves the clock forward by d.
func (c *fakeClock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// waiters counts the pending timers.
func (c *fakeClock) waiters() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// flip is a provider whose behaviour the test flips: good answers, bad
// answers, failures, or calls that block until released.
type flip struct {
	mode    atomic.Value // string
	calls   atomic.Int64
	badN    atomic.Int64 // in mode "bad-first": calls answered badly
	key     string
	entered chan struct{}
	release chan struct{}
}

var flips sync.Map // model → *flip

func init() {
	provider.Register("flip", func(model string, opts provider.Options) (provider.Provider, error) {
		v, ok := flips.Load(model)
		if !ok {
			return nil, fmt.Errorf("no flip provider %q", model)
		}
		f := v.(*flip)
		f.key = opts.Env("FLIP_API_KEY")
		opts.Secrets.Add(f.key)
		return f, nil
	})
}

// newFlip registers a flip provider under a model unique to the test.
func newFlip(t testing.TB) (*flip, string) {
	t.Helper()
	f := &flip{entered: make(chan struct{}, 1000), release: make(chan struct{})}
	f.mode.Store("good")
	model := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	flips.Store(model, f)
	t.Cleanup(func() { flips.Delete(model) })
	return f, "flip/" + model
}

func (f *flip) set(mode string) { f.mode.Store(mode) }

var answers = map[string]string{"p1": "Paris", "p2": "Jupiter", "p3": "Au", "p4": "Shakespeare"}

func (f *flip) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	n := f.calls.Add(1)
	resp := func(content string) *promptcanary.Response {
		return &promptcanary.Response{Content: content, FinishReason: "stop", PromptTokens: 100, CompletionTokens: 50}
	}
	switch f.mode.Load().(string) {
	case "bad":
		return resp("I would rather not say."), nil
	case "bad-p1":
		if req.Prompt.ID == "p1" {
			return resp("I would rather not say."), nil
		}
	case "bad-first":
		if n <= f.badN.Load() {
			return resp("I would rather not say."), nil
		}
	case "fail":
		// A careless API echoes the key in its error: the monitor must
		// scrub it everywhere.
		return nil, &provider.Error{StatusCode: 503, Message: "overloaded (key " + f.key + ")"}
	case "block":
		f.entered <- struct{}{}
		select {
		case <-f.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return resp(answers[req.Prompt.ID]), nil
}

// receiver is a webhook endpoint that verifies every signature.
type receiver struct {
	mu      sync.Mutex
	bodies  []notify.WebhookBody
	badSig  int
	fail    atomic.Int32 // answer 500 to this many requests
	refuse  atomic.Bool  // answer 401, naming the secret, as to a revoked token
	hang    atomic.Bool
	release chan struct{}
	srv     *httptest.Server
	raw     bytes.Buffer
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{release: make(chan struct{})}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.raw.Write(body)
		r.raw.WriteString(req.Header.Get(notify.WebhookSignatureHeader))
		//lint:ignore SA1019 webhooks still send the old header for one release; recording it keeps it under the leak checks
		r.raw.WriteString(req.Header.Get(notify.SignatureHeader))
		if notify.VerifyWebhook(body, hookSecret, req.Header.Get(notify.WebhookSignatureHeader), time.Now()) != nil {
			r.badSig++
			r.mu.Unlock()
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		r.mu.Unlock()
		if r.hang.Load() {
			select {
			case <-r.release:
			case <-req.Context().Done():
				return
			}
		}
		if r.refuse.Load() {
			http.Error(w, "token revoked: "+hookSecret, http.StatusUnauthorized)
			return
		}
		if r.fail.Add(-1) >= 0 {
			http.Error(w, "boom", http.StatusInternalServerError)
			return
		}
		var b notify.WebhookBody
		if err := json.Unmarshal(body, &b); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.bodies = append(r.bodies, b)
		r.mu.Unlock()
	}))
	t.Cleanup(func() {
		close(r.release)
		r.srv.Close()
	})
	return r
}

// got returns the bodies received so far.
func (r *receiver) got() []notify.WebhookBody {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.badSig > 0 {
		panic(fmt.Sprintf("%d webhook requests had a bad signature", r.badSig))
	}
	return append([]notify.WebhookBody(nil), r.bodies...)
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fixture is a monitor's world: a suite with a baseline, a store, a
// webhook receiver, a flip provider and a clock.
type fixture struct {
	t       testing.TB
	dir     string
	store   *sqlite.Store
	flip    *flip
	spec    string
	hook    *receiver
	clock   *fakeClock
	logs    *syncBuffer
	env     map[string]string
	cfgPath string
	extra   string // more YAML for the check
	top     string // more top-level YAML
	// provider is the check's provider: line, "" for the suite's own.
	provider string
}

// suiteYAML has four prompts whose answers a flip provider gets right or
// wrong as told.
const suiteYAML = `name: canary
probes: [expected_keywords]
prompts:
  - {id: p1, text: "Capital of France?", expected_keywords: [Paris]}
  - {id: p2, text: "Largest planet?", expected_keywords: [Jupiter]}
  - {id: p3, text: "Chemical symbol for gold?", expected_keywords: [Au]}
  - {id: p4, text: "Author of Hamlet?", expected_keywords: [Shakespeare]}
`

// start of the tests' clock: a Monday, mid-morning UTC.
var epoch = time.Date(2026, time.March, 2, 9, 59, 0, 0, time.UTC)

func newFixture(t testing.TB, suiteExtra string) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{t: t, dir: dir, clock: newClock(epoch), logs: &syncBuffer{}, hook: newReceiver(t)}
	f.flip, f.spec = newFlip(t)
	f.provider = "    provider: " + f.spec + "\n"
	if err := os.MkdirAll(filepath.Join(dir, "suite"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "suite", "canary.yaml"), []byte(suiteYAML+strings.ReplaceAll(suiteExtra, "{SPEC}", f.spec)), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(dir, "store", "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	f.store = st
	f.env = map[string]string{"HOOK_URL": f.hook.srv.URL, "HOOK_SECRET": hookSecret, "ADMIN_TOKEN": adminToken, "FLIP_API_KEY": providerKey}
	return f
}

func (f *fixture) getenv(k string) string { return f.env[k] }

// saveBaseline runs the suite on the flip provider (good answers) with
// samples per prompt and saves it as the baseline in the store.
func (f *fixture) saveBaseline(samples int) {
	f.t.Helper()
	st := f.loadSuite()
	targets, _, err := check.Resolve(st, check.Settings{Providers: []string{f.spec}, Getenv: f.getenv, Secrets: redact.New()})
	noErr(f.t, err)
	mode := f.flip.mode.Load()
	f.flip.set("good")
	defer f.flip.mode.Store(mode)
	out, err := check.Run(context.Background(), check.RunRequest{Suite: st, Targets: targets, Samples: samples, History: f.store,
		SaveBaseline: true, BaselineDir: filepath.Join(f.dir, "suite", "baselines")})
	noErr(f.t, err)
	if len(out.Baselines) != 1 || len(out.Failures) > 0 {
		f.t.Fatalf("got baselines %v, failures %v; want one baseline", out.Baselines, out.Failures)
	}
}

// writeSuite replaces the fixture's suite file with yaml.
func (f *fixture) writeSuite(yaml string) {
	f.t.Helper()
	noErr(f.t, os.WriteFile(filepath.Join(f.dir, "suite", "canary.yaml"), []byte(yaml), 0o644))
}

// savePooledBaseline runs the suite runs times on the check's provider
// with samples per prompt, calling before(i) ahead of run i, and saves the
// runs pooled as one baseline, as baseline build --runs does.
func (f *fixture) savePooledBaseline(samples, runs int, before func(i int)) {
	f.t.Helper()
	st := f.loadSuite()
	targets, _, err := check.Resolve(st, check.Settings{Providers: []string{f.spec}, Getenv: f.getenv, Secrets: redact.New()})
	noErr(f.t, err)
	var rs []*promptcanary.Run
	for i := range runs {
		before(i)
		out, err := check.Run(context.Background(), check.RunRequest{Suite: st, Targets: targets, Samples: samples, History: f.store})
		noErr(f.t, err)
		r := out.Runs[0]
		r.StartedAt = epoch.Add(time.Duration(i-runs-4) * time.Hour)
		rs = append(rs, r)
	}
	b, err := check.PoolBaseline(rs, epoch.Add(-time.Hour))
	noErr(f.t, err)
	fs, err := file.Open(filepath.Join(f.dir, "suite", "baselines"))
	noErr(f.t, err)
	_, err = fs.SaveBaseline(context.Background(), b)
	noErr(f.t, err)
}

func (f *fixture) loadSuite() *suite.Suite {
	f.t.Helper()
	path := filepath.Join(f.dir, "suite", "canary.yaml")
	data, err := os.ReadFile(path)
	noErr(f.t, err)
	st, err := suite.Parse(path, data)
	noErr(f.t, err)
	return st
}

// config writes monitor.yaml with one check of the flip provider and
// loads it.
func (f *fixture) config(every string, samples int) *config.Config {
	f.t.Helper()
	yaml := fmt.Sprintf(`listen: 127.0.0.1:0
admin_token: ${ADMIN_TOKEN}
shutdown_grace: 2s
incidents: {resolve_after: 2, repeat_interval: 24h}
defaults: {every: %s, jitter: 0, samples: %d, confirm: true, notify: [hook]}
%schecks:
  - name: canary
    suite: suite/canary.yaml
%s%snotifiers:
  - {name: hook, type: webhook, url: "${HOOK_URL}", secret: "${HOOK_SECRET}"}
`, every, samples, f.top, f.provider, f.extra)
	f.cfgPath = filepath.Join(f.dir, "monitor.yaml")
	if err := os.WriteFile(f.cfgPath, []byte(yaml), 0o644); err != nil {
		f.t.Fatal(err)
	}
	cfg, err := config.Load(f.cfgPath, f.getenv)
	if err != nil {
		f.t.Fatalf("load monitor.yaml: %v\n%s", err, yaml)
	}
	return cfg
}

// monitor opens a monitor on cfg with the fixture's store, clock and
// logs, and fast notification retries.
func (f *fixture) monitor(cfg *config.Config) *Monitor {
	f.t.Helper()
	m, err := New(cfg, f.options())
	noErr(f.t, err)
	return m
}

func (f *fixture) options() Options {
	return Options{
		Store:         f.store,
		Getenv:        f.getenv,
		Logger:        slog.New(slog.NewJSONHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:           f.clock.Now,
		After:         f.clock.After,
		Tool:          "promptcanary 9.9.9-test",
		NotifyBackoff: notify.Backoff{Initial: time.Millisecond, Max: 5 * time.Millisecond, Attempts: 4},
		NotifyTimeout: 2 * time.Second,
	}
}

// once runs every check once and returns the only run.
func (f *fixture) once(m *Monitor) promptcanary.CheckRun {
	f.t.Helper()
	out, err := m.Once(context.Background())
	noErr(f.t, err)
	if len(out.Runs) != 1 {
		f.t.Fatalf("got %d runs, want 1", len(out.Runs))
	}
	return out.Runs[0]
}

// incidents lists the stored incidents, newest first.
func (f *fixture) incidents(openOnly bool) []promptcanary.Incident {
	return incidentsIn(f.t, f.store, openOnly)
}

// incidentsIn lists the incidents stored in st, newest first.
func incidentsIn(t testing.TB, st store.Monitor, openOnly bool) []promptcanary.Incident {
	t.Helper()
	incs, err := st.Incidents(context.Background(), storeFilter(openOnly))
	noErr(t, err)
	return incs
}

// checkRuns lists the stored check runs, newest first.
func (f *fixture) checkRuns() []promptcanary.CheckRun { return checkRunsIn(f.t, f.store) }

// checkRunsIn lists the check runs stored in st, newest first.
func checkRunsIn(t testing.TB, st store.Monitor) []promptcanary.CheckRun {
	t.Helper()
	runs, err := st.CheckRuns(context.Background(), "", "", 0)
	noErr(t, err)
	return runs
}

// newOneSample returns a fixture with a baseline of 3 samples and a
// monitor of its check, run every interval with 1 sample.
func newOneSample(t *testing.T, every string) (*fixture, *Monitor) {
	t.Helper()
	f := newFixture(t, "")
	f.saveBaseline(3)
	return f, f.monitor(f.config(every, 1))
}

// attempts lists the stored notification attempts, oldest first.
func (f *fixture) attempts() []promptcanary.NotificationAttempt {
	f.t.Helper()
	attempts, err := f.store.Notifications(context.Background(), "", 0)
	noErr(f.t, err)
	return attempts
}

// eventTypes lists the types of the incident id's events, in order,
// joined by commas.
func (f *fixture) eventTypes(id string) string {
	f.t.Helper()
	events, err := f.store.IncidentEvents(context.Background(), id)
	noErr(f.t, err)
	var types []string
	for _, e := range events {
		types = append(types, string(e.Type))
	}
	return strings.Join(types, ",")
}

// hangingMonitor opens a monitor on a saved baseline whose notifier
// hangs: its attempts last an hour, its shutdown grace 50ms.
func (f *fixture) hangingMonitor() *Monitor {
	f.t.Helper()
	f.saveBaseline(10)
	cfg := f.config("1h", 5)
	cfg.ShutdownGrace = 50 * time.Millisecond
	o := f.options()
	o.NotifyTimeout = time.Hour
	m, err := New(cfg, o)
	noErr(f.t, err)
	f.hook.hang.Store(true)
	return m
}

// noErr fails t at once when err is not nil.
func noErr(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// eventually waits (polling every millisecond, at most 10s so a broken
// test fails instead of hanging) until cond holds.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}
