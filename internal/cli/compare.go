package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/internal/telemetry"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/suite"
)

type compareOptions struct {
	config           string
	settings         settings
	current          string
	baseline         string
	baselineDir      string
	baselineProvider string
	failOnDrift      string
	failOnIdentity   bool
	failOnEconomic   bool
	legacy           bool
	noAdaptive       bool
	verbose          bool
	out              outputs
	// candidate and margin are the upgrade gate's (see candidate.go).
	candidate string
	margin    float64
	// control is the control arm (see docs/attribution.md).
	control string
}

func (a *app) compareCmd() *cobra.Command {
	o := &compareOptions{}
	c := &cobra.Command{
		Use:   "compare",
		Short: "Compare a run against a baseline and report drift",
		Long: `Compare a run against a baseline: either run the suite now (--provider) or
load a saved run (--current FILE, which may hold the runs of several
providers: each is compared against its own baseline). The baseline is
--baseline FILE, or the latest baseline in --baseline-dir or the history for
this suite and provider/model (--baseline-provider picks another model's).

Pairs are matched by (probe id, prompt id). Pairs on one side only are
reported as added or removed, calls that failed as not measured, pairs whose
prompt changed as stale: none of these is drift, and a compare in which no
pair could be compared has no verdict (exit 3). A saved run that is its
baseline's own run is refused (exit 2): compared with itself, a run shows no
drift whatever the model does.

--candidate NAME/MODEL is the upgrade gate: it runs the current model (-p)
and the candidate on the same prompts, samples (default 30) and seed, with
no baseline, and tests per probe and prompt whether the candidate passes
less often by more than --margin points (default 5), with false-discovery
control over all pairs. It exits 1 when a pair is worse beyond the margin,
and lists where the candidate is better, worse and inconclusive (see
docs/candidate.md).

Every report names the likely cause of what it found (suite, provider,
provider-wide, app, judge, noise or unknown) with its evidence.
--control NAME/MODEL runs a control arm beside -p in the same run (a pinned
snapshot beside an alias, the raw model beside an http/ app), compared
against its own baseline; a difference-in-differences test per pair tells
the target's change from a provider-wide one. The control never changes the
exit code (see docs/attribution.md).

--fail-on-drift exits 1 on drift of any severity; --fail-on-drift=high only
on drift rated high or critical. --fail-on-identity also exits 1 when the
model identity test says the answers no longer look like the same model
(see docs/identity.md); without it that test is reported, never gated.
--fail-on-economic exits 1 when tokens per answer, latency or the cost of
the run moved against the baseline beyond its test and by 10% or more
(see docs/economics.md); without it the economic section is reported,
never gated.

Exit codes:
  0    no drift at or above the --fail-on-drift threshold (or no gate)
  1    --fail-on-drift and drift at or above its threshold, or --fail-on-identity
       and the answers no longer look like the same model, or --fail-on-economic
       and an economic measure flagged, or --candidate and
       a pair worse beyond the margin
  2    usage or configuration error (nothing was called)
  3    no verdict: nothing measured, more failed calls than --max-errors, or nothing compared
  4    internal error
  5    compared, but an output failed (history or report file)
  130  interrupted (nothing compared or recorded)`,
		Example: `  promptcanary compare -p sim/stable
  promptcanary compare -p sim/drifted --baseline-provider sim/stable --fail-on-drift
  promptcanary compare -p openai/gpt-4o --fail-on-drift=high --output-junit drift.xml
  promptcanary compare --current run.json --baseline baselines/x.json --output-md drift.md
  promptcanary compare -p openai/gpt-4o --candidate openai/gpt-5 --margin 5 -o gate.json
  promptcanary compare -p openai/gpt-4o --control openai/gpt-4o-2024-08-06 --samples 10`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			return a.traced(c, "compare", func() error { return a.compare(c, o) })
		},
	}
	o.flags(c)
	return c
}

