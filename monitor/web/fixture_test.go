package web

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/store"
)

// The fixture is a monitor a week into its life: a drift incident open on
// one check, a clean check running now that had a resolved incident, a
// check whose provider fails (an unmeasured incident), a stale nightly check
// and a new check without baseline. Its answers hold markup, which every
// page must show as text.

// fixtureNow is the time the fixture's pages are rendered at.
var fixtureNow = time.Date(2026, 5, 14, 12, 0, 0, 0, time.UTC)

// Hostile strings: model output and names written to inject markup.
const (
	hostileScript = `<script>alert(1)</script>`
	hostileImg    = `"><img src=x onerror=alert(1)>`
	hostileCheck  = `evil"><img src=x onerror=alert(1)>`
)

type fixtureOptions struct {
	// hostile adds a check whose name and provider are markup.
	hostile bool
	// hourly is the number of scheduled runs of each hourly check (default
	// 48, two days).
	hourly int
	// reports is how many of the drifting check's newest runs get a drift
	// report and a confirmation run (default 3).
	reports int
	// samples is the number of samples per prompt of a scheduled run
	// (default 10; baselines have twice as many).
	samples int
	// pastIncidents adds as many resolved incidents, each with two events
	// and a notification, spread over the history.
	pastIncidents int
}

// fixture is what populate stored, by name.
type fixture struct {
	statuses []CheckStatus
	// check and provider are the drifting check.
	check, provider, suite string
	driftIncident          string
	unmeasuredIncident     string
	resolvedIncident       string
	downRun, downRep       string // a run whose every call failed and its report, which compared nothing
	driftRun, driftRep     string // the latest drifting run and its report
	confirmRun             string // a confirmation run
	cleanRun               string // a run without a drift report
	baseline, baseRun      string
	otherProvider          string // of the drifting check, clean
	hostileCheck           string
	hostileProvider        string
	checkRuns, runs        int
}

// fixtureProbes are the probes of the checkout suite.
var fixtureProbes = []struct {
	id, typ, name string
	cat           promptcanary.Category
}{
	{"json_valid", "json_valid", "JSON valid", promptcanary.CategoryFormat},
	{"max_length", "response_length", "At most 600 characters", promptcanary.CategoryFormat},
	{"mentions_total", "contains", "Mentions the order total", promptcanary.CategoryFactual},
	{"no_pii", "regex_absent", "No card numbers", promptcanary.CategorySafety},
	{"polite", "llm_judge", "Polite tone", promptcanary.CategoryCustom},
}

var fixturePrompts = []string{"order-status", "refund-policy", "cancel-order", "shipping-time", "gift-card"}

// answerOf is a typical answer to a prompt, degraded once drifted.
func answerOf(prompt string, drifted bool, sample int) string {
	if !drifted {
		switch prompt {
		case "order-status":
			return `{"status": "shipped", "total": "$54.20", "eta": "Thursday"}` + "\nYour order #1042 has shipped and arrives Thursday. The total was $54.20."
		case "refund-policy":
			return `{"refundable": true, "days": 30, "total": "$54.20"}` + "\nYou can return any item within 30 days for a full refund of $54.20."
		}
		return fmt.Sprintf(`{"answer": "ok", "prompt": %q}`, prompt) + "\nHappy to help with that."
	}
	// The drifted model varies its answers between samples, so the
	// model identity test has independent draws to test.
	again := ""
	if sample%2 == 1 {
		again = " Anything else?"
	}
	switch prompt {
	case "order-status":
		return "I'm sorry, I can't share order details right now. " + hostileScript + " Please contact support." + again
	case "refund-policy":
		return `Refunds depend on the item` + hostileImg + ` and are handled case by case.` + again
	}
	return fmt.Sprintf(`{"answer": "ok", "prompt": %q}`, prompt) + "\nHappy to help with that!" + again
}

// passProb is the chance a probe passes a prompt, before and after the
// drift.
func passProb(probe, prompt string, drifted bool) float64 {
	switch {
	case drifted && probe == "mentions_total" && (prompt == "order-status" || prompt == "refund-policy"):
		return 0.1
	case drifted && probe == "json_valid" && (prompt == "order-status" || prompt == "refund-policy"):
		return 0.3
	case probe == "polite":
		return 0.9
	}
	return 0.985
}

