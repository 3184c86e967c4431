package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/file"
	"github.com/promptcanary/promptcanary/suite"
)

// buildOptions are the flags of 'baseline build'.
type buildOptions struct {
	settings    settings
	runs        int
	every       time.Duration
	baselineDir string
	// resume is the id of the interrupted build to finish, "" for a new one.
	resume string
}

func (a *app) baselineBuildCmd(bo *baselineOptions) *cobra.Command {
	o := &buildOptions{}
	c := &cobra.Command{
		Use:   "build",
		Short: "Build one baseline from several runs spread over time",
		Long: `Run the suite --runs times, --every apart, and save one baseline per provider
that pools the runs: a provider's bad hour, which shifts every answer of a
run together, then weighs on a fraction of the baseline instead of all of
it. The --samples samples per prompt (default 30, as run --save-baseline)
are split evenly over the runs; when they do not divide, the first runs
take one more. Each run starts --every after the previous one started (at
once when that run took longer; 0s runs them back to back) and is
recorded in the history as 'run' records it. The baseline holds every
run's probe results and answers, their samples numbered one run after
another, carries the last run's id, is created when the last run ends and
records its runs under "runs"; compare and the monitor use it as any
baseline. It is written into --baseline-dir and recorded in the history.

When a run cannot be measured (more failed calls than --max-errors) the
build stops and saves no baseline (exit 3); interrupted (Ctrl-C, SIGTERM),
during a run or a wait, it saves no baseline (exit 130). Either way the
runs that finished stay in the history. A baseline that cannot be written
exits 5; its runs are recorded.

Every run is recorded with the build's id, which the build prints when it
starts. --resume ID finishes a build that stopped (interrupted, a run that
could not be measured, a crash, a baseline that could not be written): it
takes the runs the build recorded, runs only the ones still missing, each
--every after the previous one (at once when that time has passed), and
pools them all. It takes the build's --runs, --samples and --every (any
given must match the first two) and the providers given now; canary.yaml
and the sampling flags must be those the build started with.`,
		Example: `  promptcanary baseline build -p openai/gpt-4o-mini --runs 6 --every 1h
  promptcanary baseline build -p sim/stable --runs 3 --every 0s --samples 6
  promptcanary baseline build -p openai/gpt-4o-mini --resume 1f0c9a2e`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			return a.traced(c, "baseline build", func() error { return a.baselineBuild(c, bo, o) })
		},
	}
	o.settings.flags(c)
	f := c.Flags()
	f.Lookup("samples").Usage = fmt.Sprintf("samples per prompt of the baseline, split over the runs (default %d)", check.DefaultBaselineSamples)
	f.IntVar(&o.runs, "runs", 0, "how many runs the baseline pools (required, 1 or more)")
	f.DurationVar(&o.every, "every", 0, "time from the start of one run to the start of the next, e.g. 1h (0s: back to back)")
	f.StringVar(&o.baselineDir, "baseline-dir", "baselines", "directory of baseline files (default: baselines/ beside canary.yaml)")
	f.StringVar(&o.resume, "resume", "", "finish the build with this id (or id prefix) from the runs it recorded")
	return c
}

// split checks the flags of a build and returns the samples per prompt
// each run takes.
func (o *buildOptions) split(c *cobra.Command) ([]int, error) {
	samples := check.DefaultBaselineSamples
	if c.Flags().Changed("samples") {
		samples = o.settings.samples
	}
	return o.splitOf(samples)
}

