package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
)

// DefaultConcurrency is the number of calls in flight when Options leaves
// it unset.
const DefaultConcurrency = 8

// DefaultMaxRetryWait is the retry budget of a run when Options leaves it
// unset: the total time one provider's run may sleep between retries.
const DefaultMaxRetryWait = 3 * time.Minute

// Options tune one execution.
type Options struct {
	// Concurrency bounds the calls in flight; 0 means DefaultConcurrency.
	Concurrency int
	// Timeout bounds each call attempt; 0 means no per-call timeout.
	Timeout time.Duration
	// MaxAttempts bounds the attempts per call (retries + 1) that fail
	// for other reasons than a rate limit (5xx, resets, timeouts); 0 means
	// 4. Rate-limited answers (429, 529, overloaded: see
	// provider.IsRateLimited) are retried for as long as the retry budget
	// (MaxRetryWait) allows instead, and do not count here.
	MaxAttempts int
	// BackoffBase is the first retry delay, doubled per attempt with full
	// jitter and capped at 30 s; 0 means 500 ms.
	BackoffBase time.Duration
	// Progress, when set, is called after each call finishes, one call at
	// a time.
	Progress func(Progress)
	// Tool names the program and version recorded in the run.
	Tool string
	// Now and NewID make runs reproducible in tests; nil means the clock
	// and a random id.
	Now   func() time.Time
	NewID func() string
	// Sleep waits between attempts; nil means a timer that honours ctx.
	Sleep func(ctx context.Context, d time.Duration) error
	// Limits pace the calls to the provider.
	Limits Limits
	// MaxRetryWait is the retry budget of the run: the time it may spend
	// waiting to retry (Retry-After or backoff), shared by all its calls:
	// the budget runs while any call waits, and waits that overlap count
	// once. A wait longer than what is left fails the call at once with
	// an error naming the wait, the budget and --max-retry-wait. 0 means
	// DefaultMaxRetryWait; a negative value allows no wait at all.
	MaxRetryWait time.Duration
	// Clock is what the retry budget measures waits against; nil means
	// time.Now. A test that fakes Sleep fakes Clock with it.
	Clock func() time.Time
	// OnWait, when set, is called before each sleep between retries, so
	// the caller can say that it is waiting and why. Calls are serialised.
	OnWait func(Wait)
	// OnThrottle, when set, is called whenever the provider's calls in
	// flight change: halved as rate limits repeat, grown back by one as
	// answers go through. Calls are serialised with OnWait's.
	OnThrottle func(Throttle)
	// OnRateLimits, when set, is called once at the end of a run that met
	// rate limits, with what they did to it.
	OnRateLimits func(RateLimits)
	// Secrets are scrubbed from each response and call error as soon as
	// the provider returns it, before probes judge it and before it enters
	// the run, so that everything reported or stored is scrubbed. Nil
	// scrubs nothing. The models the probes call (Plan.Models) register
	// their keys with it when they are opened.
	Secrets *redact.Set
	// MaxAnswerBytes bounds what is kept of each answer: the provider cuts
	// it as it reads it where it can (see provider.Bound), and the engine
	// cuts what is still longer before the probes judge it, marking the
	// response Truncated and noting in each probe's details that it judged
	// the part kept. 0 means promptcanary.DefaultMaxAnswerBytes; a negative
	// value keeps everything.
	MaxAnswerBytes int
	// Getenv and HTTPClient open the models the probes call (Plan.Models)
	// as provider.Options do; nil means os.Getenv and a default client.
	Getenv     func(string) string
	HTTPClient *http.Client
}

// Wait describes a sleep before a retry, for Options.OnWait.
type Wait struct {
	// Provider is the provider spec ("openai/gpt-4o").
	Provider string
	// PromptID and Sample identify the call.
	PromptID string
	Sample   int
	// Delay is how long the call sleeps before its next attempt.
	Delay time.Duration
	// Reason says why: "HTTP 429 rate limited", "HTTP 503 server error",
	// "the attempt timed out", …
	Reason string
	// Attempt is the attempt that failed (from 1), of MaxAttempts.
	Attempt, MaxAttempts int
	// RateLimited is set when the answer turned the call away for load
	// (429, 529, overloaded): it is retried within the budget, whatever
	// MaxAttempts says.
	RateLimited bool
	// Concurrency is the calls the run lets in flight after this answer,
	// WasConcurrency before it: they differ when it halved the limit.
	// MaxConcurrency is the configured concurrency. All are 0 for a model
	// that a probe calls (its calls are bounded by the run's).
	Concurrency, WasConcurrency, MaxConcurrency int
	// BudgetLeft is what is left of the run's retry budget, Budget, after
	// this wait.
	BudgetLeft, Budget time.Duration
}

