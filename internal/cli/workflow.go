package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/atomicfile"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/suite"
)

// findConfig returns the suite file: --config when given, else
// canary.yaml in the current directory or the nearest parent that has one.
func (a *app) findConfig(c *cobra.Command, config string) (string, error) {
	if c.Flags().Changed("config") {
		return config, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	path, err := suite.Find(wd)
	if err != nil {
		return "", usageErr(err) // its hint says how to create one
	}
	return path, nil
}

// suitePath resolves a path flag: as given (relative to the current
// directory) when the user set it, else relative to canary.yaml.
func (a *app) suitePath(c *cobra.Command, flag, value string, st *suite.Suite) string {
	if c.Flags().Changed(flag) || filepath.IsAbs(value) || st == nil {
		return value
	}
	return filepath.Join(filepath.Dir(st.Path), value)
}

// progress starts a progress bar on a terminal, nil elsewhere.
func (a *app) progress(s *settings, st *suite.Suite, targets []check.Target, samples int) *progressBar {
	if s.noProgress || !isTerminal(a.stdio.Err) {
		return nil
	}
	specs := make([]string, len(targets))
	for i, t := range targets {
		specs[i] = t.Spec
	}
	return newProgressBar(a.stdio.Err, specs, len(st.Prompts)*samples, a.widthFor(a.stdio.Err), time.Now)
}

// suiteWorkflow finds and loads the suite of the --config flag and turns
// the shared flags s into the workflow's settings: the start of every
// command that runs the suite now.
func (a *app) suiteWorkflow(c *cobra.Command, flag string, s *settings) (string, *suite.Suite, check.Settings, error) {
	config, err := a.findConfig(c, flag)
	if err != nil {
		return "", nil, check.Settings{}, err
	}
	st, err := loadSuite(config)
	if err != nil {
		return "", nil, check.Settings{}, err
	}
	w := s.workflow(c, a.getenv)
	w.Secrets = a.secrets
	return config, st, w, nil
}

// exec returns the workflow's run options: the engine settings, the
// progress bar and a line on stderr whenever a provider makes us wait.
func (a *app) exec(w check.Settings, bar *progressBar) check.Exec {
	x := check.Exec{Settings: w, Tool: toolName()}
	if a.tracer != nil {
		x.Wrap, x.Observe = a.tracer.Wrap, a.tracer.StartRun
	}
	if bar != nil {
		x.Progress = bar.update
	}
	rl := &rateNotes{a: a, bar: bar}
	x.OnThrottle, x.OnRateLimits = rl.throttle, rl.summary
	x.OnWait = func(wt runner.Wait) {
		if wt.RateLimited {
			rl.wait(wt)
			return
		}
		bar.pause(func() {
			a.warn("waiting %s on %s (%s): %s, attempt %d of %d", clock(wt.Delay), termtext.Safe(wt.Provider), termtext.Safe(wt.PromptID), termtext.Safe(wt.Reason), wt.Attempt, wt.MaxAttempts)
		})
	}
	return x
}

// printFailures prints each output that failed.
func (a *app) printFailures(errs []error) {
	for _, err := range errs {
		printErr(a.stdio.Err, err)
	}
}

// savedNote tells, after an output failed, what was saved and where, so
// nothing measured is thought lost. When the history did not take the runs
// and no -o file holds them, they are written to a rescue file first.
// runJSON is the -o file that holds the runs ("" for a compare, whose -o
// holds the drift report).
func (a *app) savedNote(recorded bool, runs []*promptcanary.Run, st *suite.Suite, runJSON string) {
	if recorded {
		printHint(a.stdio.Err, fmt.Sprintf("the run was measured and is recorded in the history: 'promptcanary show %s' prints it in any format", short(runs[0].RunID)))
		return
	}
	if runJSON != "" {
		printHint(a.stdio.Err, fmt.Sprintf("the run is not in the history; %s holds it if it was written: 'compare --current %s' compares it", displayPath(runJSON), displayPath(runJSON)))
		return
	}
	for _, r := range runs {
		path, err := rescue(r, st)
		if err != nil {
			a.warn("the run %s is not in the history and could not be saved elsewhere: %v", short(r.RunID), err)
			continue
		}
		printHint(a.stdio.Err, fmt.Sprintf("the run is not in the history; it is saved in %s: 'compare --current %s' compares it", displayPath(path), displayPath(path)))
	}
}

// rescue writes a run the history did not take to
// .promptcanary/unsaved/RUN_ID.json beside canary.yaml, else to the
// system's temporary directory.
func rescue(r *promptcanary.Run, st *suite.Suite) (string, error) {
	data, err := store.MarshalRunIndent(r, store.LayoutAuto)
	if err != nil {
		return "", err
	}
	dirs := []string{filepath.Join(os.TempDir(), "promptcanary-unsaved")}
	if st != nil {
		dirs = append([]string{filepath.Join(st.Dir(), ".promptcanary", "unsaved")}, dirs...)
	}
	var errs []error
	for _, dir := range dirs {
		path := filepath.Join(dir, r.RunID+".json")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		if err := atomicfile.Write(path, append(data, '\n'), 0o644); err != nil {
			errs = append(errs, err)
			continue
		}
		return path, nil
	}
	return "", errors.Join(errs...)
}

// selectPrompts narrows the suite to --prompt and --tag.
func selectPrompts(st *suite.Suite, ids, tags []string) (*suite.Suite, error) {
	if len(ids) == 0 && len(tags) == 0 {
		return st, nil
	}
	sel, err := st.Select(ids, tags)
	if err != nil {
		return nil, usageErr(err, "list the prompt ids and tags in "+st.Path)
	}
	return sel, nil
}

// warnBaseline prints a baseline lookup's warning: a newer baseline was
// unreadable and an older one is used.
func (a *app) warnBaseline(msg string) {
	a.warn("%s", termtext.Safe(msg))
}

// printFinished tells what became of the baselines an interrupted run
// had left pending.
func (a *app) printFinished(done []store.Finished) {
	for _, f := range done {
		if f.Err != nil {
			a.warn("the baseline of run %s, left pending by an interrupted run, could not be saved: %s", short(f.Pending.RunID), termtext.Safe(f.Err.Error()))
			continue
		}
		where := "the history"
		if f.Path != "" {
			where = displayPath(f.Path)
		}
		fmt.Fprintf(a.stdio.Err, "promptcanary: finished the baseline that an interrupted run left pending: %s\n", where)
	}
}

// displayPath shows a path as the user would type it from here: relative
// to the current directory when it is below it, else as it is. The result
// is safe to print on a terminal.
func displayPath(p string) string {
	if filepath.IsAbs(p) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				p = rel
			}
		}
	}
	return termtext.Safe(p)
}
