package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/redact"
	"github.com/promptcanary/promptcanary/internal/textcut"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
)

// Feed is the input of JudgeStream: recorded answers, read in batches of
// raw lines by one goroutine and decoded by the workers that judge them,
// so that decoding runs on every core too. It is what a provider that
// streams (provider.Capabilities.Stream) returns.
type Feed = provider.Feed

// Batch is lines of a Feed.
type Batch = provider.Batch

// StreamProgress is where a stream stands after a batch was read.
type StreamProgress struct {
	// Lines counts the lines read, Bytes the bytes of the input.
	Lines int64
	Bytes int64
}

// StreamOptions tune JudgeStream.
type StreamOptions struct {
	// Workers is the number of goroutines that decode and judge; 0 means
	// GOMAXPROCS.
	Workers int
	// Source names the input in the summary (the replay file as given).
	Source string
	// Tool names the program and version recorded in the summary.
	Tool string
	// Progress, when set, is called after each batch is read, from one
	// goroutine.
	Progress func(StreamProgress)
	// Now and NewID make summaries reproducible in tests; nil means the
	// clock and a random id.
	Now   func() time.Time
	NewID func() string
	// Secrets are scrubbed from each answer before it is judged, and from
	// what the summary keeps of the results.
	Secrets *redact.Set
}

// exampleRunes bounds the example answer a pair of a summary keeps.
const exampleRunes = 500

// CheckStream reports whether every probe of plan can judge a stream: a
// probe that compares an answer with other answers (probe.Deps.References,
// such as similarity) needs answers a stream does not keep, and one that
// calls a model (probe.Deps.Models, such as llm_judge) would call it once per
// line. The error names the first such probe and prompt.
func CheckStream(plan *Plan) error {
	for i := range plan.Items {
		item := &plan.Items[i]
		for k := range item.Probes {
			inst := &item.Probes[k]
			if probe.DepsOf(inst.Probe).References {
				return fmt.Errorf("probe %q of prompt %q judges an answer against other answers (%s), which a streamed run does not keep", inst.ID, item.Prompt.ID, inst.Type)
			}
			if remote(inst.Probe) {
				return fmt.Errorf("probe %q of prompt %q calls a model for every answer (%s): a streamed run would call it once per line", inst.ID, item.Prompt.ID, inst.Type)
			}
		}
	}
	return nil
}

// JudgeStream judges every answer of feed with the probes of its prompt
// in plan, on every core, and keeps only aggregates per (probe, prompt)
// pair (see promptcanary.RunSummary): its memory does not grow with the
// input. Answers for prompts that plan does not hold are counted apart;
// each prompt of plan without an answer becomes an error of the summary.
// plan.Samples is ignored: every line is one more answer.
//
// A malformed line or a failed read stops the stream: the error is the
// first in the input (the lowest line), and there is no summary. When ctx
// is cancelled, the summary of what was judged comes back, Interrupted,
// with ctx's error.
func JudgeStream(ctx context.Context, plan *Plan, feed Feed, opts StreamOptions) (*promptcanary.RunSummary, error) {
	if err := CheckStream(plan); err != nil {
		return nil, err
	}
	now := func() time.Time { return time.Now().UTC() }
	if opts.Now != nil {
		now = opts.Now
	}
	sum := &promptcanary.RunSummary{
		Kind:          promptcanary.KindRunSummary,
		SchemaVersion: promptcanary.SchemaVersion,
		SuiteName:     plan.Suite,
		Provider:      plan.Config,
		Source:        opts.Source,
		StartedAt:     now(),
		ConfigHash:    plan.ConfigHash,
		Tool:          opts.Tool,
	}
	sum.RunID = newID(opts.NewID)
	total, err := judgeFeed(ctx, plan, feed, &opts)
	if err != nil {
		return nil, err
	}
	total.summarize(plan, sum, opts.Secrets)
	sum.FinishedAt = now()
	if err := ctx.Err(); err != nil {
		sum.Interrupted = true
		return sum, err
	}
	return sum, nil
}

// judgeFeed reads feed in batches and judges them on opts.Workers workers
// (every core by default), each keeping its own aggregates; it returns
// their merge. A malformed line before the point where reading stopped is
// the error; past it, a read error.
func judgeFeed(ctx context.Context, plan *Plan, feed Feed, opts *StreamOptions) (*streamAgg, error) {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	index := make(map[string]int, len(plan.Items))
	for i := range plan.Items {
		index[plan.Items[i].Prompt.ID] = i
	}

	// Batches go round: free → the reader fills one → full → a worker
	// judges it → free. Memory is that of the batches in flight.
	full := make(chan Batch, 2*workers)
	free := make(chan Batch, 2*workers+1)
	for range cap(free) {
		free <- feed.NewBatch()
	}
	var (
		stop  atomic.Bool // a worker found a malformed line
		fails lineErrors
		wg    sync.WaitGroup
	)
	aggs := make([]*streamAgg, workers)
	for w := range workers {
		aggs[w] = newStreamAgg(plan)
		wg.Go(func() {
			a := aggs[w]
			for b := range full {
				a.batch(ctx, plan, index, b, &fails, &stop, opts.Secrets)
				free <- b
			}
		})
	}
	readErr := readFeed(ctx, feed, opts, &stop, full, free)
	close(full)
	wg.Wait()

	if err := fails.first(); err != nil {
		return nil, err
	}
	if readErr != nil {
		return nil, readErr
	}
	total := newStreamAgg(plan)
	for _, a := range aggs {
		total.merge(a)
	}
	return total, nil
}

