// Package monitor is the monitor behind promptcanary serve: it runs the
// checks of monitor.yaml on their schedules, compares each run with the
// check's baseline (through the check package, as the command line does),
// confirms a drift with a second run before it opens an incident, keeps
// incidents through their lifecycle (open, update, repeat, acknowledge,
// resolve), enforces the daily budget, notices checks that stopped
// completing, notifies, exposes Prometheus metrics and serves the
// dashboard. Every decision is recorded in the store before it is acted
// on, so a restart neither loses a run nor notifies twice.
//
// Several monitors may share one store (PostgreSQL, or a SQLite file on
// one machine) and split the work: each scheduled slot of a check is run
// by the one monitor that claims its lease (store.Leases), kept by
// heartbeats and taken over by another monitor once it expires; each
// notification is written to the store's outbox (store.Outbox) with the
// incident's step and sent by the one monitor that claims it.
//
// The monitor never prints, never exits and never handles signals: the
// command line owns those (New, Start, Stop, Once).
package monitor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/monitor/delivery"
	"github.com/promptcanary/promptcanary/monitor/incident"
	"github.com/promptcanary/promptcanary/monitor/notify"
	"github.com/promptcanary/promptcanary/monitor/scheduler"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/store"
)

// DefaultConcurrency bounds how many checks run at once.
const DefaultConcurrency = 4

// DefaultListen is the address served when the configuration names none.
const DefaultListen = "127.0.0.1:9464"

// notifyTimeout bounds one notification attempt when the caller gives no
// HTTP client: a notifier that hangs is abandoned and retried, never waited
// for.
const notifyTimeout = 30 * time.Second

// Options are what the monitor needs besides its configuration.
type Options struct {
	// Store is the history; it must also implement store.Monitor (check
	// runs, incidents, notification attempts), store.Leases and
	// store.Outbox, as the SQLite and PostgreSQL stores do.
	Store store.Store
	// Getenv reads API keys and ${ENV} values; nil means os.Getenv.
	Getenv func(string) string
	// Logger receives the monitor's log lines, scrubbed of every secret;
	// nil discards them.
	Logger *slog.Logger
	// Now is the monitor's clock; nil means time.Now.
	Now func() time.Time
	// After waits on the monitor's clock, as time.After does; nil means
	// time.After. Tests pair it with Now to drive the scheduler.
	After func(d time.Duration) <-chan time.Time
	// HTTPClient delivers notifications; nil means a client with a 30s
	// timeout per attempt.
	HTTPClient *http.Client
	// Secrets collects every secret the configuration and the providers
	// read, and scrubs them from logs, the store and notifications; nil
	// means a set of the monitor's own.
	Secrets *redact.Set
	// Tool is the program and version recorded in runs, as the command
	// line records them ("promptcanary-go v1.2.0"); build_info's version
	// label is its part after the program's name.
	Tool string
	// Concurrency bounds the checks running at once; 0 means
	// DefaultConcurrency.
	Concurrency int
	// BaseURL is the dashboard's address as people reach it
	// ("https://canary.example.com"), for the links in notifications; ""
	// derives it from the listen address when that names a host.
	BaseURL string
	// NotifyBackoff is the retry policy of notifications; zero fields take
	// the notify package's defaults (1s doubling to 5m, 8 attempts).
	NotifyBackoff notify.Backoff
	// NotifyTimeout bounds one notification attempt; 0 means the notify
	// package's default (10s).
	NotifyTimeout time.Duration
	// LeaseTTL is how long a slot or a notification this monitor claimed
	// stays its own without a heartbeat (they come every third of it):
	// when the monitor dies, another monitor sharing the store takes its
	// work over within about one TTL. 0 means DefaultLeaseTTL.
	LeaseTTL time.Duration
	// Owner names this monitor in the store's leases and claims; "" means
	// the host, the process id and random bytes.
	Owner string
	// Tracer, when not nil, makes a span of each check run, with a span
	// per run and provider call below it, drift verdicts and incident
	// steps as events (see internal/telemetry). The caller starts it (from
	// otel: and the OpenTelemetry variables) and closes it after Stop.
	Tracer *telemetry.Tracer
}

// OnceOutcome is what Once found.
type OnceOutcome struct {
	// Runs holds one check run per check and provider, in configuration
	// order.
	Runs []promptcanary.CheckRun
	// Open are the incidents open after the runs (earlier ones included),
	// newest first.
	Open []promptcanary.Incident
}

