package cli

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/suite"
)

type runOptions struct {
	config          string
	settings        settings
	saveBaseline    bool
	baselineSamples int
	baselineDir     string
	failOnFailure   bool
	dryRun          bool
	verbose         bool
	stream          bool
	out             outputs
}

func (a *app) runCmd() *cobra.Command {
	o := &runOptions{}
	c := &cobra.Command{
		Use:   "run",
		Short: "Run the canary suite against one or more providers",
		Long: `Run every prompt of canary.yaml against a provider, judge each response with
its probes and print the results. With --save-baseline the run becomes the
baseline that later runs are compared against. Several --provider flags (or
providers: in canary.yaml) run side by side, each with its own concurrency
and rate limits. --dry-run prints the calls and their estimated cost and
calls nothing.

Without --config, canary.yaml is looked up in the current directory and its
parents. Paths in canary.yaml, baselines/ and the history are relative to
the directory of canary.yaml; paths given as flags are relative to the
current directory.

Every finished run is recorded in the history before any report file is
written, so a failing output never loses a run.

A run of one replay/FILE streams the file when it is 8 MiB or more (or
with --stream, whatever its size), unless --save-baseline or --samples is
given: every line is judged by the probes of its prompt on all cores, in
flat memory, and the report aggregates each probe × prompt pair (answers
judged, passes, mean score, distinct failure details with counts, the
first failing answer) instead of listing every result; its -o JSON is a
run summary ("kind": "run_summary"). Lines for prompts the suite (or
--prompt/--tag) does not hold are counted and reported. A streamed run
keeps no answers: it is not recorded in the history and cannot be a
baseline. --stream=false holds the file as any provider's answers.

Exit codes:
  0    ok
  1    --fail-on-failure and a probe failed
  2    usage or configuration error (nothing was called)
  3    no verdict: nothing measured, or more failed calls than --max-errors
  4    internal error
  5    measured, but an output failed (history, baseline or report file)
  130  interrupted: the calls that finished are printed and written to the
       report files; nothing is recorded in the history, no baseline saved
       (a streamed run prints what it judged and writes no report file)`,
		Example: `  promptcanary run -p sim/stable --save-baseline
  promptcanary run -p openai/gpt-4o-mini -p anthropic/claude-haiku-4-5 --output-html side.html
  promptcanary run -c suites/agent.yaml -p replay/prod-logs.jsonl --output-md run.md
  promptcanary run -p replay/million-answers.jsonl --stream -o summary.json
  promptcanary run --tag smoke --prompt refund-json --output-junit junit.xml
  promptcanary run -p openai/gpt-4o --samples 5 --dry-run`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			return a.traced(c, "run", func() error { return a.run(c, o) })
		},
	}
	f := c.Flags()
	f.StringVarP(&o.config, "config", "c", "canary.yaml", "suite file (default: canary.yaml here or in a parent directory)")
	o.settings.flags(c)
	f.BoolVarP(&o.saveBaseline, "save-baseline", "s", false, "save this run as the baseline for its suite and provider")
	f.IntVar(&o.baselineSamples, "baseline-samples", 0, fmt.Sprintf("samples per prompt of a saved baseline (default: %d when --samples > 1, else 1)", check.DefaultBaselineSamples))
	f.StringVar(&o.baselineDir, "baseline-dir", "baselines", "directory of baseline files (default: baselines/ beside canary.yaml)")
	f.BoolVar(&o.failOnFailure, "fail-on-failure", false, "exit 1 when any probe fails")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the calls and estimated cost, call nothing")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list every result, not only failures")
	f.BoolVar(&o.stream, "stream", false, "judge every line of a replay/FILE as a stream and report aggregates (default: when the file is 8 MiB or more, without --save-baseline or --samples); --stream=false never streams")
	o.out.flags(c)
	return c
}

func (a *app) run(c *cobra.Command, o *runOptions) error {
	config, st, w, err := a.suiteWorkflow(c, o.config, &o.settings)
	if err != nil {
		return err
	}
	sel, targets, samples, err := o.settings.resolve(c, st, w)
	if err != nil {
		return err
	}
	if o.saveBaseline {
		if samples, err = o.baselineSampleCount(c, samples); err != nil {
			return err
		}
	}
	path, streams, err := check.Streams(targets, check.StreamPlan{Mode: o.streamMode(c), SaveBaseline: o.saveBaseline, Samples: c.Flags().Changed("samples")})
	if err != nil {
		return err
	}
	if o.dryRun {
		return a.dryRunStream(sel, targets, samples, streams, path)
	}
	a.noteAdjustments(targets)
	if streams {
		return a.runStream(c, o, sel, targets[0], path, w)
	}
	hist, err := a.openStore(config, st)
	if err != nil {
		return err
	}
	defer hist.Close()

	bar := a.progress(&o.settings, sel, targets, samples)
	out, err := check.Run(c.Context(), check.RunRequest{
		Suite: sel, Targets: targets, Samples: samples,
		Exec:          a.exec(w, bar),
		History:       hist,
		SaveBaseline:  o.saveBaseline,
		BaselineDir:   a.suitePath(c, "baseline-dir", o.baselineDir, st),
		BaselineFiles: file.OpenDir,
		MaxErrors:     o.settings.maxErrors,
	})
	bar.finish()
	if err != nil {
		return err
	}
	return a.reportRun(o, st, sel, out)
}

