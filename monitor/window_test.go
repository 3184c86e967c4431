package monitor

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/policy"
	"github.com/promptcanary/promptcanary/provider"
)

// wobble is a provider whose answers fail at a rate set per run, spread
// evenly over the prompts: of every 20 (sample, prompt) cells, fails
// fail, so with 4 of 20 every prompt fails one sample in five, too few
// for any prompt to stand out. A provider with bad hours.
type wobble struct {
	fails atomic.Int64
	// until ends the bad hour (unix ns on now's clock), 0 for never: a
	// confirmation run taken confirm_after later misses the bad hour.
	until atomic.Int64
	// broken is 1 + the prompt whose every answer fails during the bad
	// hour, 0 for none.
	broken atomic.Int64
	// drift makes drift more of every 20 answers of the model "m" fail,
	// other cells than the bad hour's, bad hour or not: a drift of the
	// target that its control (any other model) does not share.
	drift atomic.Int64
	now   func() time.Time
}

// wobbleArm is the wobble as one model answers it: "m", the target, or
// another, a control, which shares the bad hours with other cells
// failing (as another sample of the same hour would) and not the drift.
type wobbleArm struct {
	*wobble
	control bool
}

// theWobble is the wobble provider of the test running (the tests that
// use it do not run in parallel).
var theWobble atomic.Pointer[wobble]

func init() {
	provider.Register("wobble", func(model string, _ provider.Options) (provider.Provider, error) {
		if w := theWobble.Load(); w != nil {
			return wobbleArm{w, model != "m"}, nil
		}
		return nil, fmt.Errorf("no wobble provider")
	})
}

// set makes fails of every 20 answers fail from now on.
func (w *wobble) set(fails int) {
	w.fails.Store(int64(fails))
	w.until.Store(0)
}

// badHour makes fails of every 20 answers fail until until.
func (w *wobble) badHour(fails int, until time.Time) {
	w.fails.Store(int64(fails))
	w.until.Store(until.UnixNano())
}

func (w wobbleArm) Generate(_ context.Context, req *provider.Request) (*promptcanary.Response, error) {
	var p int
	fmt.Sscanf(req.Prompt.ID, "q%d", &p)
	cell := int64((16*req.Sample + p) % 20)
	if w.control {
		cell = int64((16*req.Sample + p + 3*req.Sample + 1) % 20)
	}
	fail := !w.control && cell >= 20-w.drift.Load()
	if u := w.until.Load(); u == 0 || w.now().Before(time.Unix(0, u)) {
		fail = fail || cell < w.fails.Load() || w.broken.Load() == int64(p)+1
	}
	content := "yes"
	if fail {
		content = "no"
	}
	return &promptcanary.Response{Content: content, FinishReason: "stop", PromptTokens: 10, CompletionTokens: 1}, nil
}

// wobbleFixture is a fixture whose check runs a suite of 16 prompts on a
// wobble provider, with a baseline pooled from 6 runs that failed 0, 1
// and 2 of every 20 answers (twice each): a spread between runs beyond
// sampling.
func wobbleFixture(t *testing.T, runLevel bool) (*fixture, *wobble) {
	return wobbleFixtureOf(t, runLevel, []int{0, 1, 2, 0, 1, 2})
}

// wobbleFixtureOf is wobbleFixture with a baseline of a run per entry of
// fails, which failed that many of every 20 answers.
func wobbleFixtureOf(t *testing.T, runLevel bool, fails []int) (*fixture, *wobble) {
	return wobbleFixtureWith(t, runLevel, fails, "[expected_keywords]")
}

// wobbleFixtureWith is wobbleFixtureOf with the suite's probes given (a
// YAML list).
func wobbleFixtureWith(t *testing.T, runLevel bool, fails []int, probes string) (*fixture, *wobble) {
	f := newFixture(t, "")
	w := &wobble{now: f.clock.Now}
	theWobble.Store(w)
	t.Cleanup(func() { theWobble.CompareAndSwap(w, nil) })
	f.spec = "wobble/m"
	f.provider = "    provider: " + f.spec + "\n"
	f.extra = "    confirm_after: 20m\n"
	if runLevel {
		f.extra += "    run_level: true\n"
	}
	yaml := []byte("name: canary\nprobes: " + probes + "\nprompts:\n")
	for i := range 16 {
		yaml = fmt.Appendf(yaml, "  - {id: q%d, text: \"Say yes (%d).\", expected_keywords: [yes]}\n", i, i)
	}
	f.writeSuite(string(yaml))
	f.savePooledBaseline(5, len(fails), func(i int) { w.set(fails[i]) })
	w.set(0)
	return f, w
}

