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

// Probe judges one response to one prompt. Its identity (id, name,
// category, description) is that of the Type it is registered under.
// Implementations must be safe for concurrent use: one instance evaluates
// many responses at once.
type Probe interface {
	// Evaluate judges in.Response, an answer to in.Prompt. ctx is the
	// run's: a probe that may take long (an external command, a model
	// call) stops when it ends, and one that calls models finds the run's Caller
	// in it (CallerFrom).
	Evaluate(ctx context.Context, in Input) Result
}

// Input is what a probe judges: one response to one prompt, and for a
// probe that compares answers (Deps.References) other answers to the same
// prompt.
type Input struct {
	Prompt   *promptcanary.Prompt
	Response *promptcanary.Response
	// References are the reference answers to Prompt: the answers of the
	// baseline a run is compared against, or, in a run without one, the
	// run's other answers to the prompt. A run gathers them for the
	// probes whose Deps has References, which with none have nothing to
	// compare with and say so; other probes ignore them. A probe must
	// neither modify them nor keep them after Evaluate returns.
	References []promptcanary.Response
}

// OrEmpty returns in's prompt and response, an empty one for each that is
// nil: for a probe that hands them on whole (to a command, a judge model
// or an expression) rather than read a field of each.
func (in Input) OrEmpty() (*promptcanary.Prompt, *promptcanary.Response) {
	p, r := in.Prompt, in.Response
	if p == nil {
		p = &promptcanary.Prompt{}
	}
	if r == nil {
		r = &promptcanary.Response{}
	}
	return p, r
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

// Deps is what a probe needs from a run beyond the prompt and the
// response it judges.
type Deps struct {
	// References marks a probe that judges a response by comparing it
	// with reference answers to the same prompt (Input.References).
	References bool
	// Models lists the models the probe may call through the run's Caller
	// (see Caller); a run opens them before its first call, so a
	// missing API key stops it before it spends anything.
	Models []Model
}

// Dependent is an optional interface of a Probe that needs more than the
// prompt and the response: reference answers, or models to call.
type Dependent interface {
	Deps() Deps
}

// DepsOf returns p's Deps, none when p is not Dependent.
func DepsOf(p Probe) Deps {
	if d, ok := p.(Dependent); ok {
		return d.Deps()
	}
	return Deps{}
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
	// Score is in [0,1]; Instance.Evaluate clamps it.
	Score   float64
	Details string
	// Metadata holds the diagnostic values named in the probe's spec. It
	// is read-only: a probe may return the same map (and the same lists
	// in it) for every response with the same outcome, as a run shares
	// equal metadata among its results.
	Metadata map[string]any
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
type Func func(ctx context.Context, in Input) Result

// Evaluate calls f.
func (f Func) Evaluate(ctx context.Context, in Input) Result { return f(ctx, in) }

// Instance is a configured probe inside a suite: a probe type with its
// parameters, known by an instance id that keys its results. Build one
// with NewInstance (or load a suite), which fills Name and Category from
// the registered type; a hand-built Instance stamps its results with
// whatever those fields hold.
type Instance struct {
	// ID is the instance id: the `id:` from YAML, else the type id, with a
	// numeric suffix for repeats.
	ID     string
	Type   string
	Params Params
	Probe  Probe
	// Name and Category are those of the registered type Type, which a
	// run stamps on the instance's results.
	Name     string
	Category promptcanary.Category
}

// Evaluate runs the instance's probe on in and never panics: a probe that
// panics yields a failed result with score 0 and details naming the panic,
// and a score outside [0,1] (or NaN) is clamped. It is the one way a run
// evaluates a probe.
func (inst *Instance) Evaluate(ctx context.Context, in Input) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			id := inst.Type
			if id == "" {
				id = inst.ID
			}
			res = Result{Details: fmt.Sprintf("probe %s failed: panic: %v", id, v), Metadata: map[string]any{"error": fmt.Sprint(v)}}
		}
	}()
	res = inst.Probe.Evaluate(ctx, in)
	res.Score = Clamp(res.Score)
	return res
}

// NewInstance builds an instance of type id with raw parameter values (as
// decoded from YAML or JSON), known by the type id, as New builds its
// probe.
func NewInstance(id string, raw map[string]any) (Instance, error) {
	t, err := Lookup(id)
	if err != nil {
		return Instance{}, err
	}
	params, err := t.Check(raw)
	if err != nil {
		return Instance{}, err
	}
	p, err := t.New(params)
	if err != nil {
		return Instance{}, err
	}
	return Instance{ID: id, Type: id, Params: params, Probe: p, Name: t.Name, Category: t.Category}, nil
}