// Throttle is a change of the calls a provider's run keeps in flight,
// for Options.OnThrottle.
type Throttle struct {
	// Provider is the provider spec.
	Provider string
	// From and To are the limit before and after; Max is the configured
	// concurrency, the most it grows back to.
	From, To, Max int
}

// RateLimits sums up what rate limits did to a run, for
// Options.OnRateLimits.
type RateLimits struct {
	// Provider is the provider spec.
	Provider string
	// Answers counts the answers that turned a call away (429, 529,
	// overloaded), Retried those of them that were retried, and NotSent
	// the calls not sent once rate limits had outlasted the retry budget.
	Answers, Retried, NotSent int
	// Concurrency is the configured concurrency, Lowest the lowest the run
	// went down to, Final where it ended.
	Concurrency, Lowest, Final int
	// Waited is the retry budget spent (by every wait of the run, rate
	// limited or not), of Budget.
	Waited, Budget time.Duration
}

// Progress is where a run stands after a call finished.
type Progress struct {
	// Done counts the finished calls, Failed those of them that failed for
	// good, Total the calls planned (adaptive sampling may stop short of it).
	Done, Failed, Total int
}

// budget is a run's retry budget, shared by its calls: the time during
// which at least one of them waits to retry.
type budget struct {
	mu          sync.Mutex
	total, left time.Duration
	// until is when the last wait taken ends.
	until time.Time
	clock func() time.Time
}

func newBudget(d time.Duration, clock func() time.Time) *budget {
	switch {
	case d == 0:
		d = DefaultMaxRetryWait
	case d < 0:
		d = 0
	}
	if clock == nil {
		clock = time.Now
	}
	return &budget{total: d, left: d, clock: clock}
}

// take spends on a wait of d from now the part of it that no wait taken
// before covers, and returns what is left; or fails naming the wait and
// what is left when that part is more.
func (b *budget) take(d time.Duration, reason string) (time.Duration, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.clock()
	end, from := now.Add(d), now
	if b.until.After(from) {
		from = b.until
	}
	cost := max(end.Sub(from), 0)
	if cost > b.left {
		return b.left, fmt.Errorf("retry budget spent: waiting %v (%s) exceeds the %v left of the run's %v budget (raise it with --max-retry-wait)",
			d, reason, b.left, b.total)
	}
	b.left -= cost
	if end.After(b.until) {
		b.until = end
	}
	return b.left, nil
}

// used returns the budget spent and the whole budget.
func (b *budget) used() (spent, total time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.total - b.left, b.total
}

// maxAnswer is the bound of an answer in bytes, 0 for none.
func (o *Options) maxAnswer() int {
	switch {
	case o.MaxAnswerBytes == 0:
		return promptcanary.DefaultMaxAnswerBytes
	case o.MaxAnswerBytes < 0:
		return 0
	}
	return o.MaxAnswerBytes
}

// noteCut says in the details of each result on a truncated answer that
// the probe judged the part kept.
func noteCut(resp *promptcanary.Response, results []promptcanary.ProbeResult) {
	note := resp.CutNote()
	if note == "" {
		return
	}
	note = "judged the part kept: " + note
	for k := range results {
		if d := results[k].Details; d != "" {
			results[k].Details = d + " (" + note + ")"
		} else {
			results[k].Details = note
		}
	}
}

// concurrency is the calls in flight the options allow.
func (o *Options) concurrency() int {
	if o.Concurrency <= 0 {
		return DefaultConcurrency
	}
	return o.Concurrency
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now().UTC()
}

// call is one (prompt, sample) unit of work and what became of it.
type call struct {
	item   int
	sample int
	resp   *promptcanary.Response
	err    *promptcanary.CallError
	probes []promptcanary.ProbeResult
}

// Execute runs every prompt of the plan for every sample against p and
// evaluates each response with its probes. Calls that fail for good become
// CallErrors in the run; the run still completes. When ctx is cancelled,
// in-flight calls are cancelled and the run returned holds what finished,
// with Interrupted set; the error is then ctx's. A model that the probes
// call (Plan.Models) and that cannot be opened, for want of an API key
// say, is an error before any call, with no run.
func Execute(ctx context.Context, plan *Plan, p provider.Provider, opts Options) (*promptcanary.Run, error) {
	return ExecuteAdaptive(ctx, plan, p, opts, nil)
}

// Adaptive makes a run sample in stages and stop sampling a prompt early
// once Accept says its results are clearly fine. Stopping early only ever
// accepts; a prompt that looks worse is sampled up to the plan's Samples.
type Adaptive struct {
	// Stages are cumulative samples per prompt, such as 5, 10, 20; stages at
	// or above the plan's Samples are replaced by Samples itself.
	Stages []int
	// Accept reports whether sampling of a prompt may stop, given all its
	// results so far.
	Accept func(promptID string, results []promptcanary.ProbeResult) bool
}