// idGen makes deterministic UUID-like ids.
type idGen struct{ rng *rand.Rand }

func (g idGen) next() string {
	a, b := g.rng.Uint64(), g.rng.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, a>>16&0xffff, a&0xfff, b>>48&0x3fff|0x8000, b&0xffffffffffff)
}

// makeRun returns a run of the checkout suite.
func makeRun(rng *rand.Rand, id, suite, model string, started time.Time, samples int, drifted bool) *promptcanary.Run {
	r := &promptcanary.Run{
		SchemaVersion: promptcanary.SchemaVersion, RunID: id, SuiteName: suite,
		Provider:  promptcanary.ProviderConfig{ModelID: model, Temperature: 0.7, MaxTokens: 400},
		StartedAt: started, FinishedAt: started.Add(38 * time.Second), Samples: samples, Tool: "promptcanary test",
	}
	for _, p := range fixturePrompts {
		for s := range samples {
			// The drifted model is wordier too: the economic section has
			// a change to show.
			completion := 60
			if drifted {
				completion = 90 + s%3
			}
			r.LLMResponses = append(r.LLMResponses, promptcanary.Response{PromptID: p, ProviderModelID: model,
				Content: answerOf(p, drifted, s), Sample: s, LatencyMS: 420 + float64(rng.IntN(300)), PromptTokens: 120, CompletionTokens: completion, TotalTokens: 120 + completion})
			for _, pr := range fixtureProbes {
				pass := rng.Float64() < passProb(pr.id, p, drifted)
				score := 1.0
				details := "ok"
				if !pass {
					score, details = 0, "expected \"$54.20\" in the answer"
				}
				r.ProbeResults = append(r.ProbeResults, promptcanary.ProbeResult{ProbeID: pr.id, ProbeType: pr.typ, ProbeName: pr.name,
					Category: pr.cat, PromptID: p, Sample: s, Passed: pass, Score: score, Details: details})
			}
		}
	}
	return r
}

