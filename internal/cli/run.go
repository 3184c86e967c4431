package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/suite"
)

type runOptions struct {
	config        string
	settings      settings
	saveBaseline  bool
	baselineDir   string
	failOnFailure bool
	verbose       bool
	out           outputs
}

func (a *app) runCmd() *cobra.Command {
	o := &runOptions{}
	c := &cobra.Command{
		Use:   "run",
		Short: "Run the canary suite against a provider",
		Long: `Run every prompt of canary.yaml against a provider, judge each response with
its probes and print the results. With --save-baseline the run becomes the
baseline that later runs are compared against.

` + exitCodeHelp,
		Example: `  promptcanary run -p sim/stable --save-baseline
  promptcanary run -c suites/agent.yaml -p replay/prod-logs.jsonl --output-md run.md
  promptcanary run -p sim/stable --fail-on-failure`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return a.run(c, o) },
	}
	f := c.Flags()
	f.StringVarP(&o.config, "config", "c", "canary.yaml", "suite file")
	o.settings.flags(c)
	f.BoolVarP(&o.saveBaseline, "save-baseline", "s", false, "save this run as the baseline for its suite and provider")
	f.StringVar(&o.baselineDir, "baseline-dir", "baselines", "directory of baseline files")
	f.BoolVar(&o.failOnFailure, "fail-on-failure", false, "exit 1 when any probe fails")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "list every result, not only failures")
	o.out.flags(c)
	return c
}

func (a *app) run(c *cobra.Command, o *runOptions) error {
	st, err := loadSuite(o.config)
	if err != nil {
		return err
	}
	run, err := a.execute(c.Context(), c, st, &o.settings)
	if run == nil {
		return err
	}
	interrupted := errors.Is(err, context.Canceled)
	if err != nil && !interrupted {
		return err
	}
	opts := report.Options{Color: a.colorFor(a.stdio.Out), Verbose: o.verbose}
	if rerr := report.Run(a.stdio.Out, report.Terminal, run, opts); rerr != nil {
		return rerr
	}
	if werr := o.out.write(func(w io.Writer, f report.Format) error { return report.Run(w, f, run, opts) }); werr != nil {
		return werr
	}
	if interrupted {
		a.warn("interrupted: %d of %d calls finished; what finished was written, no baseline saved", len(run.LLMResponses), len(st.Prompts)*run.Samples)
		return codeErr(ExitInterrupted)
	}
	if len(run.Errors) > o.settings.maxErrors {
		a.warn("%d provider call(s) failed (--max-errors %d): the run could not be measured", len(run.Errors), o.settings.maxErrors)
		if o.saveBaseline {
			a.warn("baseline not saved: a baseline must measure every prompt")
		}
		return codeErr(ExitUnmeasured)
	}
	if o.saveBaseline {
		fs, err := file.Open(o.baselineDir)
		if err != nil {
			return err
		}
		info, err := fs.SaveBaseline(c.Context(), newBaseline(run))
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdio.Err, "promptcanary: baseline saved: %s\n", info.Path)
	}
	if o.failOnFailure && len(run.Failed()) > 0 {
		return codeErr(ExitGate)
	}
	return nil
}

// execute opens the provider and runs the suite, with a progress bar on a
// terminal. A returned run with a context.Canceled error is partial.
func (a *app) execute(ctx context.Context, c *cobra.Command, st *suite.Suite, s *settings) (*promptcanary.Run, error) {
	cfg, samples, baseDir, err := s.resolve(c, st)
	if err != nil {
		return nil, err
	}
	p, err := provider.Open(cfg.ModelID, provider.Options{BaseDir: baseDir, Getenv: a.getenv})
	if err != nil {
		return nil, usageErr(err, "providers: "+providerList())
	}
	opts := runner.Options{Concurrency: s.concurrency, Tool: toolName()}
	if !s.noProgress && isTerminal(a.stdio.Err) {
		bar := newProgressBar(a.stdio.Err, st.Name)
		opts.Progress = bar.update
		defer bar.finish()
	}
	return runner.Execute(ctx, st.Plan(cfg, samples), p, opts)
}

// newBaseline wraps a run as a baseline snapshot.
func newBaseline(run *promptcanary.Run) *promptcanary.Baseline {
	return &promptcanary.Baseline{
		SnapshotID:    runner.NewRunID(),
		CreatedAt:     time.Now().UTC(),
		SuiteName:     run.SuiteName,
		Provider:      run.Provider,
		SchemaVersion: promptcanary.SchemaVersion,
		RunResult:     *run,
	}
}

func providerList() string {
	names := provider.Names()
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n + "/…"
	}
	return out
}