// runWobble runs m once per plan entry, an hour apart, each scheduled
// run failing fails of every 20 answers and its confirmation, 20 minutes
// later, none (a bad hour), and returns the check runs.
func runWobble(f *fixture, m *Monitor, w *wobble, plan []int) []promptcanary.CheckRun {
	return runWobbleFor(f, m, w, plan, 10*time.Minute)
}

// runWobbleFor is runWobble with bad hours that last d: past 20 minutes,
// the confirmation shares the scheduled run's.
func runWobbleFor(f *fixture, m *Monitor, w *wobble, plan []int, d time.Duration) []promptcanary.CheckRun {
	var out []promptcanary.CheckRun
	for _, fails := range plan {
		start := f.clock.Now()
		w.badHour(fails, start.Add(d))
		done := make(chan promptcanary.CheckRun, 1)
		go func() { done <- f.once(m) }()
		for waiting := true; waiting; {
			select {
			case cr := <-done:
				out, waiting = append(out, cr), false
			case <-time.After(time.Millisecond):
				if f.clock.waiters() == 1 { // the confirmation waits
					f.clock.Advance(20 * time.Minute)
				}
			}
		}
		f.clock.Set(start.Add(time.Hour))
	}
	return out
}

// warmPlan is 60 clean scheduled runs with the spread of the baseline's.
func warmPlan() []int {
	var plan []int
	for i := range 60 {
		plan = append(plan, i%3)
	}
	return plan
}

// With run_level: true, a check judges its suite against the run-to-run
// spread: one bad hour opens a window that later good runs close, with
// no incident; bad hours in a row open an incident within the window,
// which says so, where the usual rule (whose confirmations, taken later,
// miss the bad hours) opens none.
func TestRunLevelWindow(t *testing.T) {
	f, w := wobbleFixture(t, true)
	m := f.monitor(f.config("1h", 5))
	runs := runWobble(f, m, w, warmPlan())
	if rl := runs[len(runs)-1].RunLevel; rl == nil || !(rl.Rate > 0.9-1e-9 && rl.Rate < 0.9+1e-9) || !(rl.Var > 0) {
		t.Fatalf("the last warm run's run-level rate: got %+v, want 0.9", rl)
	}
	if st := m.Statuses()[0].RunLevel; st == nil || st.BaselineRuns != 6 || st.Learned != 60 || !st.Applies {
		t.Fatalf("run-level status: got %+v, want 6 baseline runs, 60 learned, applying", st)
	}
	// A restart reads the learned runs back from the store.
	m = f.monitor(f.config("1h", 5))
	if st := m.Statuses()[0].RunLevel; st == nil || st.BaselineRuns != 6 || st.Learned != 60 || !st.Applies {
		t.Fatalf("run-level status after a restart: got %+v, want 6 baseline runs, 60 learned, applying", st)
	}
	runWobble(f, m, w, []int{4, 0, 1, 2, 0})
	if incs := f.incidents(false); len(incs) != 0 {
		t.Fatalf("one bad hour opened %d incidents (%s), want none", len(incs), incs[0].Summary)
	}
	runs = runWobble(f, m, w, []int{4, 4, 4, 4})
	incs := f.incidents(true)
	if len(incs) != 1 || !hasPrefix(incs[0].Summary, "suite pass rate below the usual run-to-run spread over ") {
		t.Fatalf("four bad hours in a row: got incidents %+v, want one opened by the window", incs)
	}
	if !runs[1].Confirmed || runs[0].Confirmed {
		t.Errorf("the window confirmed at runs %v %v %v %v, want at the second bad hour", runs[0].Confirmed, runs[1].Confirmed, runs[2].Confirmed, runs[3].Confirmed)
	}
	t.Log(incs[0].Summary)

	g, gw := wobbleFixture(t, false)
	gm := g.monitor(g.config("1h", 5))
	if st := gm.Statuses()[0].RunLevel; st != nil {
		t.Errorf("without run_level: the status shows %+v, want none", st)
	}
	runWobble(g, gm, gw, append(warmPlan(), 4, 0, 1, 2, 0, 4, 4, 4, 4))
	if incs := g.incidents(false); len(incs) != 0 {
		t.Errorf("without run_level: got %d incidents, want none (the confirmations miss the bad hours)", len(incs))
	}
}

// A window open when the monitor stops is open again after it starts: the
// bad hour after a restart confirms the one before it, as without the
// restart (TestRunLevelWindow), instead of opening a window of its own.
func TestRunLevelWindowSurvivesRestart(t *testing.T) {
	f, w := wobbleFixture(t, true)
	m := f.monitor(f.config("1h", 5))
	runWobble(f, m, w, append(warmPlan(), 4))
	if st := m.Statuses()[0].RunLevel; st == nil || st.Open != 1 {
		t.Fatalf("after one bad hour: got %+v, want a window of 1 run open", st)
	}
	m = f.monitor(f.config("1h", 5))
	if st := m.Statuses()[0].RunLevel; st == nil || st.Open != 1 || st.Learned != 61 {
		t.Fatalf("after a restart: got %+v, want the window of 1 run open again and 61 learned runs", st)
	}
	if runs := runWobble(f, m, w, []int{4}); !runs[0].Confirmed {
		t.Errorf("the second bad hour, after a restart: got %+v, want the window confirmed", runs[0])
	}
}