// Monitor runs the checks of one configuration. Its methods are safe for
// concurrent use.
type Monitor struct {
	cfg     *config.Config
	log     *slog.Logger
	hist    store.Store
	state   store.Monitor
	secrets *redact.Set
	tracer  *telemetry.Tracer
	tool    string
	now     func() time.Time
	after   func(time.Duration) <-chan time.Time
	baseURL string
	// compare measures a run against its baseline: check.Compare, which
	// tests wrap to see the request or to fill the report.
	compare func(context.Context, check.CompareRequest) (*check.CompareOutcome, error)

	entries []*entry
	// outbox delivers the notifications to notifiers.
	outbox  *delivery.Outbox
	metrics *metrics
	// incidents keeps the incidents through their lifecycle and decides
	// what each run found; it owns the book of open incidents and the
	// daily budget.
	incidents *incident.Lifecycle
	health    storeHealth
	// version moves on whenever something the dashboard shows is
	// recorded (see Version).
	version   atomic.Uint64
	handler   http.Handler
	handlerMu sync.Once
	// grace is the configuration's, or the default where it leaves it
	// zero.
	grace time.Duration

	// schedule claims, holds, extends and takes over the slot leases,
	// and bounds the runs in flight.
	schedule *scheduler.Scheduler

	mu        sync.Mutex // guards the lifecycle below
	started   bool
	startedAt time.Time
	staleFrom time.Time // staleness counts from here: the start, or the last clock jump
	stopped   bool
	http      serving            // the dashboard, the API and /metrics
	sched     context.CancelFunc // stops the schedule loops
	schedCtx  context.Context    // ends when Stop stops scheduling
	runCtx    context.Context    // the context of runs
	runStop   context.CancelFunc // cancels runs in flight
	loops     sync.WaitGroup     // the schedule loops and the staleness ticker
	runs      sync.WaitGroup     // runs in flight
}

// entry is one check and provider: its configuration, its resolved target
// and its live state.
type entry struct {
	c      config.Check
	target check.Target
	// control is the check's control arm, nil for none: run in the same
	// compare as target (check.CompareRequest.Control).
	control     *check.Target
	samples     int
	baselineDir string
	// pinned is the check's pinned baseline, nil when it follows the
	// latest.
	pinned *promptcanary.Baseline
	// freshSeed is set when the suite pins no seed: every run then gets a
	// seed of its own, so runs (and confirmations) are fresh samples.
	freshSeed bool
	// gate is the check's upgrade gate, nil without candidate:.
	gate *gate
	// runLevel is the check's run-level rule, nil without run_level:.
	runLevel *runLevel

	// track is what the check's incidents depend on (failures in a row,
	// the last success, the trend detector, the baseline, the cost of a
	// run).
	track *incident.Tracker

	mu          sync.Mutex // guards the fields below
	running     bool
	runningSlot time.Time // the slot of the run in flight here
	// remote is the earliest slot of the check in flight on another
	// monitor, zero for none, as the ticker last read it.
	remote time.Time
	next   time.Time
	last   *promptcanary.CheckRun
}

// key identifies the entry among the checks.
func (e *entry) key() [2]string { return [2]string{e.c.Name, e.c.Provider} }