// stages returns the cumulative sample counts to run for samples.
func (a *Adaptive) stages(samples int) []int {
	if a == nil || a.Accept == nil {
		return []int{samples}
	}
	var out []int
	for _, s := range a.Stages {
		if s > 0 && s < samples && (len(out) == 0 || s > out[len(out)-1]) {
			out = append(out, s)
		}
	}
	return append(out, samples)
}

// ExecuteAdaptive is Execute with staged sampling: after each stage, the
// prompts that ad accepts are not sampled further. A nil ad samples every
// prompt Samples times.
func ExecuteAdaptive(ctx context.Context, plan *Plan, p provider.Provider, opts Options, ad *Adaptive) (*promptcanary.Run, error) {
	samples := max(plan.Samples, 1)
	run := &promptcanary.Run{
		SchemaVersion: promptcanary.SchemaVersion,
		SuiteName:     plan.Suite,
		Provider:      plan.Config,
		StartedAt:     opts.now(),
		Samples:       samples,
		ConfigHash:    plan.ConfigHash,
		PromptHashes:  plan.PromptHashes,
		Tool:          opts.Tool,
	}
	run.RunID = newID(opts.NewID)
	conc := opts.concurrency()
	e := newEngine(plan, p, &opts)
	// A model a probe calls that cannot be opened (a missing API key) stops
	// the run before it spends anything.
	if err := e.models.openAll(); err != nil {
		return nil, err
	}

	calls, stageResults := e.sampleStages(ctx, ad, samples, conc)
	if plan.References == nil {
		e.judgeWithinPrompts(ctx, calls, conc)
	}

	interrupted := ctx.Err() != nil
	collectCalls(run, calls, stageResults, interrupted)
	// Responses and errors were scrubbed as they came; this catches what
	// the probes derived from them and whatever else the run holds.
	opts.Secrets.Run(run)
	run.FinishedAt = opts.now()
	if rl, ok := e.lim.adapt.summary(e.budget); ok && opts.OnRateLimits != nil {
		opts.OnRateLimits(rl)
	}
	if interrupted {
		run.Interrupted = true
		return run, ctx.Err()
	}
	return run, nil
}

// progress counts the finished calls of a run for Options.Progress.
type progress struct {
	mu           sync.Mutex
	done, failed int
	total        int
}

// sampleStages calls the provider stage by stage, conc calls at a time;
// after each stage, only the prompts ad does not accept are sampled
// further. It returns every call made and the results of each stage, one
// slice per stage that the calls' results are parts of.
func (e *engine) sampleStages(ctx context.Context, ad *Adaptive, samples, conc int) ([]*call, [][]promptcanary.ProbeResult) {
	plan := e.plan
	prog := &progress{total: len(plan.Items) * samples}
	active := make([]int, len(plan.Items))
	for i := range active {
		active[i] = i
	}
	var (
		calls        []*call
		stageResults [][]promptcanary.ProbeResult
	)
	prev := 0
	for _, stage := range ad.stages(samples) {
		if ctx.Err() != nil || len(active) == 0 {
			break
		}
		batch, part := stageBatch(plan, active, prev, stage)
		stageResults = append(stageResults, part)
		prev = stage
		e.runBatch(ctx, batch, conc, prog)
		calls = append(calls, batch...)
		if stage == samples || ctx.Err() != nil {
			break
		}
		active = unaccepted(plan, ad, active, calls)
	}
	return calls, stageResults
}

// stageBatch returns the calls of the samples [from, to) of the active
// items. The results of a stage are one slice, each call's a part of it: a
// run without stages keeps it as its results instead of copying them.
func stageBatch(plan *Plan, active []int, from, to int) ([]*call, []promptcanary.ProbeResult) {
	batch := make([]*call, 0, len(active)*(to-from))
	for s := from; s < to; s++ {
		for _, i := range active {
			batch = append(batch, &call{item: i, sample: s})
		}
	}
	n := 0
	for _, c := range batch {
		n += len(plan.Items[c.item].Probes)
	}
	part := make([]promptcanary.ProbeResult, n)
	n = 0
	for _, c := range batch {
		k := len(plan.Items[c.item].Probes)
		c.probes = part[n : n+k : n+k]
		n += k
	}
	return batch, part
}