// baselineSampleCount is the number of samples per prompt of a run that
// saves a baseline, given the samples asked for; a baseline is of the
// whole suite, so --prompt and --tag are refused.
func (o *runOptions) baselineSampleCount(c *cobra.Command, samples int) (int, error) {
	var requested *int
	if c.Flags().Changed("baseline-samples") {
		requested = &o.baselineSamples
	}
	samples, err := check.BaselineSamples(samples, requested)
	if err != nil {
		return 0, err
	}
	if len(o.settings.prompts) > 0 || len(o.settings.tags) > 0 {
		return 0, usageErr(errors.New("--save-baseline with --prompt or --tag would save a baseline of part of the suite"),
			"save baselines of the whole suite; select prompts when you run or compare")
	}
	return samples, nil
}

// dryRunStream is run --dry-run: what the run would call and cost, and
// whether it would stream the replay file at path.
func (a *app) dryRunStream(sel *suite.Suite, targets []check.Target, samples int, streams bool, path string) error {
	if err := a.dryRun(sel, targets, samples); err != nil {
		return err
	}
	if streams {
		fmt.Fprintf(a.stdio.Out, "The run would stream %s: every line judged, aggregates reported, nothing recorded in the history.\n", displayPath(path))
	}
	return nil
}

// reportRun prints and writes the reports of a finished run of the
// selected suite sel, says what was saved, and returns the run's exit
// code as an error (nil for ok).
func (a *app) reportRun(o *runOptions, st, sel *suite.Suite, out *check.RunOutcome) error {
	a.printFinished(out.Finished)
	runs := out.Runs
	opts := a.termOptions(o.verbose)
	render := func(w io.Writer, f report.Format) error { return report.Run(w, f, runs[0], opts) }
	if len(runs) > 1 {
		render = func(w io.Writer, f report.Format) error { return report.Side(w, f, runs, opts) }
	}
	failures := out.Failures
	if err := render(a.stdio.Out, report.Terminal); err != nil {
		failures = append(failures, fmt.Errorf("print the report: %w", err))
	}
	failures = append(failures, o.out.write(render)...)
	failures = append(failures, a.stepSummary(render)...)
	if out.Interrupted {
		return a.interruptedRun(sel, runs, failures)
	}
	a.warnProblems(out.Problems)
	if out.NoBaseline != "" {
		a.warn("no baseline saved: %s", out.NoBaseline)
	}
	for _, b := range out.Baselines {
		fmt.Fprintf(a.stdio.Err, "promptcanary: baseline saved: %s\n", displayPath(b.Path))
	}
	code := verdictCode(out.Verdict(o.failOnFailure))
	if len(failures) > 0 {
		a.printFailures(failures)
		a.savedNote(out.Recorded, runs, st, o.out.json)
		if code == ExitOK {
			code = ExitOutput
		}
	}
	if code != ExitOK {
		return codeErr(code)
	}
	return nil
}

// interruptedRun says how many calls of the selected suite sel finished
// before an interruption and what failed writing them.
func (a *app) interruptedRun(sel *suite.Suite, runs []*promptcanary.Run, failures []error) error {
	done, total := 0, 0
	for _, r := range runs {
		done += len(r.LLMResponses)
		total += len(sel.Prompts) * r.Samples
	}
	a.warn("interrupted: %d of %d calls finished; what finished was written, nothing recorded and no baseline saved", done, total)
	a.printFailures(failures)
	return codeErr(ExitInterrupted)
}

// dryRun prints what a run would call and cost, and calls nothing.
func (a *app) dryRun(st *suite.Suite, targets []check.Target, samples int) error {
	// Providers are checked but not opened: a dry run needs no API key.
	if err := check.CheckTargets(st, targets); err != nil {
		return err
	}
	var promptTokens int64
	for i := range st.Prompts {
		promptTokens = runner.SatAdd(promptTokens, int64(runner.EstimateTokens(&st.Prompts[i])))
	}
	w := a.stdio.Out
	fmt.Fprintf(w, "Dry run of %q: %d prompt(s) × %d sample(s) per provider; nothing is called.\n\n", termtext.Safe(st.Name), len(st.Prompts), samples)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PROVIDER\tCALLS\tPROMPT TOKENS\tMAX COMPLETION TOKENS\tESTIMATED COST (UP TO)\t")
	total, known := 0.0, true
	var calls int64
	for _, t := range targets {
		n := len(st.Prompts) * samples // both bounded: no overflow
		calls += int64(n)
		in, out := runner.PlannedTokens(promptTokens, samples), runner.PlannedTokens(int64(t.Config.MaxTokens), n)
		cost := "price unknown"
		if price, ok := provider.LookupPrice(t.Spec, st.Prices); ok {
			c := price.Cost(int(in), int(out))
			total += c
			cost = fmt.Sprintf("$%.4f", c)
		} else {
			known = false
		}
		fmt.Fprintf(tw, "%s\t%d\t~%d\t%d\t%s\t\n", termtext.Safe(t.Spec), n, in, out, cost)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d call(s) in all", calls)
	if len(targets) > 0 && known {
		fmt.Fprintf(w, ", estimated cost up to $%.4f", total)
	}
	fmt.Fprintln(w, ".")
	if !known {
		fmt.Fprintln(w, "Some prices are unknown: add them under prices: in canary.yaml, for example prices: {my-model: {input: 1.0, output: 2.0}} (USD per million tokens).")
	}
	fmt.Fprintln(w, "Completion tokens are counted at max_tokens, so the estimate is an upper bound.")
	if hasAdjustments(targets) {
		fmt.Fprintln(w)
		writeAdjustments(w, targets)
	}
	return nil
}