// flags declares compare's flags on c.
func (o *compareOptions) flags(c *cobra.Command) {
	f := c.Flags()
	f.StringVarP(&o.config, "config", "c", "canary.yaml", "suite file (default: canary.yaml here or in a parent directory)")
	o.settings.flags(c)
	f.StringVar(&o.current, "current", "", "compare the run(s) in this saved JSON (run --output-json) instead of running now")
	f.StringVar(&o.baseline, "baseline", "", "baseline file (default: the latest in --baseline-dir or the history for this suite and model)")
	f.StringVar(&o.baselineDir, "baseline-dir", "baselines", "directory of baseline files (default: baselines/ beside canary.yaml)")
	f.StringVar(&o.baselineProvider, "baseline-provider", "", "use the latest baseline of this provider/model instead of the current one's")
	f.StringVar(&o.failOnDrift, "fail-on-drift", "", "exit 1 on drift; =low, =medium, =high or =critical gates only at that severity or above")
	f.Lookup("fail-on-drift").NoOptDefVal = "any"
	f.BoolVar(&o.failOnIdentity, "fail-on-identity", false, "exit 1 when the model identity test says the answers no longer look like the same model")
	f.BoolVar(&o.failOnEconomic, "fail-on-economic", false, "exit 1 when tokens per answer, latency or the cost of the run moved against the baseline (see docs/economics.md)")
	f.BoolVar(&o.legacy, "legacy-compare", false, "use the original single-sample rule even with many samples")
	f.BoolVar(&o.noAdaptive, "no-adaptive", false, "take every --samples sample instead of stopping early on prompts that are clearly fine")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list stable pairs too")
	f.StringVar(&o.candidate, "candidate", "", "upgrade gate: run this provider/model beside the current one (-p) and exit 1 when it is worse beyond --margin on a probe and prompt")
	f.StringVar(&o.control, "control", "", "run this provider/model beside -p as a control arm, against its own baseline, to tell who changed (see docs/attribution.md)")
	f.Float64Var(&o.margin, "margin", drift.DefaultMargin*100, "with --candidate: the pass-rate drop in points a candidate may show on a pair and still count as no worse")
	o.out.flags(c)
}

// parseFailOn reads --fail-on-drift: nil when not given.
func parseFailOn(v string) (*promptcanary.Severity, error) {
	switch v {
	case "":
		return nil, nil
	case "any":
		s := promptcanary.SeverityLow
		return &s, nil
	}
	s, err := promptcanary.ParseSeverity(strings.ToLower(v))
	if err != nil || s == promptcanary.SeverityNone {
		return nil, usageErr(fmt.Errorf("--fail-on-drift=%s: want low, medium, high or critical", v),
			"--fail-on-drift alone gates on any drift; --fail-on-drift=high only on high or critical")
	}
	return &s, nil
}

// compare runs the compare command: it compares the saved run of --current,
// or a run made now, with the baselines, prints and writes the reports and
// returns the exit code of the verdict.
func (a *app) compare(c *cobra.Command, o *compareOptions) error {
	if err := checkCandidateFlags(c, o); err != nil {
		return err
	}
	if o.candidate != "" {
		return a.compareCandidate(c, o)
	}
	if o.control != "" && o.current != "" {
		return usageErr(errors.New("--control and --current exclude each other: the control arm runs now, beside the provider, and a saved run has none"),
			"run now with -p PROVIDER --control CONTROL, each compared against its own baseline")
	}
	failOn, err := parseFailOn(o.failOnDrift)
	if err != nil {
		return err
	}
	req := check.CompareRequest{
		BaselineModel: o.baselineProvider,
		Legacy:        o.legacy,
		NoAdaptive:    o.noAdaptive,
		MaxErrors:     o.settings.maxErrors,
		// A saved run is not recorded again: only the reports are needed
		// after the compare.
		ReportsOnly: o.current != "",
	}
	var (
		st     *suite.Suite
		config string
	)
	if o.current != "" {
		config, st, err = a.compareSaved(c, o, &req)
	} else {
		config, st, err = a.compareNow(c, o, &req)
	}
	if err != nil {
		return err
	}
	if o.baseline != "" {
		b, err := file.LoadBaseline(o.baseline)
		if err != nil {
			return usageErr(err)
		}
		req.Baseline = b
	}
	hist, err := a.openStore(config, st)
	if err != nil {
		return err
	}
	defer hist.Close()
	req.Baselines = check.Baselines{History: hist, Dir: a.suitePath(c, "baseline-dir", o.baselineDir, st), Files: file.OpenDir, Warn: a.warnBaseline}

	var bar *progressBar
	if req.Suite != nil {
		targets := req.Targets
		if req.Control != nil {
			targets = append(slices.Clip(targets), *req.Control)
		}
		bar = a.progress(&o.settings, req.Suite, targets, req.Samples)
		req.Exec = a.exec(req.Exec.Settings, bar)
	}
	out, err := check.Compare(c.Context(), req)
	bar.finish()
	if err != nil {
		return err
	}
	a.printFinished(out.Finished)
	if out.Interrupted {
		a.warn("interrupted: nothing compared or recorded")
		return codeErr(ExitInterrupted)
	}
	for _, p := range out.Pairs {
		telemetry.From(c.Context()).Drift(p.Report)
	}
	return a.compareVerdict(o, out, st, failOn)
}