// On start the rule reads back only clean runs of its baseline: measured,
// recorded, not confirmed, not during a drift incident.
func TestRunLevelRestore(t *testing.T) {
	at := func(h int) time.Time { return epoch.Add(time.Duration(h) * time.Hour) }
	run := func(h int, rate float64) promptcanary.CheckRun {
		return promptcanary.CheckRun{ID: fmt.Sprint(h), Outcome: promptcanary.CheckClean, BaselineID: "b", FinishedAt: at(h),
			RunLevel: &promptcanary.SuiteRunRate{Rate: rate, Var: 0.001}}
	}
	runs := []promptcanary.CheckRun{run(9, 0.9), run(8, 0.8), run(7, 0.7), run(6, 0.6), run(5, 0.5), run(4, 0.4), run(3, 0.3)}
	runs[1].Confirmed = true                                                               // a finding
	runs[2].BaselineID = "old"                                                             // another baseline
	runs[3].RunLevel = nil                                                                 // recorded without the rule
	runs[4].Outcome = promptcanary.CheckUnmeasured                                         // measured nothing
	incs := []promptcanary.Incident{{OpenedAt: at(4), ResolvedAt: at(4).Add(time.Minute)}} // open when run 4 was decided
	var r runLevel
	r.restore("b", runs, incs)
	if len(r.stored) != 2 || r.stored[0].Rate != 0.3 || r.stored[1].Rate != 0.9 {
		t.Errorf("restored %+v, want runs 3 and 9, oldest first", r.stored)
	}
	if r.replay != 1 {
		t.Errorf("replay %d, want 1: only run 9 follows the newest run with no other between", r.replay)
	}
}

// With run_level: true, a bad hour moving every pair 40 points flags both
// probes of the suite, and neither fell more than the other: no
// confirmation is taken, and the check run says why. A prompt that
// breaks in a bad hour of 20 points falls beyond the run's offset and
// opens an incident for its pairs alone.
func TestRunLevelPairsBeyondOffset(t *testing.T) {
	f, w := wobbleFixtureWith(t, true, []int{0, 4, 8, 0, 4, 8}, "[expected_keywords, {type: keyword_presence, required_keywords: [yes]}]")
	m := f.monitor(f.config("1h", 5))
	var warm []int
	for i := range 60 {
		warm = append(warm, 4*(i%3))
	}
	runWobble(f, m, w, warm)
	runs := runWobbleFor(f, m, w, []int{12}, 30*time.Minute)
	if incs := f.incidents(false); len(incs) != 0 {
		t.Fatalf("a bad hour through the confirmation opened %d incidents (%s), want none", len(incs), incs[0].Summary)
	}
	if cr := runs[0]; cr.ConfirmRunID != "" || !strings.Contains(cr.Reason, "the run flagged probes or categories, but none fell significantly more than the run's other pairs") {
		t.Fatalf("the bad hour's check run: confirmation %q, reason %q; want no confirmation taken, the offset saying why", cr.ConfirmRunID, cr.Reason)
	}
	runWobble(f, m, w, warm[:3])
	w.broken.Store(1) // q0
	runs = runWobbleFor(f, m, w, []int{8}, 30*time.Minute)
	incs := f.incidents(true)
	if len(incs) != 1 || !runs[0].Confirmed {
		t.Fatalf("q0 broken in a bad hour: got %d open incidents, confirmed %v (%s); want one", len(incs), runs[0].Confirmed, runs[0].Reason)
	}
	// keyword_presence/q0 judged the same answers alike: its test is
	// expected_keywords/q0's (SameTestAs), listed once.
	if u := incs[0].Units; len(u) != 1 || u[0].Name != "expected_keywords/q0" {
		t.Errorf("the incident's units: got %+v, want the pair of q0 alone", u)
	}
}

// hasPrefix reports whether s begins with prefix.
func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