// populate stores the fixture in hist and state.
func populate(tb testing.TB, hist store.Store, state store.Monitor, o fixtureOptions) *fixture {
	tb.Helper()
	if o.hourly == 0 {
		o.hourly = 48
	}
	if o.reports == 0 {
		o.reports = 3
	}
	if o.samples == 0 {
		o.samples = 10
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	ids := idGen{rand.New(rand.NewPCG(3, 5))}
	must := func(err error) {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
	}
	f := &fixture{check: "checkout-prod", provider: "openai/gpt-4o-mini", suite: "checkout", otherProvider: "anthropic/claude-3-5-haiku"}

	// Baselines, ten days old, of the two providers of checkout-prod.
	baselineOf := map[string]*promptcanary.Baseline{}
	for _, model := range []string{f.provider, f.otherProvider, "openai/gpt-4o", "sim/flaky"} {
		run := makeRun(rng, ids.next(), f.suite, model, fixtureNow.Add(-10*24*time.Hour), 2*o.samples, false)
		b := store.NewBaseline(run, "first baseline", fixtureNow.Add(-10*24*time.Hour+time.Minute))
		b.SnapshotID = ids.next()
		_, err := hist.SaveBaseline(ctx, b)
		must(err)
		baselineOf[model] = b
		f.runs++
	}
	f.baseline, f.baseRun = baselineOf[f.provider].SnapshotID, baselineOf[f.provider].RunResult.RunID

	// The runs of unmeasured slots take their ids from their own
	// sequence, so that the rest of the fixture keeps its ids.
	downIDs := idGen{rand.New(rand.NewPCG(13, 17))}
	saveCR := func(cr *promptcanary.CheckRun) {
		must(state.SaveCheckRun(ctx, cr))
		f.checkRuns++
	}
	// hourly stores the scheduled runs of an hourly check; drifted says
	// which hours (0 the newest) drifted, unmeasured which failed.
	type history struct {
		check, provider string
		runs            int
		drifted         func(hour int) bool
		unmeasured      func(hour int) bool
		reports         int
	}
	hourlyRuns := func(h history) (last *promptcanary.CheckRun) {
		base := baselineOf[h.provider]
		for hour := h.runs - 1; hour >= 0; hour-- {
			slot := fixtureNow.Add(-time.Duration(hour)*time.Hour - 20*time.Minute)
			cr := &promptcanary.CheckRun{ID: ids.next(), Check: h.check, Provider: h.provider, Suite: f.suite, Slot: slot,
				StartedAt: slot.Add(3 * time.Second), FinishedAt: slot.Add(44 * time.Second), BaselineID: base.SnapshotID,
				BaselinePassRate: base.RunResult.PassRate(), CostUSD: 0.0042}
			if h.unmeasured != nil && h.unmeasured(hour) {
				cr.Outcome = promptcanary.CheckUnmeasured
				cr.Reason = "provider sim/flaky: 503 Service Unavailable after 3 attempts on 25 of 25 calls"
				cr.FinishedAt = slot.Add(9 * time.Second)
				// As the monitor records it: the run, whose every call
				// failed, and the report of a compare that compared
				// nothing (severity none).
				down := &promptcanary.Run{SchemaVersion: promptcanary.SchemaVersion, RunID: downIDs.next(), SuiteName: f.suite,
					Provider: promptcanary.ProviderConfig{ModelID: h.provider}, StartedAt: cr.StartedAt, FinishedAt: cr.FinishedAt, Samples: o.samples}
				for _, p := range fixturePrompts {
					down.Errors = append(down.Errors, promptcanary.CallError{PromptID: p, Provider: h.provider, Message: "503 Service Unavailable", Attempts: 3})
				}
				must(hist.SaveRun(ctx, down))
				f.runs++
				d, err := drift.Compare(base, down, drift.Options{Seed: 1, Now: func() time.Time { return cr.FinishedAt }, NewID: downIDs.next})
				must(err)
				must(hist.SaveDrift(ctx, d))
				cr.RunID, cr.ReportID = down.RunID, d.ReportID
				f.downRun, f.downRep = down.RunID, d.ReportID
				saveCR(cr)
				last = cr
				continue
			}
			drifted := h.drifted != nil && h.drifted(hour)
			run := makeRun(rng, ids.next(), f.suite, h.provider, cr.StartedAt, o.samples, drifted)
			must(hist.SaveRun(ctx, run))
			f.runs++
			cr.RunID, cr.PassRate, cr.Score, cr.Outcome = run.RunID, run.PassRate(), run.OverallScore(), promptcanary.CheckClean
			if drifted {
				cr.Outcome, cr.Severity = promptcanary.CheckDrift, promptcanary.SeverityHigh
				if hour < h.runs-1 {
					cr.Confirmed = true
				}
				if hour < h.reports {
					d, err := drift.Compare(base, run, drift.Options{Seed: 1, Now: func() time.Time { return cr.FinishedAt }, NewID: ids.next})
					must(err)
					must(hist.SaveDrift(ctx, d))
					cr.ReportID, cr.Severity = d.ReportID, d.Severity
					// The first drifting run of the stretch has a confirmation.
					conf := makeRun(rng, ids.next(), f.suite, h.provider, cr.FinishedAt.Add(2*time.Second), o.samples, true)
					must(hist.SaveRun(ctx, conf))
					f.runs++
					dc, err := drift.Compare(base, conf, drift.Options{Seed: 2, Now: func() time.Time { return conf.FinishedAt }, NewID: ids.next})
					must(err)
					must(hist.SaveDrift(ctx, dc))
					cr.ConfirmRunID, cr.ConfirmReportID, cr.Confirmed = conf.RunID, dc.ReportID, true
					if f.confirmRun == "" {
						f.confirmRun = conf.RunID
					}
				}
			} else if f.cleanRun == "" && h.provider == f.provider {
				f.cleanRun = run.RunID
			}
			saveCR(cr)
			last = cr
		}
		return last
	}

	// checkout-prod on openai: drifted for the last 7 hours.
	lastDrift := hourlyRuns(history{check: f.check, provider: f.provider, runs: o.hourly, reports: o.reports,
		drifted: func(h int) bool { return h < 7 }})
	f.driftRun, f.driftRep = lastDrift.RunID, lastDrift.ReportID
	// checkout-prod on anthropic: clean, with a drift three days ago.
	lastOther := hourlyRuns(history{check: f.check, provider: f.otherProvider, runs: o.hourly,
		drifted: func(h int) bool { return h >= 70 && h < 74 }})
	// support-bot on sim/flaky: its provider fails since three hours.
	lastFlaky := hourlyRuns(history{check: "support-bot", provider: "sim/flaky", runs: min(o.hourly, 72),
		unmeasured: func(h int) bool { return h < 3 }})

	// nightly-eval: daily, its last run three days ago.
	var lastNightly *promptcanary.CheckRun
	nb := baselineOf["openai/gpt-4o"]
	for day := 20; day >= 3; day-- {
		slot := time.Date(2026, 5, 14, 2, 0, 0, 0, time.UTC).AddDate(0, 0, -day)
		run := makeRun(rng, ids.next(), f.suite, "openai/gpt-4o", slot.Add(time.Second), o.samples, false)
		must(hist.SaveRun(ctx, run))
		f.runs++
		cr := &promptcanary.CheckRun{ID: ids.next(), Check: "nightly-eval", Provider: "openai/gpt-4o", Suite: f.suite, Slot: slot,
			StartedAt: slot.Add(time.Second), FinishedAt: slot.Add(90 * time.Second), Outcome: promptcanary.CheckClean,
			RunID: run.RunID, BaselineID: nb.SnapshotID, PassRate: run.PassRate(), Score: run.OverallScore(), BaselinePassRate: nb.RunResult.PassRate(), CostUSD: 0.031}
		saveCR(cr)
		lastNightly = cr
	}

	// Incidents.
	f.driftIncident = "9f2c4e71a0b35d86"
	opened := fixtureNow.Add(-6*time.Hour - 19*time.Minute)
	driftInc := &promptcanary.Incident{ID: f.driftIncident, Fingerprint: "fp-" + f.check + "-openai-drift", Check: f.check, Suite: f.suite,
		Provider: f.provider, Kind: promptcanary.IncidentDrift, Severity: promptcanary.SeverityHigh,
		Summary: "pass rate fell from 95.5% to 72.8%: mentions_total and json_valid regressed on order-status and refund-policy",
		Units: []promptcanary.IncidentUnit{
			{Unit: "probe", Name: "mentions_total", Baseline: 0.98, Current: 0.62, Q: 0.0002},
			{Unit: "pair", Name: "mentions_total/order-status", Baseline: 1, Current: 0.1, Q: 0.0004},
			{Unit: "pair", Name: "json_valid/refund-policy", Baseline: 1, Current: 0.3, Q: 0.003},
			{Unit: "suite", Name: f.suite, Baseline: 0.955, Current: 0.728, Q: 0.0001},
		},
		Attribution: &promptcanary.Attribution{Cause: promptcanary.CauseProvider, Evidence: []string{
			"served model changed since the baseline: gpt-4o-mini-2024-07-18 → gpt-4o-mini-2025-01-31",
			"system_fingerprint changed: fp_44709d6fcb → fp_0ba0d124f1",
			"the control openai/gpt-4o-mini-2024-07-18 held on the same prompts in the same slot",
		}},
		RunID: lastDrift.ConfirmRunID, ReportID: lastDrift.ConfirmReportID, OpenedAt: opened, UpdatedAt: fixtureNow.Add(-2 * time.Hour),
		NotifiedAt: opened.Add(5 * time.Second), NotifiedTo: []string{"oncall", "hook", "tracker"}}
	if driftInc.RunID == "" {
		driftInc.RunID, driftInc.ReportID = lastDrift.RunID, lastDrift.ReportID
	}
	must(state.SaveIncident(ctx, driftInc))
	for _, e := range []promptcanary.IncidentEvent{
		{At: opened, Type: promptcanary.EventOpened, RunID: driftInc.RunID, Severity: promptcanary.SeverityMedium, Summary: "drift confirmed by a second run: 2 units flagged"},
		{At: opened.Add(2 * time.Hour), Type: promptcanary.EventUpdated, RunID: driftInc.RunID, Severity: promptcanary.SeverityHigh, Summary: "severity medium → high; 4 units flagged"},
		{At: fixtureNow.Add(-2 * time.Hour), Type: promptcanary.EventRepeated, RunID: driftInc.RunID, Severity: promptcanary.SeverityHigh, Summary: "still drifting " + hostileScript},
	} {
		e.IncidentID = f.driftIncident
		must(state.AddIncidentEvent(ctx, e))
	}
	for i, a := range []promptcanary.NotificationAttempt{
		{Notifier: "oncall", Attempt: 1, OK: true, Code: 200},
		{Notifier: "hook", Attempt: 1, Code: 500, Error: `webhook "hook": POST https://ops.example.com/canary: 500 Internal Server Error`},
		{Notifier: "hook", Attempt: 2, Code: 0, Error: `webhook "hook": context deadline exceeded (timeout 10s)`},
		{Notifier: "hook", Attempt: 3, OK: true, Code: 204},
		{Notifier: "tracker", Attempt: 1, OK: true, Code: 201},
	} {
		a.ID, a.IncidentID, a.Status, a.Event = fmt.Sprintf("n-open-%s", a.Notifier), f.driftIncident, promptcanary.NotificationFiring, promptcanary.EventOpened
		a.At = opened.Add(time.Duration(5+i*20) * time.Second)
		must(state.SaveNotification(ctx, a))
	}

	f.unmeasuredIncident = "3b8d0e5a7c61f249"
	uOpened := fixtureNow.Add(-1*time.Hour - 19*time.Minute)
	must(state.SaveIncident(ctx, &promptcanary.Incident{ID: f.unmeasuredIncident, Fingerprint: "fp-support-bot-unmeasured", Check: "support-bot",
		Suite: f.suite, Provider: "sim/flaky", Kind: promptcanary.IncidentUnmeasured, Severity: promptcanary.SeverityMedium,
		Summary: "2 runs in a row could not measure: 503 Service Unavailable", OpenedAt: uOpened, UpdatedAt: uOpened,
		AcknowledgedAt: uOpened.Add(10 * time.Minute), AcknowledgedBy: "maria", NotifiedTo: []string{"oncall"}}))
	must(state.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: f.unmeasuredIncident, At: uOpened, Type: promptcanary.EventOpened, Summary: "2 runs in a row could not measure"}))
	must(state.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: f.unmeasuredIncident, At: uOpened.Add(10 * time.Minute), Type: promptcanary.EventAcknowledged, Summary: "acknowledged by maria"}))
	must(state.SaveNotification(ctx, promptcanary.NotificationAttempt{ID: "n-u", IncidentID: f.unmeasuredIncident, Notifier: "oncall",
		Status: promptcanary.NotificationFiring, Event: promptcanary.EventOpened, Attempt: 1, At: uOpened.Add(3 * time.Second), OK: true, Code: 200}))

	f.resolvedIncident = "c47a19e2b5d08f63"
	rOpened := fixtureNow.Add(-73*time.Hour - 19*time.Minute)
	must(state.SaveIncident(ctx, &promptcanary.Incident{ID: f.resolvedIncident, Fingerprint: "fp-checkout-anthropic-drift", Check: f.check,
		Suite: f.suite, Provider: f.otherProvider, Kind: promptcanary.IncidentDrift, Severity: promptcanary.SeverityMedium,
		Summary: "json_valid regressed on gift-card", OpenedAt: rOpened, UpdatedAt: rOpened.Add(5 * time.Hour),
		ResolvedAt: rOpened.Add(5 * time.Hour), CleanRuns: 2, NotifiedTo: []string{"oncall"}}))
	must(state.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: f.resolvedIncident, At: rOpened, Type: promptcanary.EventOpened, Severity: promptcanary.SeverityMedium, Summary: "drift confirmed by a second run: 1 unit flagged"}))
	must(state.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: f.resolvedIncident, At: rOpened.Add(5 * time.Hour), Type: promptcanary.EventResolved, Summary: "2 clean runs in a row"}))

	for i := range o.pastIncidents {
		at := fixtureNow.Add(-time.Duration(80+i*7) * time.Hour)
		id := fmt.Sprintf("past%012d", i)
		must(state.SaveIncident(ctx, &promptcanary.Incident{ID: id, Fingerprint: "fp-past", Check: f.check, Suite: f.suite,
			Provider: f.otherProvider, Kind: promptcanary.IncidentDrift, Severity: promptcanary.SeverityLow,
			Summary: "json_valid regressed on gift-card", OpenedAt: at, UpdatedAt: at.Add(2 * time.Hour), ResolvedAt: at.Add(2 * time.Hour), CleanRuns: 2}))
		must(state.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: id, At: at, Type: promptcanary.EventOpened, Summary: "drift confirmed"}))
		must(state.AddIncidentEvent(ctx, promptcanary.IncidentEvent{IncidentID: id, At: at.Add(2 * time.Hour), Type: promptcanary.EventResolved, Summary: "2 clean runs"}))
		must(state.SaveNotification(ctx, promptcanary.NotificationAttempt{ID: "n-" + id, IncidentID: id, Notifier: "oncall",
			Status: promptcanary.NotificationFiring, Event: promptcanary.EventOpened, Attempt: 1, At: at, OK: true, Code: 200}))
	}

	open := func(ids ...string) []promptcanary.Incident {
		var out []promptcanary.Incident
		for _, id := range ids {
			inc, err := state.Incident(ctx, id)
			must(err)
			out = append(out, *inc)
		}
		return out
	}
	f.statuses = []CheckStatus{
		{Check: f.check, Provider: f.provider, Suite: f.suite, Schedule: "every 1h", Last: lastDrift, Next: fixtureNow.Add(40 * time.Minute),
			Open: open(f.driftIncident), Baseline: f.baseline, Confirmation: "20m after a run that flags drift", Control: "openai/gpt-4o-mini-2024-07-18"},
		{Check: f.check, Provider: f.otherProvider, Suite: f.suite, Schedule: "every 1h", Last: lastOther, Next: fixtureNow.Add(40 * time.Minute),
			Running: true, Baseline: baselineOf[f.otherProvider].SnapshotID},
		{Check: "support-bot", Provider: "sim/flaky", Suite: f.suite, Schedule: "every 1h", Last: lastFlaky, Next: fixtureNow.Add(40 * time.Minute),
			Open: open(f.unmeasuredIncident), Baseline: baselineOf["sim/flaky"].SnapshotID},
		{Check: "nightly-eval", Provider: "openai/gpt-4o", Suite: f.suite, Schedule: "cron 0 2 * * * (UTC)", Last: lastNightly,
			Next: time.Date(2026, 5, 15, 2, 0, 0, 0, time.UTC), Stale: true, Baseline: nb.SnapshotID},
		{Check: "summarizer", Provider: "ollama/llama3.1:8b", Suite: "summaries", Schedule: "every 30m", Next: fixtureNow.Add(12 * time.Minute)},
	}
	if o.hostile {
		f.hostileCheck, f.hostileProvider = hostileCheck, "exec/"+hostileScript
		must(state.SaveIncident(ctx, &promptcanary.Incident{ID: "e1e2e3e4e5e6e7e8", Fingerprint: "fp-hostile", Check: f.hostileCheck, Suite: f.suite,
			Provider: f.hostileProvider, Kind: promptcanary.IncidentDrift, Severity: promptcanary.SeverityLow,
			Summary: hostileImg + " " + hostileScript, OpenedAt: fixtureNow.Add(-time.Hour), UpdatedAt: fixtureNow.Add(-time.Hour),
			Attribution: &promptcanary.Attribution{Cause: hostileImg, Evidence: []string{"the answer is now " + hostileScript, hostileImg}}}))
		cr := &promptcanary.CheckRun{ID: "hostile-cr", Check: f.hostileCheck, Provider: f.hostileProvider, Suite: f.suite,
			Slot: fixtureNow.Add(-time.Hour), Outcome: promptcanary.CheckUnmeasured, Reason: hostileScript + hostileImg}
		saveCR(cr)
		f.statuses = append(f.statuses, CheckStatus{Check: f.hostileCheck, Provider: f.hostileProvider, Suite: f.suite,
			Schedule: "every 1h " + hostileImg, Last: cr, Open: open("e1e2e3e4e5e6e7e8")})
	}
	return f
}

// newFixture returns a fake source over an in-memory store holding the
// fixture.
func newFixture(tb testing.TB, o fixtureOptions) (*fakeSource, *memStore, *fixture) {
	tb.Helper()
	mem := newMemStore()
	f := populate(tb, mem, mem, o)
	src := &fakeSource{statuses: f.statuses, hist: mem, state: mem, now: func() time.Time { return fixtureNow }}
	return src, mem, f
}
