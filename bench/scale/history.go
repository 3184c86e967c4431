package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/internal/cli"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlite"
	"github.com/promptcanary/promptcanary/store/storetest"
)

// The listings the dashboard asks for (monitor/web): the overview's
// sparklines, a check's chart, its probe heatmap and its baselines, and
// the drift reports searched for a run's report.
const (
	sparkRuns    = 48
	historyRuns  = 500
	heatRuns     = 50
	baselineRuns = 100
	reportLookup = 200
)

// maxQuery is what "fast" means for one page or one trends command: well
// under the 100 ms a person notices.
const maxQuery = 100 * time.Millisecond

// yearStart is the first hour of the -history year.
var yearStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// historyQueries fills a SQLite history (and with dsn a PostgreSQL one)
// with a year of hourly runs of c.checks checks, as the monitor records
// them (each run with its drift report and its check run, a baseline a
// month), and times the trends command's queries and the dashboard's.
func historyQueries(ctx context.Context, c *config, dir, dsn string, stderr io.Writer) ([]figure, error) {
	path := filepath.Join(dir, "year.db")
	s, err := sqlite.Open(path)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	start := time.Now()
	n, err := fill(ctx, c, s, s, 1)
	if err != nil {
		return nil, fmt.Errorf("fill the SQLite history: %w", err)
	}
	size, _ := fileSize(path)
	fmt.Fprintf(stderr, "scale: SQLite history of %d runs (%s) ready in %v\n", n, mb(size), time.Since(start).Round(time.Second))
	figs, err := timeQueries(ctx, c, "SQLite", s, s, n)
	if err != nil || dsn == "" || !c.postgres {
		return figs, err
	}
	_, pg, done, err := freshStore(ctx, dsn)
	if err != nil {
		return figs, err
	}
	defer done()
	start = time.Now()
	if n, err = fill(ctx, c, pg, pg, 8); err != nil {
		return figs, fmt.Errorf("fill the PostgreSQL history: %w", err)
	}
	fmt.Fprintf(stderr, "scale: PostgreSQL history of %d runs ready in %v\n", n, time.Since(start).Round(time.Second))
	more, err := timeQueries(ctx, c, "PostgreSQL", pg, pg, n)
	return append(figs, more...), err
}

// yearCheck is one monitored check of the -history year.
type yearCheck struct {
	name, suite, model string
}

func yearChecks(c *config) []yearCheck {
	out := make([]yearCheck, c.checks)
	for i := range out {
		out[i] = yearCheck{name: fmt.Sprintf("check-%02d", i), suite: fmt.Sprintf("suite-%02d", i/2), model: []string{"sim/stable", "sim/noisy"}[i%2]}
	}
	return out
}