// With run_level: true and a control, the suite is also judged against
// the control in the same slots: the runs' differences from the control
// are learned and restored after a restart; bad hours both arms share
// open no incident; a persistent drift of the target alone, hidden in
// bad hours, opens one by the control window within four runs, naming
// the provider as the cause.
func TestRunLevelControl(t *testing.T) {
	f, w := wobbleFixtureWith(t, true, []int{0, 4, 8, 0, 4, 8}, "[expected_keywords]")
	saveControlBaseline(f, "wobble/pinned")
	f.extra += "    control: wobble/pinned\n"
	m := f.monitor(f.config("1h", 5))
	var warm []int
	for i := range 60 {
		warm = append(warm, 4*(i%3))
	}
	runs := runWobble(f, m, w, warm)
	if rl := runs[len(runs)-1].RunLevel; rl == nil || rl.ControlDiff == nil {
		t.Fatalf("the last warm run's record: got %+v, want a difference from the control", rl)
	}
	// The last runs are learned once they leave the runs the window tests.
	learned := 60 - (policy.DefaultWindowRuns + 1)
	st := m.Statuses()[0].RunLevel
	if st == nil || st.Control == nil || st.Control.Learned != learned || !st.Control.Applies || st.Control.Held != policy.DefaultWindowRuns+1 {
		t.Fatalf("control window: got %+v, want %d differences learned, applying, holding 4 runs", st.Control, learned)
	}
	m = f.monitor(f.config("1h", 5))
	if st := m.Statuses()[0].RunLevel; st == nil || st.Control == nil || st.Control.Learned != learned || !st.Control.Applies || st.Control.Held != policy.DefaultWindowRuns+1 {
		t.Fatalf("control window after a restart: got %+v, want %d differences learned again, holding 4 runs", st.Control, learned)
	}
	runWobble(f, m, w, []int{8, 8, 8, 0, 4})
	if incs := f.incidents(false); len(incs) != 0 {
		t.Fatalf("bad hours both arms share opened %d incidents (%s), want none", len(incs), incs[0].Summary)
	}
	w.drift.Store(2) // 10 points, the target alone
	runs = runWobble(f, m, w, []int{0, 8, 4, 0})
	incs := f.incidents(true)
	if len(incs) != 1 || !strings.Contains(incs[0].Summary, " points further below the control wobble/pinned's than usual over ") {
		t.Fatalf("the target 10 points down: got incidents %+v, want one opened by the control window", incs)
	}
	a := incs[0].Attribution
	if a == nil || a.Cause != promptcanary.CauseProvider || len(a.Evidence) == 0 || !hasPrefix(a.Evidence[0], "the control wobble/pinned did not rise (its pass rate ") {
		t.Errorf("attribution %+v, want provider, the control did not rise", a)
	}
	if u := incs[0].Units; len(u) != 1 || u[0].Name != "canary less the control wobble/pinned" || !(u[0].Current < u[0].Baseline) {
		t.Errorf("units %+v, want the suite less the control, its difference fallen", u)
	}
	if runs[0].Confirmed || runs[1].Confirmed {
		t.Errorf("confirmed at the drift's first or second run: want a mean of 3 runs or more")
	}
	t.Log(incs[0].Summary)
	// While the drift lasts the incident stays open: no run of it is
	// clean, so it neither resolves nor opens again.
	runWobble(f, m, w, []int{8, 0, 4, 0, 8, 4, 0, 0})
	if all := f.incidents(false); len(all) != 1 || !all[0].Open() {
		t.Errorf("eight more runs of the drift: %d incidents (open: %v), want the one, open", len(all), len(all) > 0 && all[0].Open())
	}
}

// A restart replays the newest stored runs through the control window as
// they went live: a run without a difference, or with one from another
// control, closes it, and only the differences from the current control
// are learned.
func TestRunLevelControlReplay(t *testing.T) {
	diff := func(h int, d float64, control string) promptcanary.CheckRun {
		return promptcanary.CheckRun{ID: fmt.Sprint(h), Outcome: promptcanary.CheckClean, BaselineID: "b", FinishedAt: epoch.Add(time.Duration(h) * time.Hour),
			RunLevel: &promptcanary.SuiteRunRate{Rate: 0.9, Var: 0.001, ControlDiff: &d, Control: control}}
	}
	var runs []promptcanary.CheckRun // newest first
	for h := 40; h > 0; h-- {
		runs = append(runs, diff(h, 0.01*float64(h%3-1), "c/new"))
	}
	runs[1].RunLevel.ControlDiff = nil // the control did not answer two runs ago
	runs[20].RunLevel.Control = "c/old"
	base := &promptcanary.Baseline{SnapshotID: "b"}
	r := runLevel{control: "c/new", samples: 5}
	r.restore("b", runs, nil)
	r.mu.Lock()
	r.use(base)
	r.mu.Unlock()
	st := r.status().Control
	// 40 stored, one without a difference, one of another control; the
	// newest 4 are replayed, and the last 4 differences still pending.
	if st == nil || st.Held != 1 || st.Learned != 38-(policy.DefaultWindowRuns+1) {
		t.Errorf("control window after the replay: %+v, want 1 run held (the gap closed it) and %d learned", st, 38-(policy.DefaultWindowRuns+1))
	}
}