// New prepares a monitor for cfg: it resolves every check's provider,
// finds every check's baseline, builds the notifiers, and loads the state
// of incidents and checks from the store, so that a restart carries on
// where the last process stopped. It starts nothing (see Start and Once).
// All problems are returned at once, each naming its monitor.yaml line.
func New(cfg *config.Config, o Options) (*Monitor, error) {
	if cfg == nil {
		return nil, errors.New("new monitor: no configuration")
	}
	if o.Store == nil {
		return nil, errors.New("new monitor: no store")
	}
	state, ok := o.Store.(store.Monitor)
	leases, okL := o.Store.(store.Leases)
	box, okO := o.Store.(store.Outbox)
	if !ok || !okL || !okO {
		return nil, fmt.Errorf("new monitor: the store %T cannot hold the monitor's state (check runs, incidents, slot leases, notifications): use a SQLite or PostgreSQL store", o.Store)
	}
	m := newMonitor(cfg, o, configSecrets(cfg, o.Secrets))
	m.state = state
	m.incidents.Store, m.incidents.Steps = state, box
	m.schedule = scheduler.New(scheduler.Options{
		Leases: leases, Owner: cmp.Or(o.Owner, scheduler.NewOwner()), TTL: cmp.Or(o.LeaseTTL, DefaultLeaseTTL),
		Concurrency: cmp.Or(o.Concurrency, DefaultConcurrency), Now: m.now, After: m.after, Log: m.log,
		Wrote: func(err error) error { return m.health.wrote(realWrite, err) },
	})

	ctx := context.Background()
	var probs problems
	for i := range cfg.Checks {
		if e := m.newEntry(ctx, i, o, &probs); e != nil {
			m.entries = append(m.entries, e)
		}
	}
	notifiers := m.newNotifiers(o.HTTPClient, &probs)
	if err := probs.err(); err != nil {
		return nil, err
	}
	m.outbox = delivery.New(delivery.Options{
		Box: box, State: state, Owner: m.schedule.Owner(), TTL: m.schedule.TTL(),
		Notifiers: notifiers,
		Policy: notify.Policy{
			Backoff: o.NotifyBackoff,
			Timeout: o.NotifyTimeout,
			Now:     m.now,
			Scrub:   m.secrets.String,
			Logger:  m.log,
		},
		Repeat: m.incidents.Repeat, Now: m.now, Log: m.log,
		Record: m.recordAttempt, GaveUp: m.metrics.observeGiveUp, ReportURL: m.reportURL,
	})
	m.incidents.Outbox, m.incidents.Notifiers = m.outbox, notifiers
	if err := m.restore(ctx); err != nil {
		return nil, fmt.Errorf("new monitor: load the monitor's state from the store: %w", err)
	}
	return m, nil
}

// configSecrets adds the secrets of cfg (API keys, the admin token, the
// notifiers' credentials) to secrets, a new set when it is nil.
func configSecrets(cfg *config.Config, secrets *redact.Set) *redact.Set {
	if secrets == nil {
		secrets = redact.New()
	}
	secrets.Add(cfg.Secrets()...)
	secrets.Add(cfg.AdminToken)
	for _, n := range cfg.Notifiers {
		secrets.Add(n.Secret, n.Token, n.RoutingKey)
		if n.Type == notify.TypeSlack {
			secrets.Add(n.URL)
		}
	}
	return secrets
}

