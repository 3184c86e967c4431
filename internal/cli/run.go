package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/suite"
)

// defaultBaselineSamples is the size of a statistical baseline: enough to
// see a 20-point drop on one probe across prompts (see the drift design).
const defaultBaselineSamples = 30

type runOptions struct {
	config          string
	settings        settings
	saveBaseline    bool
	baselineSamples int
	baselineDir     string
	failOnFailure   bool
	dryRun          bool
	verbose         bool
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

` + exitCodeHelp,
		Example: `  promptcanary run -p sim/stable --save-baseline
  promptcanary run -p openai/gpt-4o-mini -p anthropic/claude-haiku-4-5 --output-html side.html
  promptcanary run -c suites/agent.yaml -p replay/prod-logs.jsonl --output-md run.md
  promptcanary run -p openai/gpt-4o --samples 5 --dry-run`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error { return a.run(c, o) },
	}
	f := c.Flags()
	f.StringVarP(&o.config, "config", "c", "canary.yaml", "suite file")
	o.settings.flags(c)
	f.BoolVarP(&o.saveBaseline, "save-baseline", "s", false, "save this run as the baseline for its suite and provider")
	f.IntVar(&o.baselineSamples, "baseline-samples", 0, fmt.Sprintf("samples per prompt of a saved baseline (default: %d when --samples > 1, else 1)", defaultBaselineSamples))
	f.StringVar(&o.baselineDir, "baseline-dir", "baselines", "directory of baseline files")
	f.BoolVar(&o.failOnFailure, "fail-on-failure", false, "exit 1 when any probe fails")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the calls and estimated cost, call nothing")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list every result, not only failures")
	o.out.flags(c)
	return c
}

func (a *app) run(c *cobra.Command, o *runOptions) error {
	st, err := loadSuite(o.config)
	if err != nil {
		return err
	}
	targets, samples, err := o.settings.resolve(c, st, a.getenv)
	if err != nil {
		return err
	}
	if o.saveBaseline {
		switch {
		case c.Flags().Changed("baseline-samples"):
			samples = o.baselineSamples
		case samples > 1:
			// A statistical baseline: more samples than any later run takes.
			samples = max(samples, defaultBaselineSamples)
		}
		if samples < 1 {
			return usageErr(fmt.Errorf("--baseline-samples %d must be at least 1", samples))
		}
	}
	if o.dryRun {
		return a.dryRun(st, targets, samples)
	}
	hist, err := a.openStore(o.config, st)
	if err != nil {
		return err
	}
	defer hist.Close()
	runs, err := a.execute(c.Context(), st, &o.settings, targets, samples, nil)
	if runs == nil {
		return err
	}
	interrupted := errors.Is(err, context.Canceled)
	if err != nil && !interrupted {
		return err
	}
	opts := report.Options{Color: a.colorFor(a.stdio.Out), Verbose: o.verbose}
	render := func(w io.Writer, f report.Format) error { return report.Run(w, f, runs[0], opts) }
	if len(runs) > 1 {
		render = func(w io.Writer, f report.Format) error { return report.Side(w, f, runs, opts) }
	}
	if err := render(a.stdio.Out, report.Terminal); err != nil {
		return err
	}
	if err := o.out.write(render); err != nil {
		return err
	}
	if interrupted {
		done, total := 0, 0
		for _, r := range runs {
			done += len(r.LLMResponses)
			total += len(st.Prompts) * r.Samples
		}
		a.warn("interrupted: %d of %d calls finished; what finished was written, no baseline saved", done, total)
		return codeErr(ExitInterrupted)
	}
	// Every finished run goes into the history, failed calls included.
	for _, r := range runs {
		if err := hist.SaveRun(c.Context(), r); err != nil {
			return err
		}
	}
	unmeasured := false
	for _, r := range runs {
		if len(r.Errors) > o.settings.maxErrors {
			a.warn("%s: %d provider call(s) failed (--max-errors %d): the run could not be measured", r.Provider.ModelID, len(r.Errors), o.settings.maxErrors)
			unmeasured = true
		}
	}
	if unmeasured {
		if o.saveBaseline {
			a.warn("no baseline saved: a baseline must measure every prompt")
		}
		return codeErr(ExitUnmeasured)
	}
	if o.saveBaseline {
		fs, err := file.Open(o.baselineDir)
		if err != nil {
			return err
		}
		for _, r := range runs {
			b := store.NewBaseline(r, "", time.Now().UTC())
			info, err := fs.SaveBaseline(c.Context(), b)
			if err != nil {
				return err
			}
			if _, err := hist.SaveBaseline(c.Context(), b); err != nil {
				return err
			}
			fmt.Fprintf(a.stdio.Err, "promptcanary: baseline saved: %s\n", info.Path)
		}
	}
	if o.failOnFailure {
		for _, r := range runs {
			if len(r.Failed()) > 0 {
				return codeErr(ExitGate)
			}
		}
	}
	return nil
}

// open opens every target's provider before anything is called, so a
// configuration mistake in any of them stops the run at once.
func (a *app) open(st *suite.Suite, targets []target) ([]provider.Provider, error) {
	out := make([]provider.Provider, len(targets))
	var errs []error
	for i, t := range targets {
		p, err := provider.Open(t.spec, t.opts)
		if err != nil {
			if entry := st.Provider(t.spec); entry != nil {
				err = fmt.Errorf("%s:%d: %s: %w", st.Path, entry.Line, entry.Field, err)
			}
			errs = append(errs, err)
			continue
		}
		out[i] = p
	}
	if len(errs) > 0 {
		return nil, usageErr(errors.Join(errs...))
	}
	return out, nil
}

// execute runs the suite against every target at once, each with its own
// concurrency and rate limits, with one progress bar on a terminal. Runs
// come back in target order; with a context.Canceled error they are partial.
func (a *app) execute(ctx context.Context, st *suite.Suite, s *settings, targets []target, samples int, adaptive []*runner.Adaptive) ([]*promptcanary.Run, error) {
	provs, err := a.open(st, targets)
	if err != nil {
		return nil, err
	}
	var progress func()
	if !s.noProgress && isTerminal(a.stdio.Err) {
		bar := newProgressBar(a.stdio.Err, st.Name)
		total := len(targets) * len(st.Prompts) * samples
		var mu sync.Mutex
		done := 0
		progress = func() {
			mu.Lock()
			done++
			d := done
			mu.Unlock()
			bar.update(d, total)
		}
		defer bar.finish()
	}
	runs := make([]*promptcanary.Run, len(targets))
	errs := make([]error, len(targets))
	var g errgroup.Group
	for i, t := range targets {
		g.Go(func() error {
			opts := s.engine(t)
			if progress != nil {
				opts.Progress = func(int, int) { progress() }
			}
			var ad *runner.Adaptive
			if adaptive != nil {
				ad = adaptive[i]
			}
			runs[i], errs[i] = runner.ExecuteAdaptive(ctx, st.Plan(t.cfg, samples), provs[i], opts, ad)
			if runs[i] != nil {
				runs[i].CostUSD = estimateCost(runs[i], st.Prices)
			}
			return nil
		})
	}
	_ = g.Wait()
	return runs, errors.Join(errs...)
}

// estimateCost prices a run's token usage; nil when the price is unknown.
func estimateCost(r *promptcanary.Run, prices map[string]provider.Price) *float64 {
	price, ok := provider.LookupPrice(r.Provider.ModelID, prices)
	if !ok {
		return nil
	}
	in, out := r.Tokens()
	c := price.Cost(in, out)
	return &c
}

// dryRun prints what a run would call and cost, and calls nothing.
func (a *app) dryRun(st *suite.Suite, targets []target, samples int) error {
	// Providers are not opened: a dry run needs no API key.
	for _, t := range targets {
		name, _, _ := provider.Split(t.spec)
		if !slices.Contains(provider.Names(), name) {
			_, err := provider.Open(t.spec, t.opts)
			return usageErr(err)
		}
	}
	promptTokens := 0
	for i := range st.Prompts {
		promptTokens += runner.EstimateTokens(&st.Prompts[i])
	}
	w := a.stdio.Out
	fmt.Fprintf(w, "Dry run of %q: %d prompt(s) × %d sample(s) per provider; nothing is called.\n\n", st.Name, len(st.Prompts), samples)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PROVIDER\tCALLS\tPROMPT TOKENS\tMAX COMPLETION TOKENS\tESTIMATED COST (UP TO)\t")
	total, known := 0.0, true
	calls := 0
	for _, t := range targets {
		n := len(st.Prompts) * samples
		calls += n
		in, out := promptTokens*samples, t.cfg.MaxTokens*n
		cost := "unknown"
		if price, ok := provider.LookupPrice(t.spec, st.Prices); ok {
			c := price.Cost(in, out)
			total += c
			cost = fmt.Sprintf("$%.4f", c)
		} else {
			known = false
		}
		fmt.Fprintf(tw, "%s\t%d\t~%d\t%d\t%s\t\n", t.spec, n, in, out, cost)
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
	return nil
}