// splitOf checks the flags of a build of samples per prompt and returns
// the samples per prompt each run takes.
func (o *buildOptions) splitOf(samples int) ([]int, error) {
	switch {
	case o.runs < 1:
		return nil, usageErr(fmt.Errorf("--runs %d is out of range", o.runs), "pool 1 or more runs, for example --runs 6 --every 1h")
	case o.every < 0:
		return nil, usageErr(fmt.Errorf("--every %v is negative", o.every), "use 0s to run back to back, or the time between runs, such as 1h")
	case samples < o.runs:
		return nil, usageErr(fmt.Errorf("--samples %d is fewer than --runs %d: every run takes at least one sample per prompt", samples, o.runs),
			fmt.Sprintf("use --samples %d or more, or fewer --runs", o.runs))
	case samples > promptcanary.MaxSamples:
		return nil, usageErr(fmt.Errorf("--samples %d is out of range", samples), fmt.Sprintf("use a value from %d to %d", o.runs, promptcanary.MaxSamples))
	case len(o.settings.prompts) > 0 || len(o.settings.tags) > 0:
		return nil, usageErr(errors.New("baseline build with --prompt or --tag would build a baseline of part of the suite"),
			"build baselines of the whole suite; select prompts when you run or compare")
	}
	return check.SplitSamples(samples, o.runs)
}

// splitWords says how samples are split over runs, e.g. "2 samples per
// prompt each" or "runs 1–2 take 8 samples per prompt, runs 3–4 take 7".
func splitWords(split []int) string {
	if split[0] == split[len(split)-1] {
		return fmt.Sprintf("%d sample(s) per prompt each", split[0])
	}
	more := 0
	for more < len(split) && split[more] == split[0] {
		more++
	}
	span := func(from, to int) string {
		if from == to {
			return fmt.Sprintf("run %d takes", from)
		}
		return fmt.Sprintf("runs %d–%d take", from, to)
	}
	return fmt.Sprintf("%s %d samples per prompt, %s %d", span(1, more), split[0], span(more+1, len(split)), split[len(split)-1])
}

func (a *app) baselineBuild(c *cobra.Command, bo *baselineOptions, o *buildOptions) error {
	var split []int
	if o.resume == "" {
		var err error
		if split, err = o.split(c); err != nil {
			return err
		}
	}
	config, st, w, err := a.suiteWorkflow(c, bo.config, &o.settings)
	if err != nil {
		return err
	}
	sel, targets, _, err := o.settings.resolve(c, st, w)
	if err != nil {
		return err
	}
	a.noteAdjustments(targets)
	hist, err := a.openStore(config, st)
	if err != nil {
		return err
	}
	defer hist.Close()
	b := &builder{a: a, o: o, sel: sel, targets: targets, w: w, hist: hist, split: split}
	dir := a.suitePath(c, "baseline-dir", o.baselineDir, st)
	if o.resume != "" {
		if err := b.resume(c); err != nil {
			return err
		}
		if b.alreadySaved(c.Context(), dir) {
			return nil
		}
	} else {
		b.start(c)
	}
	perTarget, err := b.runAll(c.Context())
	if err != nil {
		return err
	}
	bases := make([]*promptcanary.Baseline, len(perTarget))
	for i, runs := range perTarget {
		if bases[i], err = check.PoolBaseline(runs, time.Now()); err != nil {
			return err
		}
	}
	saved, failures := check.SaveBaselines(c.Context(), hist, file.OpenDir, dir, bases)
	for _, s := range saved {
		fmt.Fprintf(a.stdio.Out, "baseline of %s on %s saved: %s (snapshot %s, %d runs, %d samples per prompt)\n", termtext.Safe(s.Baseline.SuiteName),
			termtext.Safe(s.Baseline.Provider.ModelID), displayPath(s.Path), short(s.Baseline.SnapshotID), len(s.Baseline.Runs), s.Baseline.RunResult.Samples)
	}
	err = a.verdict(ExitOK, append(b.failures, failures...))
	if len(saved) < len(bases) {
		printLines(a.stdio.Err, "promptcanary: hint: ", b.resumeHint("pool the recorded runs again"))
	}
	return err
}

// start begins a new build: a fresh id, and the lines that say how the
// samples are split and how to resume the build.
func (b *builder) start(c *cobra.Command) {
	total := 0
	for _, n := range b.split {
		total += n
	}
	b.mark = promptcanary.BuildMark{ID: promptcanary.NewID(), Runs: len(b.split), Samples: total, Every: b.o.every.String()}
	fmt.Fprintf(b.a.stdio.Err, "promptcanary: building a baseline of %d samples per prompt from %d run(s) %v apart: %s\n", total, len(b.split), b.o.every, splitWords(b.split))
	b.resumeCmd = b.resumeCommand(c)
	fmt.Fprintf(b.a.stdio.Err, "promptcanary: build %s: should it stop, '%s' finishes it from the runs it recorded\n", short(b.mark.ID), b.resumeCmd)
}

