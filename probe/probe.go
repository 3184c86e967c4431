// Package probe defines the Probe contract, the registry of probe types and
// the parameter schema that canary.yaml is validated against.
//
// Built-in probes live in subpackages (probe/format, probe/reasoning, …) and
// register themselves from init; a program that wants them blank-imports
// probe/builtin. A Go user adds a probe with Register or RegisterFunc and then
// uses it from YAML by its id.
package probe

import (
	"context"
	"fmt"
	"math"

	"github.com/promptcanary/promptcanary"
)

// Probe judges one response to one prompt. Implementations must be safe for
// concurrent use: one instance evaluates many responses at once.
type Probe interface {
	// ID is the probe type id, a stable snake_case string.
	ID() string
	// Name is the display name.
	Name() string
	Category() promptcanary.Category
	Description() string
	Evaluate(p *promptcanary.Prompt, r *promptcanary.Response) Result
}

// Skipper is an optional interface of a Probe that has nothing to check on
// some prompts and passes their responses as skipped: expected_keywords on
// a prompt that declares no expected_keywords, say. A suite reports a probe
// that would skip every prompt it judges, since its verdict means nothing.
type Skipper interface {
	// Skips returns why the probe has nothing to check on p, such as "no
	// expected_keywords declared", and a hint on what p must declare; both
	// are empty when the probe judges p.
	Skips(p *promptcanary.Prompt) (reason, hint string)
}

// Referenced is an optional interface of a Probe that judges a response by
// comparing it with reference answers to the same prompt: the answers of
// the baseline a run is compared against, or, in a run without one, the
// run's other answers to the prompt. The runner calls EvaluateWith instead
// of Evaluate on such a probe. With no references the probe has nothing to
// compare with and says so; Evaluate is EvaluateWith with none.
type Referenced interface {
	Probe
	// EvaluateWith judges r, an answer to p, against refs, other answers
	// to p. It must neither modify refs nor keep them after it returns.
	EvaluateWith(p *promptcanary.Prompt, r *promptcanary.Response, refs []promptcanary.Response) Result
}

// Fingerprinter is an optional interface of a Probe whose verdicts depend
// on more than its parameters (json_schema_full's schema_file, say):
// Fingerprint identifies that content, and the suite includes it in the
// prompt hashes, so a changed file makes the baseline stale instead of
// reading as drift.
type Fingerprinter interface {
	Fingerprint() string
}

// Result is a probe's verdict on one response.
type Result struct {
	Passed bool
	// Score is in [0,1]; Evaluate clamps it.
	Score   float64
	Details string
	// Metadata holds the diagnostic values named in the probe's spec. It
	// is read-only: a probe may return the same map (and the same lists
	// in it) for every response with the same outcome, as a run shares
	// equal metadata among its results.
	Metadata map[string]any
}

// Evaluate runs p on one response and never panics: a probe that panics
// yields a failed result with score 0 and details naming the panic, and a
// score outside [0,1] (or NaN) is clamped.
func Evaluate(p Probe, prompt *promptcanary.Prompt, resp *promptcanary.Response) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			res = Result{Details: fmt.Sprintf("probe %s failed: panic: %v", p.ID(), v), Metadata: map[string]any{"error": fmt.Sprint(v)}}
		}
	}()
	res = p.Evaluate(prompt, resp)
	res.Score = Clamp(res.Score)
	return res
}

// EvaluateWith is Evaluate for a probe that may compare the response with
// reference answers: it calls p's EvaluateWith when p is Referenced, else
// p's Evaluate, and likewise never panics and clamps the score.
func EvaluateWith(p Probe, prompt *promptcanary.Prompt, resp *promptcanary.Response, refs []promptcanary.Response) (res Result) {
	rp, ok := p.(Referenced)
	if !ok {
		return Evaluate(p, prompt, resp)
	}
	defer func() {
		if v := recover(); v != nil {
			res = Result{Details: fmt.Sprintf("probe %s failed: panic: %v", p.ID(), v), Metadata: map[string]any{"error": fmt.Sprint(v)}}
		}
	}()
	res = rp.EvaluateWith(prompt, resp, refs)
	res.Score = Clamp(res.Score)
	return res
}

// Contextual is an optional interface of a Probe whose evaluation may take
// long (an external command, an expression over a long answer): it gets
// the run's context, so that Ctrl-C or a deadline stops it.
type Contextual interface {
	EvaluateContext(ctx context.Context, p *promptcanary.Prompt, r *promptcanary.Response) Result
}

// EvaluateContext is EvaluateWith that hands ctx to a Contextual or
// ReferencedContext probe.
func EvaluateContext(ctx context.Context, p Probe, prompt *promptcanary.Prompt, resp *promptcanary.Response, refs []promptcanary.Response) (res Result) {
	if rp, ok := p.(ReferencedContext); ok {
		return evaluateReferencedContext(ctx, rp, prompt, resp, refs)
	}
	cp, ok := p.(Contextual)
	if !ok {
		return EvaluateWith(p, prompt, resp, refs)
	}
	defer func() {
		if v := recover(); v != nil {
			res = Result{Details: fmt.Sprintf("probe %s failed: panic: %v", p.ID(), v), Metadata: map[string]any{"error": fmt.Sprint(v)}}
		}
	}()
	res = cp.EvaluateContext(ctx, prompt, resp)
	res.Score = Clamp(res.Score)
	return res
}

// Clamp limits s to [0,1]; NaN becomes 0.
func Clamp(s float64) float64 {
	switch {
	case math.IsNaN(s) || s < 0:
		return 0
	case s > 1:
		return 1
	}
	return s
}

// Func adapts a plain function to the Probe interface, for one-off probes.
type Func struct {
	TypeID    string
	Display   string
	Cat       promptcanary.Category
	Desc      string
	Evaluator func(p *promptcanary.Prompt, r *promptcanary.Response) Result
}

var _ Probe = (*Func)(nil)

// ID returns f.TypeID.
func (f *Func) ID() string { return f.TypeID }

// Name returns f.Display, or the id when it is empty.
func (f *Func) Name() string {
	if f.Display == "" {
		return f.TypeID
	}
	return f.Display
}

// Category returns f.Cat, or custom when it is empty.
func (f *Func) Category() promptcanary.Category {
	if f.Cat == "" {
		return promptcanary.CategoryCustom
	}
	return f.Cat
}

// Description returns f.Desc.
func (f *Func) Description() string { return f.Desc }

// Evaluate calls f.Evaluator.
func (f *Func) Evaluate(p *promptcanary.Prompt, r *promptcanary.Response) Result {
	return f.Evaluator(p, r)
}

// Instance is a configured probe inside a suite: a probe type with its
// parameters, known by an instance id that keys its results.
type Instance struct {
	// ID is the instance id: the `id:` from YAML, else the type id, with a
	// numeric suffix for repeats.
	ID     string
	Type   string
	Params Params
	Probe  Probe
}
