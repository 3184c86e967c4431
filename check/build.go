package check

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// SplitSamples splits the samples per prompt of a baseline over runs
// runs as evenly as it can: each run takes samples/runs, and the first
// samples%runs runs one more. samples must be at least runs.
func SplitSamples(samples, runs int) ([]int, error) {
	if runs < 1 || runs > promptcanary.MaxSamples {
		return nil, inRange("runs", runs, 1, promptcanary.MaxSamples)
	}
	if samples < runs || samples > promptcanary.MaxSamples {
		return nil, inRange("samples", samples, runs, promptcanary.MaxSamples)
	}
	split := make([]int, runs)
	for i := range split {
		split[i] = samples / runs
		if i < samples%runs {
			split[i]++
		}
	}
	return split, nil
}

// PoolBaseline returns the baseline that pools runs, the runs of one
// suite and model in the order they ran: the probe results, answers and
// failed calls of every run, their sample indices moved up so that each
// run's samples follow the previous run's, and a record of the runs
// (Baseline.Runs). The pooled run carries the last run's id, settings and
// fingerprints (not its build mark), starts when the first run started and finishes when the
// last one finished; the baseline is created at now. The runs must be
// compatible with the last one (see Compatible). The runs are not
// changed.
func PoolBaseline(runs []*promptcanary.Run, now time.Time) (*promptcanary.Baseline, error) {
	if len(runs) == 0 {
		return nil, errors.New("pool a baseline: no runs")
	}
	last := runs[len(runs)-1]
	pooled := *last
	pooled.StartedAt = runs[0].StartedAt
	pooled.ProbeResults, pooled.LLMResponses, pooled.Errors = nil, nil, nil
	pooled.CostUSD, pooled.Build = nil, nil
	record := make([]promptcanary.BaselineRun, len(runs))
	cost, priced, first := 0.0, true, 0
	for i, r := range runs {
		if r.SuiteName != last.SuiteName || r.Provider.ModelID != last.Provider.ModelID {
			return nil, fmt.Errorf("pool a baseline: run %s is of %s on %s, not %s on %s like run %s",
				r.RunID, r.SuiteName, r.Provider.ModelID, last.SuiteName, last.Provider.ModelID, last.RunID)
		}
		if err := Compatible(last, r); err != nil {
			return nil, fmt.Errorf("pool a baseline: run %s: %w", r.RunID, err)
		}
		n := max(r.Samples, r.SamplesPerPrompt(), 1)
		record[i] = promptcanary.BaselineRun{RunID: r.RunID, StartedAt: r.StartedAt.Truncate(time.Microsecond),
			FinishedAt: r.FinishedAt.Truncate(time.Microsecond), FirstSample: first, Samples: n}
		appendShifted(&pooled, r, first)
		if r.CostUSD == nil {
			priced = false
		} else {
			cost += *r.CostUSD
		}
		first += n
	}
	if first > promptcanary.MaxSamples {
		return nil, fmt.Errorf("pool a baseline: the %d runs hold %d samples per prompt, more than %d", len(runs), first, promptcanary.MaxSamples)
	}
	pooled.Samples = first
	if priced {
		pooled.CostUSD = &cost
	}
	b := store.NewBaseline(&pooled, "", now.UTC())
	if len(runs) > 1 {
		b.Runs = record // a baseline of one run is that run's, as run --save-baseline saves it
	}
	return b, nil
}

// appendShifted appends the probe results, answers and failed calls of r
// to pooled, each sample index moved up by first.
func appendShifted(pooled, r *promptcanary.Run, first int) {
	for _, pr := range r.ProbeResults {
		pr.Sample += first
		pooled.ProbeResults = append(pooled.ProbeResults, pr)
	}
	for _, resp := range r.LLMResponses {
		resp.Sample += first
		pooled.LLMResponses = append(pooled.LLMResponses, resp)
	}
	for _, e := range r.Errors {
		e.Sample += first
		pooled.Errors = append(pooled.Errors, e)
	}
}

// BuildRuns finds what the build id (or the only build whose id starts
// with it, at least store.MinPrefix characters) recorded for suite and
// model: its mark, from the newest of its runs, and its runs by their
// place, runs[i] being run i+1 (len(runs) is mark.Runs). A place is nil
// when no run of it was recorded, or none that counts as measured with
// maxErrors failed calls; of several, the newest counts. The runs of suite
// and model are read newest first, back to the build's first run. It
// fails with store.ErrNotFound when the build recorded no run of them,
// and store.ErrAmbiguous when id starts several builds' ids.
func BuildRuns(ctx context.Context, hist store.Store, suite, model, id string, maxErrors int) (*promptcanary.BuildMark, []*promptcanary.Run, error) {
	sums, err := hist.Runs(ctx, store.RunFilter{Suite: suite, Model: model})
	if err != nil {
		return nil, nil, err
	}
	var (
		mark *promptcanary.BuildMark
		runs []*promptcanary.Run
	)
	for _, sum := range sums {
		r, err := hist.Run(ctx, sum.RunID)
		if err != nil {
			return nil, nil, fmt.Errorf("read run %s: %w", shortID(sum.RunID), err)
		}
		b := r.Build
		if b == nil || !(b.ID == id || (len(id) >= store.MinPrefix && strings.HasPrefix(b.ID, id))) {
			continue
		}
		if mark == nil {
			mark, runs = b, make([]*promptcanary.Run, b.Runs)
		}
		if b.ID != mark.ID {
			return nil, nil, fmt.Errorf("build %q: %w: builds %s and %s", id, store.ErrAmbiguous, mark.ID, b.ID)
		}
		if b.Run < 1 || b.Run > len(runs) || runs[b.Run-1] != nil || r.Interrupted || len(unmeasured([]*promptcanary.Run{r}, nil, nil, maxErrors)) > 0 {
			continue
		}
		runs[b.Run-1] = r
		if b.Run == 1 {
			break
		}
	}
	if mark == nil {
		return nil, nil, fmt.Errorf("build %q of suite %q on %s: %w", id, suite, model, store.ErrNotFound)
	}
	return mark, runs, nil
}