// builder runs the runs of a build one after another.
type builder struct {
	a        *app
	o        *buildOptions
	sel      *suite.Suite
	targets  []check.Target
	w        check.Settings
	hist     store.Store
	split    []int
	failures []error
	// mark is the build's (Run unset); recorded and last are the runs of
	// each target a resumed build found recorded, and when the newest of
	// them started.
	mark     promptcanary.BuildMark
	recorded [][]*promptcanary.Run
	last     time.Time
	// resumeCmd is the command that resumes the build.
	resumeCmd string
}

// resumeHint says how to resume the build, to do what.
func (b *builder) resumeHint(what string) string {
	return fmt.Sprintf("%s with '%s'", what, b.resumeCmd)
}

// resumeCommand is the command that resumes the build: its suite file
// and providers when given, and --resume.
func (b *builder) resumeCommand(c *cobra.Command) string {
	cmd := "promptcanary baseline build"
	if f := c.Flags().Lookup("config"); f != nil && f.Changed {
		cmd += " -c " + shellQuote(f.Value.String())
	}
	if c.Flags().Changed("provider") {
		for _, t := range b.targets {
			cmd += " -p " + shellQuote(t.Spec)
		}
	}
	return cmd + " --resume " + short(b.mark.ID)
}

// runAll runs the build's runs that are not recorded yet, --every apart,
// and returns the runs of each target in order. A run that is interrupted
// or cannot be measured ends the build with its exit code: no baseline is
// saved.
func (b *builder) runAll(ctx context.Context) ([][]*promptcanary.Run, error) {
	perTarget := b.recorded
	if perTarget == nil {
		perTarget = make([][]*promptcanary.Run, len(b.targets))
	}
	start := b.last
	for i := len(perTarget[0]); i < len(b.split); i++ {
		if i > 0 {
			if err := b.wait(ctx, start, i); err != nil {
				b.a.warn("interrupted while waiting for run %d of %d: no baseline saved; the %d run(s) that finished are in the history", i+1, len(b.split), i)
				printLines(b.a.stdio.Err, "promptcanary: hint: ", b.resumeHint("go on"))
				return nil, codeErr(ExitInterrupted)
			}
		}
		start = time.Now()
		runs, err := b.runOne(ctx, i, b.split[i])
		if err != nil {
			return nil, err
		}
		for t, r := range runs {
			perTarget[t] = append(perTarget[t], r)
		}
	}
	return perTarget, nil
}