// readFeed fills free batches from feed and hands them to the workers on
// full until the input ends, a worker finds a malformed line (stop) or ctx
// is cancelled. It returns the read error, if any besides io.EOF.
func readFeed(ctx context.Context, feed Feed, opts *StreamOptions, stop *atomic.Bool, full, free chan Batch) error {
	var lines int64
	for !stop.Load() && ctx.Err() == nil {
		b := <-free
		err := feed.Next(b)
		if b.Len() > 0 {
			lines += int64(b.Len())
			full <- b
		} else {
			free <- b
		}
		if opts.Progress != nil {
			opts.Progress(StreamProgress{Lines: lines, Bytes: feed.Offset()})
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return err
			}
			break
		}
	}
	return nil
}

// newID returns the id that gen makes, or a new random one when gen is
// nil.
func newID(gen func() string) string {
	if gen != nil {
		return gen()
	}
	return promptcanary.NewID()
}

// lineErrors keeps the malformed line found first in the input.
type lineErrors struct {
	mu   sync.Mutex
	line int
	err  error
}

func (e *lineErrors) add(line int, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil || line < e.line {
		e.line, e.err = line, err
	}
}

func (e *lineErrors) first() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// streamAgg is what one worker aggregates. Each worker sees its lines in
// increasing order (batches are handed out in input order), which is what
// makes "first in the input" well defined when workers merge.
type streamAgg struct {
	pairs   [][]pairAgg // by item, then probe
	answers []int64     // by item
	lines   int64
	judged  int64
	// unknown are the first prompt ids not in the plan, with their counts.
	unknown      map[string]*unknownAgg
	unknownLines int64
	prompt       int64
	completion   int64
	totalTokens  int64
	latency      float64
}

type pairAgg struct {
	n, passes int64
	sum       float64
	// details of the first answer, at line first (0: none yet).
	first   int
	details string
	// the first failing answer, at line exLine.
	exLine  int
	example string
	fails   []detailAgg
	other   int64
}

type detailAgg struct {
	text  string
	n     int64
	first int
}

type unknownAgg struct {
	n     int64
	first int
}

func newStreamAgg(plan *Plan) *streamAgg {
	a := &streamAgg{pairs: make([][]pairAgg, len(plan.Items)), answers: make([]int64, len(plan.Items)), unknown: map[string]*unknownAgg{}}
	for i := range plan.Items {
		a.pairs[i] = make([]pairAgg, len(plan.Items[i].Probes))
	}
	return a
}

// batch decodes and judges the lines of b.
func (a *streamAgg) batch(ctx context.Context, plan *Plan, index map[string]int, b Batch, fails *lineErrors, stop *atomic.Bool, secrets *redact.Set) {
	for j := range b.Len() {
		line := b.Line(j)
		resp, err := b.Decode(j)
		if err != nil {
			fails.add(line, err)
			stop.Store(true)
			continue
		}
		a.lines++
		secrets.Response(resp)
		i, ok := index[resp.PromptID]
		if !ok {
			a.unknownLines++
			if u := a.unknown[resp.PromptID]; u != nil {
				u.n++
			} else if len(a.unknown) < promptcanary.MaxSummaryUnknown {
				a.unknown[resp.PromptID] = &unknownAgg{n: 1, first: line}
			}
			continue
		}
		a.judged++
		a.answers[i]++
		a.prompt += int64(resp.PromptTokens)
		a.completion += int64(resp.CompletionTokens)
		a.totalTokens += int64(resp.TotalTokens)
		a.latency += resp.LatencyMS
		item := &plan.Items[i]
		for k := range item.Probes {
			res := item.Probes[k].Evaluate(ctx, probe.Input{Prompt: &item.Prompt, Response: resp})
			a.pairs[i][k].add(line, &res, resp.Content)
		}
	}
}

// add counts one result, of the answer at line.
func (p *pairAgg) add(line int, res *probe.Result, content string) {
	p.n++
	p.sum += res.Score
	if p.first == 0 {
		p.first, p.details = line, res.Details
	}
	if res.Passed {
		p.passes++
		return
	}
	if p.exLine == 0 {
		p.exLine, p.example = line, textcut.Runes(content, exampleRunes, textcut.Ellipsis)
	}
	for d := range p.fails {
		if p.fails[d].text == res.Details {
			p.fails[d].n++
			return
		}
	}
	if len(p.fails) < promptcanary.MaxSummaryDetails {
		p.fails = append(p.fails, detailAgg{text: res.Details, n: 1, first: line})
		return
	}
	p.other++
}

