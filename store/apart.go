package store

import (
	"context"

	"github.com/promptcanary/promptcanary"
)

// RunOwner and BaselineOwner name the owner of the answers a SQL store
// keeps apart from a run's or a baseline's body (see MarshalRunApart).
func RunOwner(id string) string      { return "run:" + id }
func BaselineOwner(id string) string { return "baseline:" + id }

// AnswerLoader reads the answers a store keeps apart for owner, each
// moved to a spill file as it is read.
type AnswerLoader func(ctx context.Context, owner string) ([]Answer, error)

// DecodeRunApart decodes body, the stored run id, with the answers load
// reads for it: whole, or spilled when ctx says so (WithSpilledAnswers).
func DecodeRunApart(ctx context.Context, id string, body []byte, load AnswerLoader) (*promptcanary.Run, error) {
	release, err := resolveApart(ctx, RunOwner(id), body, load)
	if err != nil {
		return nil, err
	}
	defer release()
	r, err := UnmarshalRun(body)
	if err != nil {
		return nil, err
	}
	return r, WholeAnswers(ctx, r)
}

// DecodeBaselineApart decodes body, the stored baseline id, with the
// answers load reads for it, as DecodeRunApart does.
func DecodeBaselineApart(ctx context.Context, id string, body []byte, load AnswerLoader) (*promptcanary.Baseline, error) {
	release, err := resolveApart(ctx, BaselineOwner(id), body, load)
	if err != nil {
		return nil, err
	}
	defer release()
	b, err := UnmarshalBaselineContext(ctx, body)
	if err != nil {
		return nil, err
	}
	return b, WholeAnswers(ctx, &b.RunResult)
}

// resolveApart makes the decoders resolve the markers of body to the
// answers load reads for owner, until the release returned is called.
// A body without markers reads none.
func resolveApart(ctx context.Context, owner string, body []byte, load AnswerLoader) (func(), error) {
	if !HasMarkers(body) {
		return func() {}, nil
	}
	as, err := load(ctx, owner)
	if err != nil {
		return nil, err
	}
	return ResolveAnswers(as), nil
}