// newMonitor returns the monitor of cfg and o with its settings, its log
// and its metrics, before any check or notifier.
func newMonitor(cfg *config.Config, o Options, secrets *redact.Set) *Monitor {
	m := &Monitor{
		cfg:     cfg,
		hist:    o.Store,
		secrets: secrets,
		tracer:  o.Tracer,
		tool:    o.Tool,
		now:     o.Now,
		after:   o.After,
		baseURL: strings.TrimRight(o.BaseURL, "/"),
		compare: check.Compare,
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.after == nil {
		m.after = time.After
	}
	var h slog.Handler
	if o.Logger != nil {
		h = o.Logger.Handler()
	}
	m.log = slog.New(newScrubber(h, secrets))
	m.metrics = newMetrics(version(o.Tool))
	m.health.now, m.health.log, m.health.up, m.health.scrub = m.now, m.log, m.metrics.storeUp, m.scrub
	m.grace = cmp.Or(cfg.ShutdownGrace, config.DefaultShutdownGrace)
	m.incidents = &incident.Lifecycle{
		Now: m.now, Log: m.log,
		Repeat:       cmp.Or(cfg.Incidents.RepeatInterval, config.DefaultRepeatInterval),
		ResolveAfter: max(cmp.Or(cfg.Incidents.ResolveAfter, config.DefaultResolveAfter), 1),
		Line:         m.line,
		Wrote:        func(err error) error { return m.health.wrote(realWrite, err) },
		Attempt:      m.recordAttempt,
		Published:    m.published,
	}
	m.incidents.Budget.Limit = cfg.Budget.USDPerDay
	return m
}

// newNotifiers returns the configuration's notifiers, sending with client
// (nil: one with a timeout per attempt); each problem goes to probs.
func (m *Monitor) newNotifiers(client *http.Client, probs *problems) []notify.Notifier {
	if client == nil {
		client = &http.Client{Timeout: notifyTimeout}
	}
	var out []notify.Notifier
	for _, n := range m.cfg.Notifiers {
		nt, err := notify.New(n, client)
		if err != nil {
			probs.add(m.scrub(fmt.Errorf("%s: notifiers (%s): %w", m.where(n.Line), n.Name, err)))
			continue
		}
		out = append(out, nt)
		m.metrics.initNotifier(n.Name)
	}
	return out
}

// newEntry resolves the i-th check: its provider and its control, as a
// run would open them, their baselines and its candidate (once the
// provider opens: the gate runs it too). Each problem
// goes to probs, so that serve --check-config names all of a check's
// problems at once (a missing key and a missing baseline, say), and a
// check with any gets no entry (nil).
func (m *Monitor) newEntry(ctx context.Context, i int, o Options, probs *problems) *entry {
	c := m.cfg.Checks[i]
	where := fmt.Sprintf("%s: checks (%s)", m.where(c.Line), c.Name)
	if c.Suite == nil {
		probs.add(m.scrub(fmt.Errorf("%s: no suite loaded", where)))
		return nil
	}
	before := len(probs.errs)
	report := func(err error) {
		if err != nil {
			probs.add(m.scrub(err))
		}
	}
	t, n, provErr := m.resolveTarget(c, c.Provider, o)
	if provErr != nil {
		report(withHints(fmt.Errorf("%s: %w", where, provErr), provErr))
	}
	e := &entry{
		c:           c,
		target:      t,
		samples:     n,
		baselineDir: filepath.Join(c.Suite.Dir(), "baselines"),
		freshSeed:   c.Suite.Defaults.Seed == nil,
	}
	if c.RunLevel {
		e.runLevel = &runLevel{control: c.Control, samples: n}
	}
	report(m.newControl(ctx, e, o))
	var b *promptcanary.Baseline
	if provErr == nil || provider.Registered(c.Provider) { // a misspelt provider has no baseline to look for
		var err error
		b, err = m.findBaseline(ctx, e)
		report(err)
	}
	if provErr == nil { // the gate opens the provider again: one error is enough
		report(m.newGate(ctx, e, o))
	}
	if len(probs.errs) > before {
		return nil
	}
	e.track = incident.NewTracker(incident.Subject{Check: c.Name, Provider: c.Provider, Suite: c.Suite.Name, Notify: c.Notify}, b.SnapshotID)
	if e.isPinned() {
		e.pinned = b
	}
	m.metrics.initCheck(c.Name, c.Provider)
	m.noteRules(e)
	return e
}

// newControl opens the control of e's check, when it names one, as a run
// would, and finds its baseline.
func (m *Monitor) newControl(ctx context.Context, e *entry, o Options) error {
	c := e.c
	if c.Control == "" {
		return nil
	}
	where := fmt.Sprintf("%s: checks (%s): control %s", m.where(c.ControlLine), c.Name, c.Control)
	ct, _, err := m.resolveTarget(c, c.Control, o)
	if err != nil {
		return withHints(fmt.Errorf("%s: %w", where, err), err)
	}
	e.control = &ct
	return m.findControlBaseline(ctx, e, where)
}

// resolveTarget resolves spec, the provider or the control of check c,
// into the target a run opens, with the samples per prompt of a run. It
// opens it once now, so that a missing key or file is a configuration
// error and the provider's secrets are known before anything is logged;
// every run opens it afresh (a replay file may change).
func (m *Monitor) resolveTarget(c config.Check, spec string, o Options) (check.Target, int, error) {
	samples := c.Samples
	targets, n, err := check.Resolve(c.Suite, check.Settings{
		Providers: []string{spec},
		Samples:   &samples,
		Getenv:    o.Getenv,
		Secrets:   m.secrets,
	})
	if err != nil {
		return check.Target{}, 0, err
	}
	t := targets[0]
	// A provider the suite names reads its paths (a replay file, an exec
	// command) relative to canary.yaml; one named only in monitor.yaml
	// relative to monitor.yaml.
	t.Options.BaseDir = filepath.Dir(m.cfg.Path)
	if t.Entry != nil || c.Suite.Defaults.Provider == spec {
		t.Options.BaseDir = c.Suite.Dir()
	}
	if _, err := check.Open(c.Suite, []check.Target{t}); err != nil {
		return check.Target{}, 0, err
	}
	return t, n, nil
}

// noteRules logs once, at start, what the model rules change in the
// check's requests, and warns when the daily budget cannot count the
// check's runs because its model's price is unknown: such runs count
// nothing against the budget (they are not $0, they are unpriced), so the
// budget is not enforced for them until prices: in canary.yaml names it.
func (m *Monitor) noteRules(e *entry) {
	for _, a := range e.target.Adjustments {
		m.log.Info("model rules", logCheck, e.c.Name, logProvider, e.c.Provider, "adjusted", a)
	}
	for _, w := range e.target.Warnings {
		m.log.Warn("model rules", logCheck, e.c.Name, logProvider, e.c.Provider, "note", w)
	}
	if m.incidents.Budget.Limit <= 0 {
		return
	}
	if _, ok := provider.LookupPrice(e.target.Spec, e.c.Suite.Prices); !ok {
		m.log.Warn("price unknown: the daily budget does not count this check's runs", logCheck, e.c.Name, logProvider, e.c.Provider,
			"hint", "add the model under prices: in canary.yaml (USD per million tokens), for example prices: {my-model: {input: 1.0, output: 2.0}}")
	}
}

// where names a line of monitor.yaml for an error, the file relative to
// the working directory when it is below it.
func (m *Monitor) where(line int) string {
	name := m.cfg.Path
	if name == "" {
		name = config.FileName
	}
	if wd, err := os.Getwd(); err == nil && filepath.IsAbs(name) {
		if r, err := filepath.Rel(wd, name); err == nil && !strings.HasPrefix(r, "..") {
			name = r
		}
	}
	if line > 0 {
		return fmt.Sprintf("%s:%d", name, line)
	}
	return name
}

// version is the version label of build_info: Tool without the program's
// name (its first word).
func version(tool string) string {
	_, v, _ := strings.Cut(strings.TrimSpace(tool), " ")
	return cmp.Or(strings.TrimSpace(v), "unknown")
}

// Start listens on the configured address, serves Handler there, and
// starts the schedule of every check, the staleness ticker and the
// delivery of notifications. It returns once the listener is open; ctx
// bounds nothing but the start (Stop ends the monitor).
func (m *Monitor) Start(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started || m.stopped {
		return errors.New("start the monitor: already started or stopped")
	}
	addr := cmp.Or(m.cfg.Listen, DefaultListen)
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	m.started = true
	m.startedAt = m.now()
	m.staleFrom = m.startedAt
	_ = m.probeStore(ctx) // logged, and on /readyz and store_up from the start
	m.http.start(ln, m.Handler(), m.log)
	m.outbox.Start()
	m.runCtx, m.runStop = context.WithCancel(context.WithoutCancel(ctx))
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.sched, m.schedCtx = cancel, sctx
	for _, e := range m.entries {
		m.loops.Go(func() {
			m.schedule.Loop(sctx, plan(e), func(slot time.Time) { m.dispatch(sctx, e, slot) })
		})
	}
	m.loops.Go(func() { m.watch(sctx, m.startedAt) })
	m.log.Info("monitor started", logAddr, m.http.addr, logChecks, len(m.entries), logNotifiers, len(m.outbox.Names()), logOwner, m.schedule.Owner(), logTTL, m.schedule.TTL())
	m.outbox.Wake() // notifications a stopped or dead monitor left
	return nil
}

// Addr returns the address the monitor listens on ("127.0.0.1:9464"),
// "" before Start.
func (m *Monitor) Addr() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.http.addr
}

