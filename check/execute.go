package check

import (
	"context"
	"errors"

	"golang.org/x/sync/errgroup"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"
)

// Progress is where one provider's run stands.
type Progress struct {
	// Target is the index of the provider among the targets.
	Target int
	Spec   string
	// Done counts the finished calls, Total the planned ones.
	Done, Total int
	// Failed counts the finished calls that failed for good.
	Failed int
}

// Exec tunes how targets are run.
type Exec struct {
	Settings Settings
	// Tool names the program and version recorded in runs.
	Tool string
	// Progress, when set, is called after each finished call.
	Progress func(Progress)
	// OnWait, when set, is called before each wait between retries.
	OnWait func(runner.Wait)
	// OnThrottle, when set, is called when a provider's calls in flight
	// change as it rate limits the run, and OnRateLimits once at the end
	// of a provider's run that met rate limits.
	OnThrottle   func(runner.Throttle)
	OnRateLimits func(runner.RateLimits)
	// Wrap, when set, wraps each target's provider once it is opened (the
	// monitor counts and times every call this way); spec is the target's
	// NAME/MODEL.
	Wrap func(spec string, p provider.Provider) provider.Provider
	// Observe, when set, is called as each target's run starts (spec is
	// its NAME/MODEL) and returns the context the run's calls are made
	// under and a function called with the run and its error when it
	// ends (tracing makes a span of each run this way).
	Observe func(ctx context.Context, spec string) (context.Context, func(*promptcanary.Run, error))
	// FirstSample is the sample index providers are asked for as the
	// run's sample 0 (runner.Plan.FirstSample): 0, or, for a run that
	// continues others into one baseline, the samples they took.
	FirstSample int
}

// Open opens every target's provider before anything is called, so a
// configuration mistake in any of them stops the run at once; each error
// names the canary.yaml line of the provider's entry.
func Open(st *suite.Suite, targets []Target) ([]provider.Provider, error) {
	out := make([]provider.Provider, len(targets))
	var errs []error
	for i, t := range targets {
		p, err := provider.Open(t.Spec, t.Options)
		if err != nil {
			if t.Entry != nil {
				err = locate(st, t.Entry, t.Spec, err)
			}
			errs = append(errs, err)
			continue
		}
		out[i] = p
	}
	if len(errs) > 0 {
		return nil, configErr(errors.Join(errs...))
	}
	return out, nil
}

// Against is what a run is compared with, per target, while it runs.
type Against struct {
	// Adaptive, when not nil, stops sampling a prompt early once its
	// results are clearly fine.
	Adaptive *runner.Adaptive
	// References are the baseline's answers by prompt id, for probes that
	// judge an answer against others (similarity); nil means the run's
	// own other samples.
	References map[string][]promptcanary.Response
}

// Execute runs the suite against every target at once, each with its own
// concurrency and rate limits. Runs come back in target order; with a
// context.Canceled error they are partial. against, when not nil, holds
// one entry per target.
func Execute(ctx context.Context, st *suite.Suite, targets []Target, samples int, against []Against, x Exec) ([]*promptcanary.Run, error) {
	provs, err := Open(st, targets)
	if err != nil {
		return nil, err
	}
	if x.Wrap != nil {
		for i, t := range targets {
			provs[i] = x.Wrap(t.Spec, provs[i])
		}
	}
	runs := make([]*promptcanary.Run, len(targets))
	errs := make([]error, len(targets))
	var g errgroup.Group
	for i, t := range targets {
		g.Go(func() error {
			opts := engine(t, x)
			if x.Progress != nil {
				opts.Progress = func(p runner.Progress) {
					x.Progress(Progress{Target: i, Spec: t.Spec, Done: p.Done, Failed: p.Failed, Total: p.Total})
				}
			}
			plan := st.Plan(t.Config, samples)
			plan.FirstSample = x.FirstSample
			var ad *runner.Adaptive
			if against != nil {
				ad = against[i].Adaptive
				plan.References = against[i].References
			}
			rctx, done := ctx, func(*promptcanary.Run, error) {}
			if x.Observe != nil {
				rctx, done = x.Observe(ctx, t.Spec)
			}
			runs[i], errs[i] = runner.ExecuteAdaptive(rctx, plan, provs[i], opts, ad)
			defer func() { done(runs[i], errs[i]) }()
			if runs[i] != nil {
				runs[i].CostUSD = EstimateCost(runs[i], st.Prices)
				runs[i].Adjustments = t.Adjustments
				runs[i].Warnings = t.Warnings
				hintErrors(runs[i])
			}
			return nil
		})
	}
	_ = g.Wait()
	return runs, errors.Join(errs...)
}

// engine returns the run engine options for one target.
func engine(t Target, x Exec) runner.Options {
	s := x.Settings
	retries := DefaultRetries
	if s.Retries != nil {
		retries = *s.Retries
	}
	return runner.Options{
		Concurrency:    s.Concurrency,
		Timeout:        t.Timeout,
		MaxAttempts:    retries + 1,
		Limits:         t.Limits,
		Tool:           x.Tool,
		OnWait:         x.OnWait,
		OnThrottle:     x.OnThrottle,
		OnRateLimits:   x.OnRateLimits,
		MaxRetryWait:   s.MaxRetryWait,
		MaxAnswerBytes: t.MaxAnswerBytes,
		Secrets:        s.Secrets,
		Getenv:         t.Options.Getenv,
		HTTPClient:     t.Options.HTTPClient,
	}
}

// EstimateCost prices a run's token usage, with the calls its probes made
// to models (an llm_judge's judge, see runner.ModelCost); nil when a price
// is unknown.
func EstimateCost(r *promptcanary.Run, prices map[string]provider.Price) *float64 {
	price, ok := provider.LookupPrice(r.Provider.ModelID, prices)
	if !ok {
		return nil
	}
	in, out := r.Tokens()
	c := price.Cost(in, out)
	probes, ok := runner.ModelCost(r, prices)
	if !ok {
		return nil
	}
	c += probes
	return &c
}