// wait waits until --every after start, the start of the previous run,
// saying when run i (from 0) starts; it returns early with the context's
// error when the context ends.
func (b *builder) wait(ctx context.Context, start time.Time, i int) error {
	d := time.Until(start.Add(b.o.every))
	if d <= 0 {
		return ctx.Err()
	}
	at := time.Now().Add(d).UTC().Truncate(time.Second)
	fmt.Fprintf(b.a.stdio.Err, "promptcanary: run %d of %d starts at %s (in %v)\n", i+1, len(b.split), at.Format(time.RFC3339), d.Round(time.Second))
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// runOne runs the suite once, run i (from 0) of the build, with samples
// per prompt, records it in the history and says so. Its providers are
// asked for the samples after the earlier runs' (check.Exec.FirstSample),
// as the pooled baseline numbers them.
func (b *builder) runOne(ctx context.Context, i, samples int) ([]*promptcanary.Run, error) {
	a, n := b.a, len(b.split)
	bar := a.progress(&b.o.settings, b.sel, b.targets, samples)
	x := a.exec(b.w, bar)
	for _, k := range b.split[:i] {
		x.FirstSample += k
	}
	mark := b.mark
	mark.Run = i + 1
	out, err := check.Run(ctx, check.RunRequest{
		Suite: b.sel, Targets: b.targets, Samples: samples,
		Exec: x, History: b.hist, MaxErrors: b.o.settings.maxErrors, Build: &mark,
	})
	bar.finish()
	if err != nil {
		return nil, err
	}
	a.printFinished(out.Finished)
	if out.Interrupted {
		a.warn("interrupted during run %d of %d: no baseline saved; the %d run(s) that finished before are in the history", i+1, n, i)
		printLines(a.stdio.Err, "promptcanary: hint: ", b.resumeHint("go on"))
		return nil, codeErr(ExitInterrupted)
	}
	if len(out.Problems) > 0 {
		a.warnProblems(out.Problems)
		return nil, &exitError{code: ExitUnmeasured, err: fmt.Errorf("run %d of %d could not be measured: no baseline saved", i+1, n),
			hints: []string{"the runs that finished are in the history; build again when the provider answers (--max-errors N lets some calls fail)",
				b.resumeHint("or go on from them")}}
	}
	b.failures = append(b.failures, out.Failures...)
	ids := make([]string, len(out.Runs))
	for t, r := range out.Runs {
		ids[t] = fmt.Sprintf("%s run %s (pass rate %.1f%%)", termtext.Safe(r.Provider.ModelID), short(r.RunID), 100*r.PassRate())
	}
	fmt.Fprintf(a.stdio.Err, "promptcanary: run %d of %d done, %d sample(s) per prompt: %s\n", i+1, n, samples, strings.Join(ids, ", "))
	return out.Runs, nil
}

// resume sets b to finish the build --resume names: its mark, split and
// spacing, and the runs it recorded for every target, up to the first
// place some target is missing. Flags that contradict the build, and runs
// made with other prompts or sampling parameters than now, are refused.
func (b *builder) resume(c *cobra.Command) error {
	o := b.o
	var mark *promptcanary.BuildMark
	b.recorded = make([][]*promptcanary.Run, len(b.targets))
	done := -1
	for t, tg := range b.targets {
		m, runs, err := check.BuildRuns(c.Context(), b.hist, b.sel.Name, tg.Config.ModelID, o.resume, o.settings.maxErrors)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return usageErr(fmt.Errorf("--resume %s: no run of that build is recorded for suite %s on %s", termtext.Safe(o.resume), termtext.Safe(b.sel.Name), termtext.Safe(tg.Config.ModelID)),
				"a build prints its id when it starts ('promptcanary: build 1f0c9a2e: …'); resume it with the providers it ran, or start a new build without --resume")
		case errors.Is(err, store.ErrAmbiguous):
			return usageErr(err, "give more of the build's id")
		case err != nil:
			return err
		case mark != nil && m.ID != mark.ID:
			return usageErr(fmt.Errorf("--resume %s names build %s on %s and build %s on %s", termtext.Safe(o.resume), short(mark.ID), termtext.Safe(b.targets[0].Config.ModelID), short(m.ID), termtext.Safe(tg.Config.ModelID)),
				"give more of the build's id")
		}
		mark = m
		k := 0
		for k < len(runs) && runs[k] != nil {
			k++
		}
		if done < 0 || k < done {
			done = k
		}
		b.recorded[t] = runs
	}
	split, err := b.resumeSplit(c, mark)
	if err != nil {
		return err
	}
	if err := b.keepRecorded(done, split); err != nil {
		return err
	}
	b.split, b.mark = split, *mark
	b.mark.Run = 0
	b.resumeCmd = b.resumeCommand(c)
	var ids []string
	for t, runs := range b.recorded {
		for _, r := range runs {
			ids = append(ids, fmt.Sprintf("%s run %s", termtext.Safe(b.targets[t].Config.ModelID), short(r.RunID)))
			if r.StartedAt.After(b.last) {
				b.last = r.StartedAt
			}
		}
	}
	recorded := "none"
	if len(ids) > 0 {
		recorded = strings.Join(ids, ", ")
	}
	fmt.Fprintf(b.a.stdio.Err, "promptcanary: resuming build %s of %d run(s) %v apart: %d recorded (%s), %d to go\n",
		short(mark.ID), len(split), o.every, done, recorded, len(split)-done)
	return nil
}

