package cli

import (
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
)

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