// runBatch performs the calls of batch, conc at a time, and reports each
// finished call to Options.Progress.
func (e *engine) runBatch(ctx context.Context, batch []*call, conc int, prog *progress) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for _, c := range batch {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			e.call(gctx, &e.plan.Items[c.item], c)
			if e.opts.Progress != nil {
				prog.mu.Lock()
				prog.done++
				if c.err != nil {
					prog.failed++
				}
				e.opts.Progress(Progress{Done: prog.done, Failed: prog.failed, Total: prog.total})
				prog.mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
}

// unaccepted keeps sampling only the prompts that are not yet clearly
// fine: it returns the items of active that ad does not accept, in active's
// storage.
func unaccepted(plan *Plan, ad *Adaptive, active []int, calls []*call) []int {
	results := map[int][]promptcanary.ProbeResult{}
	for _, c := range calls {
		results[c.item] = append(results[c.item], c.probes...)
	}
	kept := active[:0]
	for _, i := range active {
		if !ad.Accept(plan.Items[i].Prompt.ID, results[i]) {
			kept = append(kept, i)
		}
	}
	return kept
}

// judgeWithinPrompts runs without a baseline: the probes that need
// reference answers judge each response against the others of its prompt.
func (e *engine) judgeWithinPrompts(ctx context.Context, calls []*call, conc int) {
	plan := e.plan
	byItem := make([][]*call, len(plan.Items))
	for _, c := range calls {
		if c.resp != nil {
			byItem[c.item] = append(byItem[c.item], c)
		}
	}
	pctx := e.probeContext(ctx)
	forEachItem(plan, conc, func(i int, ks []int) {
		cs := byItem[i]
		resps := make([]promptcanary.Response, len(cs))
		for j, c := range cs {
			resps[j] = *c.resp
		}
		leaveOneOut(pctx, &plan.Items[i], ks, resps, func(j, k int, r promptcanary.ProbeResult) {
			cs[j].probes[k] = r
			e.intern.results(cs[j].probes[k : k+1])
		})
	})
}

// collectCalls moves the responses, probe results and errors of calls into
// run and releases them from the calls. An error that only says the run
// was interrupted is left out.
func collectCalls(run *promptcanary.Run, calls []*call, stageResults [][]promptcanary.ProbeResult, interrupted bool) {
	answered, nres := 0, 0
	for _, c := range calls {
		if c.resp != nil {
			answered++
			nres += len(c.probes)
		}
	}
	if answered > 0 {
		run.LLMResponses = make([]promptcanary.Response, 0, answered)
		// One stage: its results, closed over the calls that failed.
		run.ProbeResults = stageResults[0][:0]
		if len(stageResults) > 1 {
			run.ProbeResults = make([]promptcanary.ProbeResult, 0, nres)
		}
	}
	for _, c := range calls {
		switch {
		case c.resp != nil:
			run.LLMResponses = append(run.LLMResponses, *c.resp)
			// In place, the destination never passes the source.
			run.ProbeResults = append(run.ProbeResults, c.probes...)
		case c.err != nil && !(interrupted && c.err.Message == context.Canceled.Error()):
			run.Errors = append(run.Errors, *c.err)
		}
		c.resp, c.probes = nil, nil
	}
	clear(run.ProbeResults[len(run.ProbeResults):cap(run.ProbeResults)]) // what failed calls left
}

// engine is what the calls of one run share.
type engine struct {
	plan   *Plan
	p      provider.Provider
	lim    *limiter
	opts   *Options
	budget *budget
	waitMu sync.Mutex // serialises OnWait
	// models are the models the probes call (see Model).
	models *models
	// intern shares equal details and metadata among the run's results.
	intern *interner
}

// newEngine returns the engine of one run of plan against p (nil when
// the run only rescores answers).
func newEngine(plan *Plan, p provider.Provider, opts *Options) *engine {
	lim := newLimiter(opts.Limits)
	lim.adapt = newThrottle(plan.Config.ModelID, opts.concurrency())
	e := &engine{plan: plan, p: p, lim: lim, opts: opts, budget: newBudget(opts.MaxRetryWait, opts.Clock), intern: newInterner()}
	e.models = newModels(e, plan.Models)
	return e
}

// call performs one call with retries and evaluates the response. The
// response, or the error, is scrubbed of secrets as soon as the provider
// returns it, before the probes see it.
func (e *engine) call(ctx context.Context, item *Item, c *call) {
	plan, opts := e.plan, e.opts
	req := &provider.Request{Prompt: &item.Prompt, Config: plan.Config, Sample: plan.FirstSample + c.sample}
	var resp *promptcanary.Response
	site := callSite{spec: plan.Config.ModelID, promptID: item.Prompt.ID, sample: c.sample}
	var bound *provider.Bound
	attempts, err := e.retry(ctx, site, e.lim, CallTokens(&item.Prompt, plan.Config.MaxTokens), opts.Timeout, func(ctx context.Context) error {
		start := time.Now()
		bound = &provider.Bound{Max: opts.maxAnswer()}
		r, err := generate(provider.WithBound(ctx, bound), e.p, req)
		if err == nil && r.LatencyMS == 0 {
			r.LatencyMS = math.Round(float64(time.Since(start).Microseconds())/10) / 100
		}
		resp = r
		return err
	})
	if err != nil {
		msg := err.Error()
		if ctx.Err() != nil {
			msg = ctx.Err().Error()
		}
		c.err = &promptcanary.CallError{PromptID: item.Prompt.ID, Sample: c.sample, Provider: plan.Config.ModelID, Message: msg, Attempts: attempts}
		opts.Secrets.CallError(c.err)
		return
	}
	// Cut before it is scrubbed, so that the scrubber reads only what is
	// kept (a raw body past the bound is dropped unread).
	_, original := bound.Cut()
	resp.Cut(opts.maxAnswer(), original)
	opts.Secrets.Response(resp)
	resp.PromptID = item.Prompt.ID
	resp.Sample = c.sample
	resp.Attempts = attempts
	if resp.ProviderModelID == "" {
		resp.ProviderModelID = plan.Config.ModelID
	}
	if resp.Timestamp.IsZero() {
		resp.Timestamp = opts.now()
	}
	if resp.TotalTokens == 0 {
		resp.TotalTokens = resp.PromptTokens + resp.CompletionTokens
	}
	c.resp = resp
	var refs []promptcanary.Response
	if plan.References != nil {
		refs = plan.References[item.Prompt.ID]
	}
	pctx := e.probeContext(ctx)
	for k := range item.Probes {
		c.probes[k] = evaluateIn(pctx, &item.Prompt, resp, &item.Probes[k], refs)
	}
	noteCut(resp, c.probes)
	// Judged: a long answer moves to a spill file, so that the run holds
	// no more than its head (promptcanary.AnswerHeadBytes) until the store
	// copies it, and the results no part of it that a probe quoted. When
	// it cannot, the run holds it whole, as it would without the spill.
	if resp.SpillContent() == nil && resp.Spill != nil {
		for k := range c.probes {
			detach(&c.probes[k])
		}
	}
	e.intern.results(c.probes)
}

// detach gives the strings of r's details and metadata memory of their
// own: a probe's quote of an answer shares the answer's memory, and would
// keep all of it. The metadata is copied, not changed: a probe may share
// it.
func detach(r *promptcanary.ProbeResult) {
	r.Details = strings.Clone(r.Details)
	if r.Metadata != nil {
		r.Metadata = detachValue(r.Metadata).(map[string]any)
	}
}

func detachValue(v any) any {
	switch v := v.(type) {
	case string:
		return strings.Clone(v)
	case []string:
		if v == nil {
			return v
		}
		out := make([]string, len(v))
		for i := range v {
			out[i] = strings.Clone(v[i])
		}
		return out
	case []any:
		if v == nil {
			return v
		}
		out := make([]any, len(v))
		for i := range v {
			out[i] = detachValue(v[i])
		}
		return out
	case map[string]any:
		if v == nil {
			return v
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[strings.Clone(k)] = detachValue(e)
		}
		return out
	}
	return v
}

// callSite names a call for OnWait: the model called and the response it
// is for.
type callSite struct {
	spec     string
	promptID string
	sample   int
}

// retry runs do, an attempt bounded by timeout (0: none), until it
// succeeds, fails for good or runs out of attempts, pacing each attempt
// with lim (tokens is what it counts against the tpm limit, and its
// throttle bounds the attempts in flight) and sleeping between attempts
// as the server or the backoff says, within the run's retry budget. A
// rate-limited answer is retried for as long as the budget allows; other
// failures for MaxAttempts attempts. It returns the attempts made.
func (e *engine) retry(ctx context.Context, site callSite, lim *limiter, tokens int64, timeout time.Duration, do func(ctx context.Context) error) (int, error) {
	attempts, others, limits := 0, 0, 0
	var last error
	for {
		tk, err := lim.acquire(ctx, tokens, attempts == 0)
		if err != nil {
			if last != nil && ctx.Err() == nil {
				err = fmt.Errorf("%w: %w", err, last)
			}
			return attempts, err
		}
		attempts++
		err = attempt(ctx, timeout, do)
		limited := err != nil && ctx.Err() == nil && provider.IsRateLimited(err)
		ch := lim.adapt.release(tk, err == nil, limited)
		e.throttled(lim.adapt, ch)
		if err == nil || ctx.Err() != nil || !retryable(err) {
			return attempts, err
		}
		k := 0
		if limited {
			limits++
			k = limits
		} else if others++; others >= e.opts.maxAttempts() {
			return attempts, err
		}
		if err := e.pause(ctx, site, lim, err, attempts, k, ch); err != nil {
			return attempts, err
		}
		last = err
	}
}

// maxAttempts is MaxAttempts or its default.
func (o *Options) maxAttempts() int {
	if o.MaxAttempts <= 0 {
		return 4
	}
	return o.MaxAttempts
}

// attempt runs do once, bounded by timeout (0: none).
func attempt(ctx context.Context, timeout time.Duration, do func(ctx context.Context) error) error {
	if timeout <= 0 {
		return do(ctx)
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return do(actx)
}

// pause sleeps before the retry of a call whose attempt n failed with err
// (its k-th rate limit in a call when k > 0, after which the limit changed
// by ch), taking the wait from the run's budget and telling OnWait. A wait the budget cannot
// cover fails the call with err; when it was a rate limit, the provider's
// throttle stops: the run sends no more calls to a provider that turns
// them away for longer than it may wait.
func (e *engine) pause(ctx context.Context, site callSite, lim *limiter, err error, n, k int, ch change) error {
	opts := e.opts
	limited, d := k > 0, backoff(opts.BackoffBase, n, err)
	if limited {
		d = limitedBackoff(opts.BackoffBase, k, err, lim.adapt.pressed(k))
	}
	reason := waitReason(err, opts.Secrets)
	left, berr := e.budget.take(d, reason)
	_, total := e.budget.used()
	if berr != nil {
		if limited {
			lim.adapt.stop(fmt.Errorf("%s is rate limiting the run for longer than what is left of its %v retry budget (raise it with --max-retry-wait)", site.spec, total))
		}
		return fmt.Errorf("%w: %w", berr, err)
	}
	if limited {
		lim.adapt.retrying()
	}
	e.notify(Wait{Provider: site.spec, PromptID: site.promptID, Sample: site.sample,
		Delay: d, Reason: reason, Attempt: n, MaxAttempts: opts.maxAttempts(),
		RateLimited: limited, Concurrency: ch.to, WasConcurrency: ch.from, MaxConcurrency: lim.adapt.most(),
		BudgetLeft: left, Budget: total})
	return opts.wait(ctx, d)
}

// notify calls OnWait, one call at a time.
func (e *engine) notify(w Wait) {
	if e.opts.OnWait == nil {
		return
	}
	e.waitMu.Lock()
	defer e.waitMu.Unlock()
	e.opts.OnWait(w)
}

// throttled tells OnThrottle of a change of t's limit, one call at a time
// with OnWait's.
func (e *engine) throttled(t *throttle, ch change) {
	if e.opts.OnThrottle == nil || t == nil || ch.from == ch.to {
		return
	}
	e.waitMu.Lock()
	defer e.waitMu.Unlock()
	e.opts.OnThrottle(Throttle{Provider: t.spec, From: ch.from, To: ch.to, Max: t.max})
}

// waitReason says in a few words why a failed attempt is retried, with
// secrets scrubbed.
func waitReason(err error, secrets *redact.Set) string {
	var pe *provider.Error
	if errors.As(err, &pe) {
		switch code := pe.StatusCode; {
		case code == 429:
			return "HTTP 429 rate limited"
		case code >= 500:
			return fmt.Sprintf("HTTP %d server error", code)
		case code != 0:
			return fmt.Sprintf("HTTP %d", code)
		}
		if m := secrets.String(pe.Message); len(m) > 80 {
			return secrets.Truncate(m, 80) + "…"
		} else if m != "" {
			return m
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "the attempt timed out"
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return "network error"
	}
	return "transient error"
}

// Evaluate runs every probe instance on one response and returns their
// results stamped with instance id, prompt id and sample. Probes that
// compare the response with reference answers (probe.Deps.References) get
// none and pass as skipped; EvaluateWith gives them some.
func Evaluate(prompt *promptcanary.Prompt, resp *promptcanary.Response, probes []probe.Instance) []promptcanary.ProbeResult {
	return EvaluateWith(prompt, resp, probes, nil)
}

// EvaluateWith is Evaluate with reference answers to the same prompt,
// such as a baseline's, against which the probes that compare answers
// (probe.Deps.References) judge the response.
func EvaluateWith(prompt *promptcanary.Prompt, resp *promptcanary.Response, probes []probe.Instance, refs []promptcanary.Response) []promptcanary.ProbeResult {
	return EvaluateContext(context.Background(), prompt, resp, probes, refs)
}

// EvaluateContext is EvaluateWith under ctx: probes that may take long
// (an external command, say) stop when ctx ends.
func EvaluateContext(ctx context.Context, prompt *promptcanary.Prompt, resp *promptcanary.Response, probes []probe.Instance, refs []promptcanary.Response) []promptcanary.ProbeResult {
	out := make([]promptcanary.ProbeResult, len(probes))
	for i := range probes {
		out[i] = evaluateIn(ctx, prompt, resp, &probes[i], refs)
	}
	return out
}

// evaluateIn runs one probe instance on one response under ctx. A probe
// that calls models calls them through the Caller ctx carries, and its
// result records what they returned (see ModelCost).
func evaluateIn(ctx context.Context, prompt *promptcanary.Prompt, resp *promptcanary.Response, inst *probe.Instance, refs []promptcanary.Response) promptcanary.ProbeResult {
	var acct *account
	if remote(inst.Probe) {
		if c := probe.CallerFrom(ctx); c != nil {
			acct = &account{next: c, site: callSite{promptID: prompt.ID, sample: resp.Sample}}
			ctx = probe.WithCaller(ctx, acct)
		}
	}
	res := inst.Evaluate(ctx, probe.Input{Prompt: prompt, Response: resp, References: refs})
	md := res.Metadata
	if md == nil {
		md = map[string]any{}
	}
	if acct != nil {
		acct.record(md)
	}
	return promptcanary.ProbeResult{
		ProbeID:   inst.ID,
		ProbeType: inst.Type,
		ProbeName: inst.Name,
		Category:  inst.Category,
		PromptID:  prompt.ID,
		Sample:    resp.Sample,
		Passed:    res.Passed,
		Score:     res.Score,
		Details:   res.Details,
		Metadata:  md,
	}
}

// remote reports whether p calls models to judge a response.
func remote(p probe.Probe) bool {
	return len(probe.DepsOf(p).Models) > 0
}

// referenced returns the indices of item's probes that judge a response
// against reference answers.
func referenced(item *Item) []int {
	var ks []int
	for k := range item.Probes {
		if probe.DepsOf(item.Probes[k].Probe).References {
			ks = append(ks, k)
		}
	}
	return ks
}

// forEachItem calls fn, on all cores, for each item of plan with probes
// that judge a response against reference answers, with their indices.
// When one of them calls models (probe.Deps.Models), at most calls items run
// at once, so that the run's bound on calls in flight holds.
func forEachItem(plan *Plan, calls int, fn func(i int, ks []int)) {
	var g errgroup.Group
	limit := runtime.GOMAXPROCS(0)
	for i := range plan.Items {
		for _, k := range referenced(&plan.Items[i]) {
			if remote(plan.Items[i].Probes[k].Probe) && calls > 0 {
				limit = min(limit, calls)
			}
		}
	}
	g.SetLimit(limit)
	for i := range plan.Items {
		ks := referenced(&plan.Items[i])
		if len(ks) == 0 {
			continue
		}
		g.Go(func() error { fn(i, ks); return nil })
	}
	_ = g.Wait()
}

// leaveOneOut evaluates the probes ks of item on each of resps, answers to
// its prompt, against the other answers of resps, and hands each result to
// set with the answer's and the probe's index.
func leaveOneOut(ctx context.Context, item *Item, ks []int, resps []promptcanary.Response, set func(j, k int, r promptcanary.ProbeResult)) {
	refs := make([]promptcanary.Response, 0, max(len(resps)-1, 0))
	for j := range resps {
		refs = append(append(refs[:0], resps[:j]...), resps[j+1:]...)
		for _, k := range ks {
			set(j, k, evaluateIn(ctx, &item.Prompt, &resps[j], &item.Probes[k], refs))
		}
	}
}

// Rescore evaluates again, in run, the results of the probes that judge a
// response against reference answers (probe.Deps.References): against
// plan.References, or when it is nil against the run's other answers to
// the same prompt, as ExecuteAdaptive would have. It is for a run
// measured earlier and compared now with a baseline, such as a saved run;
// results of probes or prompts the plan does not hold are left alone.
//
// Probes that call models (probe.Deps.Models, such as similarity with an
// embedder) call them as a run would, with the default Options: open
// failures and call errors become their results' errors. RescoreContext
// takes the options and a context.
func Rescore(plan *Plan, run *promptcanary.Run) {
	RescoreContext(context.Background(), plan, run, Options{})
}

// RescoreContext is Rescore under ctx, calling the probes' models with
// opts (its retries, timeout, retry budget, secrets, Getenv and
// HTTPClient).
func RescoreContext(ctx context.Context, plan *Plan, run *promptcanary.Run, opts Options) {
	e := newEngine(plan, nil, &opts)
	pctx := e.probeContext(ctx)
	conc := opts.concurrency()
	type key struct {
		probe, prompt string
		sample        int
	}
	at := make(map[key]int, len(run.ProbeResults))
	for i := range run.ProbeResults {
		r := &run.ProbeResults[i]
		at[key{r.ProbeID, r.PromptID, r.Sample}] = i
	}
	byPrompt := References(run)
	var mu sync.Mutex
	set := func(r promptcanary.ProbeResult) {
		if i, ok := at[key{r.ProbeID, r.PromptID, r.Sample}]; ok {
			mu.Lock()
			run.ProbeResults[i] = r
			mu.Unlock()
		}
	}
	forEachItem(plan, conc, func(i int, ks []int) {
		item := &plan.Items[i]
		resps := byPrompt[item.Prompt.ID]
		if plan.References == nil {
			leaveOneOut(pctx, item, ks, resps, func(_, _ int, r promptcanary.ProbeResult) { set(r) })
			return
		}
		refs := plan.References[item.Prompt.ID]
		for j := range resps {
			for _, k := range ks {
				set(evaluateIn(pctx, &item.Prompt, &resps[j], &item.Probes[k], refs))
			}
		}
	})
	opts.Secrets.Run(run)
}

// generate makes one attempt of req with p.
func generate(ctx context.Context, p provider.Provider, req *provider.Request) (*promptcanary.Response, error) {
	resp, err := p.Generate(ctx, req)
	if err == nil && resp == nil {
		err = errors.New("provider returned no response")
	}
	return resp, err
}

// retryable reports whether a failed attempt is worth repeating: the
// provider says so (rate limits, 5xx), or the attempt timed out or the
// connection broke.
func retryable(err error) bool {
	if provider.IsRetryable(err) {
		return true
	}
	var pe *provider.Error
	if errors.As(err, &pe) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne)
}

// backoff is the delay before attempt n+1: the server's Retry-After when
// it named one, else exponential with full jitter.
func backoff(base time.Duration, n int, err error) time.Duration {
	var pe *provider.Error
	if errors.As(err, &pe) && pe.RetryAfter > 0 {
		return pe.RetryAfter
	}
	if base <= 0 {
		base = 500 * time.Millisecond
	}
	// Doubled n-1 times up to the cap, so that no shift overflows however
	// often a rate-limited call retries.
	ceiling := base
	for i := 1; i < n && ceiling < 30*time.Second; i++ {
		ceiling *= 2
	}
	ceiling = min(ceiling, 30*time.Second)
	return time.Duration(rand.Int64N(int64(ceiling)) + 1)
}

// freeLimits is how many rate limits a call of a model without a
// throttle (a probe's judge) retries after the delay the server names,
// however short, before it waits the backoff as well.
const freeLimits = 3

// limitedBackoff is the delay after a call's k-th rate limit: the
// server's delay (or the backoff when it named none), and while rate
// limits repeat (pressed) at least the exponential backoff as well, so
// that a provider that keeps answering 429 with a tiny Retry-After is not
// called ever faster. Isolated rate limits are retried after the delay
// the server names, however short.
func limitedBackoff(base time.Duration, k int, err error, pressed bool) time.Duration {
	d := backoff(base, k, err)
	if pressed {
		d = max(d, backoff(base, max(k-freeLimits, 1), nil))
	}
	return d
}

func (o *Options) wait(ctx context.Context, d time.Duration) error {
	if o.Sleep != nil {
		return o.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Judging reports whether inst asks a model for its verdict on an answer
// (llm_judge): it calls models and judges no reference answers.
func Judging(inst *probe.Instance) bool {
	d := probe.DepsOf(inst.Probe)
	return len(d.Models) > 0 && !d.References
}

// Rejudge evaluates the probe probeID of plan again on resps, answers to
// the prompt promptID, as a run would (its models called with opts), and
// returns the results in the order of resps; nil when the plan holds no
// such probe on the prompt. The evaluations are probe.Uncached: a probe
// that caches its models' answers asks them again, so a compare can see
// what the judge says now of answers judged before.
func Rejudge(ctx context.Context, plan *Plan, probeID, promptID string, resps []promptcanary.Response, opts Options) []promptcanary.ProbeResult {
	for i := range plan.Items {
		item := &plan.Items[i]
		if item.Prompt.ID != promptID {
			continue
		}
		for k := range item.Probes {
			if item.Probes[k].ID != probeID {
				continue
			}
			e := newEngine(plan, nil, &opts)
			pctx := probe.Uncached(e.probeContext(ctx))
			out := make([]promptcanary.ProbeResult, len(resps))
			for j := range resps {
				out[j] = evaluateIn(pctx, &item.Prompt, &resps[j], &item.Probes[k], nil)
			}
			return out
		}
	}
	return nil
}