// Stop stops scheduling at once, lets the runs in flight finish within
// the configuration's shutdown grace (then cancels them: they are recorded
// as unmeasured, interrupted), delivers the notifications still queued
// within the grace, and closes the listener. ctx bounds the whole stop.
// A notification still undelivered after the grace is given up here and
// recorded as such (and logged); it stays in the store's outbox for the
// next monitor, and does not make Stop fail. On a monitor that was never
// started (after Once), Stop gives up the notifications in flight the
// same way.
func (m *Monitor) Stop(ctx context.Context) error {
	m.mu.Lock()
	if m.stopped {
		m.mu.Unlock()
		return nil
	}
	m.stopped = true
	started := m.started
	m.mu.Unlock()
	if !started {
		m.outbox.Stop(ctx, 0)
		return nil
	}

	grace := m.grace
	m.sched()
	m.loops.Wait()
	// The ticker is gone: heartbeats go on while runs and deliveries
	// finish, so no other monitor takes them over meanwhile.
	defer m.schedule.Heartbeats(context.Background(), m.heartbeat)()
	done := make(chan struct{})
	go func() {
		m.runs.Wait()
		close(done)
	}()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		m.log.Warn("shutdown grace passed: cancelling the runs in flight")
		m.runStop()
		<-done
	case <-ctx.Done():
		m.runStop()
		<-done
	}
	m.runStop()
	m.outbox.Stop(ctx, grace)
	err := m.http.stop(ctx)
	m.log.Info("monitor stopped")
	return err
}