// compareVerdict prints the compared pairs and the failures and returns
// the exit code: the verdict's at failOn, --fail-on-identity's,
// --fail-on-economic's, or that an
// output failed.
func (a *app) compareVerdict(o *compareOptions, out *check.CompareOutcome, st *suite.Suite, failOn *promptcanary.Severity) error {
	failures := append(out.Failures, a.printCompared(o, out)...)
	code := verdictCode(out.Verdict(failOn))
	if o.failOnIdentity && code == ExitOK && identityChanged(out.Pairs) {
		code = ExitGate
	}
	if o.failOnEconomic && code == ExitOK && economicsFlagged(out.Pairs) {
		code = ExitGate
	}
	if len(failures) > 0 {
		a.printFailures(failures)
		if o.current == "" && len(out.Pairs) > 0 {
			a.savedNote(out.Recorded, pairRuns(out.Pairs), st, "")
		}
		if code == ExitOK {
			code = ExitOutput
		}
	}
	if code != ExitOK {
		return codeErr(code)
	}
	return nil
}

// printCompared prints the drift report of every compared pair, writes
// the report files and the step summary, and warns of the models that could
// not be compared and of the pairs with nothing compared. It returns what
// could not be written.
func (a *app) printCompared(o *compareOptions, out *check.CompareOutcome) []error {
	opts := a.termOptions(o.verbose)
	var failures []error
	for i, p := range out.Pairs {
		d := p.Report
		if i > 0 {
			fmt.Fprintln(a.stdio.Out)
		}
		if err := report.Drift(a.stdio.Out, report.Terminal, d, opts); err != nil {
			failures = append(failures, fmt.Errorf("print the report: %w", err))
		}
		files := o.out
		if len(out.Pairs) > 1 {
			files = o.out.suffixed(d.Provider.ModelID)
		}
		render := func(w io.Writer, f report.Format) error { return report.Drift(w, f, d, opts) }
		failures = append(failures, files.write(render)...)
		failures = append(failures, a.stepSummary(render)...)
	}
	if c := out.Control; c != nil {
		a.printControl(c)
	}
	a.warnProblems(out.Problems)
	for _, p := range out.Pairs {
		if p.Report.Compared() == 0 && p.Measured {
			a.warn("%s: nothing was compared (%s): there is no verdict", termtext.Safe(p.Report.Provider.ModelID), notComparedReasons(p.Report))
		}
	}
	return failures
}

// printControl prints the control arm's own report in brief: its verdict
// against its own baseline and what moved it.
func (a *app) printControl(c *check.Pair) {
	d := c.Report
	fmt.Fprintf(a.stdio.Out, "\nControl arm %s, against its own baseline %s: %s\n", termtext.Safe(d.Provider.ModelID), termtext.Safe(d.BaselineSnapshotID), termtext.Safe(d.Summary))
	if line := d.Attribution.Line(); line != "" {
		fmt.Fprintf(a.stdio.Out, "  %s\n", termtext.Safe(line))
	}
}

// pairRuns returns the current run of every compared pair.
func pairRuns(pairs []check.Pair) []*promptcanary.Run {
	runs := make([]*promptcanary.Run, len(pairs))
	for i, p := range pairs {
		runs[i] = p.Run
	}
	return runs
}