// fill records the year in h, unless h already holds it (a kept -dir), with
// workers writers at once, and returns the number of runs.
func fill(ctx context.Context, c *config, h store.Store, m store.Monitor, workers int) (int, error) {
	checks := yearChecks(c)
	want := c.checks * c.hours
	last := checks[len(checks)-1]
	if got, err := h.Runs(ctx, store.RunFilter{Suite: last.suite, Model: last.model}); err == nil && len(got) == c.hours {
		if all, err := h.Runs(ctx, store.RunFilter{}); err == nil && len(all) == want {
			return want, nil
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	var mu sync.Mutex
	templates := map[string]*promptcanary.DriftReport{}
	for ci, ch := range checks {
		for hour := range c.hours {
			g.Go(func() error {
				return recordHour(gctx, h, m, ch, ci, hour, templates, &mu)
			})
		}
	}
	return want, g.Wait()
}

// recordHour records one scheduled run of ch: the run (3 prompts × 3
// probes × 5 samples), its drift report and its check run, and the run as
// the check's baseline on the first hour of every 30 days.
func recordHour(ctx context.Context, h store.Store, m store.Monitor, ch yearCheck, ci, hour int, templates map[string]*promptcanary.DriftReport, mu *sync.Mutex) error {
	at := yearStart.Add(time.Duration(hour) * time.Hour)
	id := fmt.Sprintf("run-%02d-%05d", ci, hour)
	r := storetest.LargeRun(id, 3, 3, 5, uint64(ci*100000+hour))
	r.SuiteName, r.Provider.ModelID = ch.suite, ch.model
	shift := at.Sub(r.StartedAt)
	r.StartedAt, r.FinishedAt = r.StartedAt.Add(shift), r.FinishedAt.Add(shift)
	for i := range r.LLMResponses {
		r.LLMResponses[i].Timestamp = r.LLMResponses[i].Timestamp.Add(shift)
		r.LLMResponses[i].ProviderModelID = ch.model
	}
	if err := h.SaveRun(ctx, r); err != nil {
		return err
	}
	mu.Lock()
	tmpl := templates[ch.name]
	mu.Unlock()
	if tmpl == nil {
		base := storetest.NewBaseline("tmpl", r, r.StartedAt, "")
		d, err := drift.Compare(base, r, drift.Options{Seed: 1})
		if err != nil {
			return err
		}
		tmpl = d
		mu.Lock()
		templates[ch.name] = d
		mu.Unlock()
	}
	d := *tmpl
	d.ReportID, d.CurrentRunID, d.GeneratedAt = "drift-"+id, id, r.FinishedAt
	d.SuiteName, d.Provider = ch.suite, r.Provider
	d.Severity, d.HasDrift = promptcanary.SeverityNone, false
	outcome := promptcanary.CheckClean
	if hour%97 == 5 {
		d.Severity, d.HasDrift, outcome = promptcanary.SeverityMedium, true, promptcanary.CheckDrift
	}
	if err := h.SaveDrift(ctx, &d); err != nil {
		return err
	}
	if hour%(30*24) == 0 {
		if _, err := h.SaveBaseline(ctx, storetest.NewBaseline("snap-"+id, r, r.FinishedAt, "")); err != nil {
			return err
		}
	}
	sum := store.Summarize(r)
	return m.SaveCheckRun(ctx, &promptcanary.CheckRun{ID: "cr-" + id, Check: ch.name, Provider: ch.model, Suite: ch.suite,
		Slot: at, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, Outcome: outcome, RunID: id, ReportID: d.ReportID,
		PassRate: sum.PassRate, Score: sum.Score, BaselinePassRate: sum.PassRate, Severity: d.Severity})
}

// timeQueries times each query set of the trends command and the
// dashboard on the filled history: the median of repeated calls.
func timeQueries(ctx context.Context, c *config, backend string, h store.Store, m store.Monitor, runs int) ([]figure, error) {
	checks := yearChecks(c)
	ch := checks[len(checks)/2]
	trends := func(limit int, suite, model string) func() error { return trendsQuery(ctx, h, limit, suite, model) }
	sets := []struct {
		what string
		do   func() error
		info bool // no target: a stress figure
	}{
		{"`trends` (the latest suite's 30 runs: queries, terminal and HTML charts)", trends(30, "", ""), false},
		{"`trends -n 720` (a check's month of hourly runs)", trends(min(720, c.hours), ch.suite, ch.model), false},
		{fmt.Sprintf("`trends -n 0` (a check's whole year, %d runs)", c.hours), trends(0, ch.suite, ch.model), true},
		{fmt.Sprintf("dashboard overview (%d checks × %d check runs)", len(checks), sparkRuns), func() error {
			for _, k := range checks {
				got, err := m.CheckRuns(ctx, k.name, k.model, sparkRuns)
				if err != nil {
					return err
				}
				if len(got) != min(sparkRuns, c.hours) {
					return fmt.Errorf("check runs of %s: got %d", k.name, len(got))
				}
			}
			return nil
		}, false},
		{fmt.Sprintf("dashboard check page (%d check runs, %d-run heatmap, baselines)", historyRuns, heatRuns), func() error {
			if _, err := m.CheckRuns(ctx, ch.name, ch.model, historyRuns); err != nil {
				return err
			}
			if _, err := h.ProbeScores(ctx, ch.suite, ch.model, heatRuns); err != nil {
				return err
			}
			_, err := h.Runs(ctx, store.RunFilter{Suite: ch.suite, Model: ch.model, BaselinesOnly: true, Limit: baselineRuns})
			return err
		}, false},
		{fmt.Sprintf("dashboard run page (report lookup in %d check runs and drift reports)", reportLookup), func() error {
			if _, err := m.CheckRuns(ctx, ch.name, ch.model, reportLookup); err != nil {
				return err
			}
			_, err := h.Drifts(ctx, ch.suite, ch.model, reportLookup)
			return err
		}, false},
	}
	var figs []figure
	for _, s := range sets {
		d, err := median(s.do)
		if err != nil {
			return figs, fmt.Errorf("%s: %s: %w", backend, s.what, err)
		}
		f := figure{what: fmt.Sprintf("%s, %d runs: %s", backend, runs, s.what), value: fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)}
		if !s.info {
			f.target, f.ok = fmt.Sprintf("≤ %v", maxQuery), check(d <= maxQuery)
		}
		figs = append(figs, f)
	}
	return figs, nil
}

// trendsQuery returns what the trends command does for the latest limit
// runs of suite and model (the latest run's when suite is empty): its
// queries (cli.LoadTrends, the command's own) and its terminal and HTML
// charts.
func trendsQuery(ctx context.Context, h store.Store, limit int, suite, model string) func() error {
	return func() error {
		d, err := cli.LoadTrends(ctx, h, suite, model, limit)
		if err != nil {
			return err
		}
		if limit > 0 && len(d.Runs) != limit || len(d.Scores) < len(d.Runs) {
			return fmt.Errorf("trends of %s: got %d runs, %d scores", d.Suite, len(d.Runs), len(d.Scores))
		}
		if err := report.Trends(io.Discard, report.Terminal, d, report.Options{}); err != nil {
			return err
		}
		return report.Trends(io.Discard, report.HTML, d, report.Options{})
	}
}

// median calls do once to warm caches, then times it 15 times.
func median(do func() error) (time.Duration, error) {
	if err := do(); err != nil {
		return 0, err
	}
	ts := make([]time.Duration, 15)
	for i := range ts {
		start := time.Now()
		if err := do(); err != nil {
			return 0, err
		}
		ts[i] = time.Since(start)
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}