// alreadySaved reports whether the resumed build is finished and its
// baseline saved: every run recorded, and for every provider the newest
// baseline both in the history and in dir pools exactly those runs. It
// then says so, and the build pools nothing again (a second, identical
// baseline would only crowd the list). A build whose save failed, in
// either place, is not saved: resuming it pools the runs again.
func (b *builder) alreadySaved(ctx context.Context, dir string) bool {
	if len(b.recorded[0]) < len(b.split) {
		return false
	}
	var snaps []string
	for t, runs := range b.recorded {
		model := b.targets[t].Config.ModelID
		var snap string
		for _, v := range []check.Baselines{{History: b.hist}, {Dir: dir, Files: file.OpenDir}} {
			base, err := v.Latest(ctx, b.sel.Name, model)
			if err != nil || !poolsRuns(base, runs) {
				return false
			}
			snap = base.SnapshotID
		}
		snaps = append(snaps, fmt.Sprintf("%s: snapshot %s", termtext.Safe(model), short(snap)))
	}
	fmt.Fprintf(b.a.stdio.Out, "build %s is finished and its baseline saved (%s): nothing to do\n", short(b.mark.ID), strings.Join(snaps, ", "))
	return true
}

// resumeSplit checks --runs and --samples against the build's mark, takes
// its --every unless given, and returns the build's split.
func (b *builder) resumeSplit(c *cobra.Command, mark *promptcanary.BuildMark) ([]int, error) {
	o, f := b.o, c.Flags()
	hint := "leave the flag out: a resumed build takes its build's"
	if f.Changed("runs") && o.runs != mark.Runs {
		return nil, usageErr(fmt.Errorf("--runs %d differs from build %s's %d runs", o.runs, short(mark.ID), mark.Runs), hint)
	}
	if f.Changed("samples") && o.settings.samples != mark.Samples {
		return nil, usageErr(fmt.Errorf("--samples %d differs from build %s's %d samples per prompt", o.settings.samples, short(mark.ID), mark.Samples), hint)
	}
	if !f.Changed("every") {
		d, err := time.ParseDuration(mark.Every)
		if err != nil {
			return nil, fmt.Errorf("build %s records every %q: %w", short(mark.ID), mark.Every, err)
		}
		o.every = d
	}
	o.runs = mark.Runs
	return o.splitOf(mark.Samples)
}

// keepRecorded keeps the first done recorded runs of every target, after
// checking that each took the samples of its place and the prompts and
// sampling parameters the suite and flags give now.
func (b *builder) keepRecorded(done int, split []int) error {
	for t, runs := range b.recorded {
		want := b.sel.Plan(b.targets[t].Config, 1).PromptHashes
		for i, r := range runs[:done] {
			if n := max(r.Samples, r.SamplesPerPrompt(), 1); n != split[i] {
				return usageErr(fmt.Errorf("run %d of the build on %s (%s) took %d samples per prompt, not the %d of its place", i+1, termtext.Safe(r.Provider.ModelID), short(r.RunID), n, split[i]),
					"start a new build without --resume")
			}
			if !maps.Equal(r.PromptHashes, want) {
				return usageErr(fmt.Errorf("run %d of the build on %s (%s) was made with other prompts or sampling parameters than canary.yaml and the flags give now", i+1, termtext.Safe(r.Provider.ModelID), short(r.RunID)),
					"resume with the canary.yaml and flags the build started with, or start a new build without --resume")
			}
		}
		b.recorded[t] = runs[:done:done]
	}
	return nil
}

// shellQuote quotes s for a shell when it holds more than letters,
// digits and / . _ : @ -.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._:@-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// poolsRuns reports whether base was pooled from exactly runs, in order.
// A baseline of one run keeps no runs record: its result is that run's.
func poolsRuns(base *promptcanary.Baseline, runs []*promptcanary.Run) bool {
	if len(base.Runs) == 0 {
		return len(runs) == 1 && base.RunResult.RunID == runs[0].RunID
	}
	if len(base.Runs) != len(runs) {
		return false
	}
	for i, r := range runs {
		if base.Runs[i].RunID != r.RunID {
			return false
		}
	}
	return true
}