// compareSaved fills req to compare the saved run of --current and returns
// the configuration path and suite, if any, that the run is read with.
func (a *app) compareSaved(c *cobra.Command, o *compareOptions, req *check.CompareRequest) (string, *suite.Suite, error) {
	if len(o.settings.providers) > 0 {
		return "", nil, usageErr(fmt.Errorf("--current and --provider exclude each other"), "compare a saved run with --current, or run now with --provider")
	}
	config, st, err := a.optionalSuite(c, o.config)
	if err != nil {
		return "", nil, err
	}
	if req.Prompts, err = savedSelection(st, o.settings.prompts, o.settings.tags); err != nil {
		return "", nil, err
	}
	if check.Folds(st, req.Prompts) {
		// The compare reads less than whole probe results: the run's
		// are folded as they are decoded (see check.Folds).
		req.Folding = check.NewFolding()
	}
	doc, err := a.readDocumentFolding(o.current, req.Folding)
	if err != nil {
		return "", nil, err
	}
	switch doc.Kind {
	case store.KindSideBySide:
		req.Current = doc.Runs
	case store.KindRun, store.KindBaseline:
		req.Current = []*promptcanary.Run{doc.Run}
	default:
		return "", nil, usageErr(fmt.Errorf("%s holds a drift report, not a run", o.current), "pass the JSON of 'promptcanary run --output-json'")
	}
	return config, st, nil
}

// compareNow fills req to run the suite of --config now on the selected
// providers and returns the configuration path and the suite.
func (a *app) compareNow(c *cobra.Command, o *compareOptions, req *check.CompareRequest) (string, *suite.Suite, error) {
	config, st, w, err := a.suiteWorkflow(c, o.config, &o.settings)
	if err != nil {
		return "", nil, err
	}
	sel, targets, samples, err := o.settings.resolve(c, st, w)
	if err != nil {
		return "", nil, err
	}
	if o.control != "" {
		for _, t := range targets {
			if t.Spec == o.control {
				return "", nil, usageErr(fmt.Errorf("--control %s is one of the providers compared (-p): it cannot be its own control", o.control),
					"name another provider as --control: a pinned snapshot beside a moving alias (-p openai/gpt-4o --control openai/gpt-4o-2024-08-06) or the raw model beside an http/ app")
			}
		}
		wc := w
		wc.Providers = []string{o.control}
		_, ctl, _, err := o.settings.resolve(c, st, wc)
		if err != nil {
			return "", nil, err
		}
		req.Control = &ctl[0]
	}
	a.noteAdjustments(targets)
	req.Suite, req.Targets, req.Samples = sel, targets, samples
	if sel != st {
		for _, p := range sel.Prompts {
			req.Prompts = append(req.Prompts, p.ID)
		}
	}
	req.Exec = a.exec(w, nil)
	return config, st, nil
}

// savedSelection turns --prompt and --tag into the prompt ids to compare
// of a saved run: tags need canary.yaml to know which prompts carry them.
// nil selects everything.
func savedSelection(st *suite.Suite, prompts, tags []string) ([]string, error) {
	if len(prompts) == 0 && len(tags) == 0 {
		return nil, nil
	}
	if st == nil {
		if len(tags) > 0 {
			return nil, usageErr(errors.New("--tag needs canary.yaml to know which prompts carry the tag"), "pass --config, or select prompts by id with --prompt")
		}
		return prompts, nil
	}
	sel, err := selectPrompts(st, prompts, tags)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(sel.Prompts))
	for i, p := range sel.Prompts {
		ids[i] = p.ID
	}
	return ids, nil
}

// notComparedReasons counts a report's pairs by why they were not compared.
func notComparedReasons(d *promptcanary.DriftReport) string {
	var parts []string
	for _, s := range []struct {
		st   promptcanary.Status
		name string
	}{
		{promptcanary.StatusStale, "stale baseline"},
		{promptcanary.StatusNotMeasured, "not measured"},
		{promptcanary.StatusAdded, "added"},
		{promptcanary.StatusRemoved, "removed"},
	} {
		if n := d.Count(s.st); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s.name))
		}
	}
	if len(parts) == 0 {
		return "no pairs"
	}
	return strings.Join(parts, ", ")
}