// Once runs every check once now, with confirmation runs and
// notifications as scheduled runs have, delivers the notifications (within
// the shutdown grace), and returns the runs and the open incidents. It
// needs no listener; the staleness rule does not apply. Each run claims
// the slot "now" of its check, as scheduled runs claim theirs.
func (m *Monitor) Once(ctx context.Context) (*OnceOutcome, error) {
	now := m.now()
	out := &OnceOutcome{Runs: make([]promptcanary.CheckRun, len(m.entries))}
	// Once has no ticker of its own: heartbeats keep the slots claimed.
	stop := m.schedule.Heartbeats(context.WithoutCancel(ctx), m.heartbeat)
	var wg sync.WaitGroup
	for i, e := range m.entries {
		wg.Go(func() {
			out.Runs[i] = m.claimAndRun(ctx, e, now)
		})
	}
	wg.Wait()
	err := m.outbox.Drain(ctx, m.grace)
	stop()
	out.Open = m.incidents.Book.List()
	if ctx.Err() != nil {
		return out, fmt.Errorf("run the checks once: %w", ctx.Err())
	}
	if err != nil {
		m.log.Warn("notifications not delivered within the shutdown grace", logErr, err)
	}
	return out, nil
}

// claimAndRun runs e now unless a run of it is in flight (then the run is
// recorded as skipped). A slot another monitor holds is returned as
// skipped, not recorded.
func (m *Monitor) claimAndRun(ctx context.Context, e *entry, slot time.Time) promptcanary.CheckRun {
	var (
		cr promptcanary.CheckRun
		ok bool
	)
	switch {
	case !e.claim(slot):
		cr, ok = m.skipSlot(ctx, e, slot, "a run of this check is still in flight")
	case m.schedule.Acquire(ctx, nil) != nil:
		e.release()
		cr, ok = m.skipSlot(ctx, e, slot, "the monitor stopped before the run could start")
	default:
		cr, ok = m.runSlot(ctx, e, slot)
		m.schedule.Release()
		e.release()
	}
	if !ok {
		now := m.now().UTC()
		cr = promptcanary.CheckRun{Check: e.c.Name, Provider: e.c.Provider, Suite: e.c.Suite.Name, Slot: slot.UTC(), StartedAt: now, FinishedAt: now,
			Outcome: promptcanary.CheckSkipped, Reason: "another monitor sharing the store runs this slot"}
	}
	return cr
}

// claim marks e as running the run of slot; false when it already runs
// one.
func (e *entry) claim(slot time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running {
		return false
	}
	e.running, e.runningSlot = true, slot
	return true
}

// release marks e as not running.
func (e *entry) release() {
	e.mu.Lock()
	e.running = false
	e.mu.Unlock()
}

// problems collects configuration problems with their hints.
type problems struct {
	errs  []error
	hints []string
}

// add appends err and the hints it carries.
func (p *problems) add(err error) {
	p.errs = append(p.errs, err)
	var h interface{ Hints() []string }
	if errors.As(err, &h) {
		for _, s := range h.Hints() {
			if !slices.Contains(p.hints, s) {
				p.hints = append(p.hints, s)
			}
		}
	}
}

// err returns every problem as one error, nil when there is none.
func (p *problems) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	return &ConfigError{errs: p.errs, hints: p.hints}
}

// ConfigError is every problem New found in the configuration (a check
// without a baseline, a provider that cannot be opened, a notifier that
// cannot be built), each naming its monitor.yaml line, with hints.
type ConfigError struct {
	errs  []error
	hints []string
}

// Error lists the problems, one a line.
func (e *ConfigError) Error() string { return errors.Join(e.errs...).Error() }

// Unwrap returns the problems, for errors.Is and errors.As.
func (e *ConfigError) Unwrap() []error { return e.errs }

// Hints returns how to fix the problems.
func (e *ConfigError) Hints() []string { return e.hints }

// hinted is an error with the hints of another.
type hinted struct {
	error
	hints []string
}

func (h *hinted) Unwrap() error   { return h.error }
func (h *hinted) Hints() []string { return h.hints }

// withHints returns err with the hints of from (a *check.ConfigError).
func withHints(err, from error) error {
	var h interface{ Hints() []string }
	if errors.As(from, &h) && len(h.Hints()) > 0 {
		return &hinted{err, h.Hints()}
	}
	return err
}