// merge adds o's aggregates to a's. What is kept of bounded lists is what
// came first in the input, whichever worker saw it.
func (a *streamAgg) merge(o *streamAgg) {
	a.lines += o.lines
	a.judged += o.judged
	a.unknownLines += o.unknownLines
	a.prompt += o.prompt
	a.completion += o.completion
	a.totalTokens += o.totalTokens
	a.latency += o.latency
	for i := range a.pairs {
		a.answers[i] += o.answers[i]
		for k := range a.pairs[i] {
			a.pairs[i][k].merge(&o.pairs[i][k])
		}
	}
	for id, u := range o.unknown {
		if v := a.unknown[id]; v != nil {
			v.n += u.n
			v.first = min(v.first, u.first)
		} else {
			a.unknown[id] = &unknownAgg{n: u.n, first: u.first}
		}
	}
	if len(a.unknown) > promptcanary.MaxSummaryUnknown {
		ids := make([]string, 0, len(a.unknown))
		for id := range a.unknown {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(x, y string) int { return cmp.Compare(a.unknown[x].first, a.unknown[y].first) })
		for _, id := range ids[promptcanary.MaxSummaryUnknown:] {
			delete(a.unknown, id)
		}
	}
}

func (p *pairAgg) merge(o *pairAgg) {
	p.n += o.n
	p.passes += o.passes
	p.sum += o.sum
	p.other += o.other
	if o.first != 0 && (p.first == 0 || o.first < p.first) {
		p.first, p.details = o.first, o.details
	}
	if o.exLine != 0 && (p.exLine == 0 || o.exLine < p.exLine) {
		p.exLine, p.example = o.exLine, o.example
	}
	for _, d := range o.fails {
		if i := slices.IndexFunc(p.fails, func(x detailAgg) bool { return x.text == d.text }); i >= 0 {
			p.fails[i].n += d.n
			p.fails[i].first = min(p.fails[i].first, d.first)
		} else {
			p.fails = append(p.fails, d)
		}
	}
	if len(p.fails) > promptcanary.MaxSummaryDetails {
		slices.SortFunc(p.fails, func(x, y detailAgg) int { return cmp.Compare(x.first, y.first) })
		for _, d := range p.fails[promptcanary.MaxSummaryDetails:] {
			p.other += d.n
		}
		p.fails = p.fails[:promptcanary.MaxSummaryDetails]
	}
}

// summarize writes the merged aggregates into s.
func (a *streamAgg) summarize(plan *Plan, s *promptcanary.RunSummary, secrets *redact.Set) {
	s.Lines, s.Judged, s.UnknownLines = a.lines, a.judged, a.unknownLines
	s.PromptTokens, s.CompletionTokens, s.TotalTokens, s.LatencyMS = a.prompt, a.completion, a.totalTokens, a.latency
	for id, u := range a.unknown {
		s.Unknown = append(s.Unknown, promptcanary.UnknownPrompt{PromptID: id, Lines: u.n})
	}
	slices.SortFunc(s.Unknown, func(x, y promptcanary.UnknownPrompt) int { return cmp.Compare(x.PromptID, y.PromptID) })
	s.Pairs = []promptcanary.PairSummary{}
	for i := range plan.Items {
		item := &plan.Items[i]
		if a.answers[i] == 0 {
			s.Errors = append(s.Errors, promptcanary.CallError{PromptID: item.Prompt.ID, Provider: plan.Config.ModelID,
				Message: fmt.Sprintf("no recorded answer for prompt %q in %q", item.Prompt.ID, s.Source)})
			continue
		}
		for k := range item.Probes {
			inst, p := &item.Probes[k], &a.pairs[i][k]
			ps := promptcanary.PairSummary{
				ProbeID: inst.ID, ProbeType: inst.Type, ProbeName: inst.Name, Category: inst.Category,
				PromptID: item.Prompt.ID, N: p.n, Passes: p.passes, ScoreSum: p.sum,
				Details: secrets.String(p.details), OtherFailures: p.other,
				Example: secrets.String(p.example), ExampleLine: int64(p.exLine),
			}
			slices.SortStableFunc(p.fails, func(x, y detailAgg) int { return cmp.Or(cmp.Compare(y.n, x.n), cmp.Compare(x.first, y.first)) })
			for _, d := range p.fails {
				ps.Failures = append(ps.Failures, promptcanary.DetailCount{Details: secrets.String(d.text), N: d.n})
			}
			s.Pairs = append(s.Pairs, ps)
		}
	}
	slices.SortStableFunc(s.Pairs, func(x, y promptcanary.PairSummary) int {
		return cmp.Or(cmp.Compare(x.PromptID, y.PromptID), cmp.Compare(x.ProbeID, y.ProbeID))
	})
	slices.SortStableFunc(s.Errors, func(x, y promptcanary.CallError) int { return cmp.Compare(x.PromptID, y.PromptID) })
}
