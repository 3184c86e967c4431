package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/promptcanary/promptcanary"
)

// Model is a model that a probe calls to judge a response: the judge of
// llm_judge, the embedder of similarity.
type Model struct {
	// Spec is the NAME/MODEL string, such as openai/gpt-4o-mini.
	Spec string
	// Embedding marks an embedding model, called with Caller.Embed; else
	// it is a chat model, called with Caller.Call.
	Embedding bool
	// Settings configure its client (base_url, api_key_env, headers) when
	// the probe's parameters do; nil means the settings of the suite's
	// providers: entry for Spec, if it has one.
	Settings map[string]any
}

// Key identifies m among the models of a run: its kind, spec and
// settings.
func (m Model) Key() string {
	kind := "chat"
	if m.Embedding {
		kind = "embedding"
	}
	if len(m.Settings) == 0 {
		return kind + " " + m.Spec
	}
	b, err := json.Marshal(m.Settings) // sorted keys
	if err != nil {
		b = []byte(fmt.Sprint(m.Settings))
	}
	return kind + " " + m.Spec + " " + string(b)
}

// Remote is an optional interface of a Probe that calls models to judge a
// response. It finds the Caller of the run it judges for in the context
// (CallerFrom), so its calls go through the run's engine: its
// concurrency, rate limits, retries, retry budget and secret scrubbing,
// with the tokens counted in the result (see package runner). Without a
// Caller, as in a self-test, it calls nothing and its results are errors.
// Such a probe implements Contextual, or ReferencedContext when it also
// compares answers with reference answers.
type Remote interface {
	Probe
	// Models lists the models the probe may call; a run opens them before
	// its first call, so a missing API key stops it before it spends
	// anything.
	Models() []Model
}

// Caller calls models for a Remote probe, through the engine of the run
// the probe judges for. Implementations are safe for concurrent use.
type Caller interface {
	// Call sends prompt to the chat model named by cfg.ModelID with the
	// sampling parameters of cfg and returns its answer.
	Call(ctx context.Context, prompt *promptcanary.Prompt, cfg promptcanary.ProviderConfig) (*promptcanary.Response, error)
	// Embed returns the embeddings of texts by the embedding model m, in
	// the order of texts, with the tokens the provider counted (0 when it
	// reported none).
	Embed(ctx context.Context, m Model, texts []string) (vectors [][]float64, tokens int, err error)
}

type callerKey struct{}

// WithCaller returns ctx carrying c, for Remote probes evaluated under it.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the Caller that ctx carries, nil when it carries
// none.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

// ReferencedContext is an optional interface of a Referenced probe whose
// evaluation may call models or take long: it gets the run's context, so
// that it finds the run's Caller and Ctrl-C or a deadline stops it.
type ReferencedContext interface {
	Referenced
	EvaluateWithContext(ctx context.Context, p *promptcanary.Prompt, r *promptcanary.Response, refs []promptcanary.Response) Result
}

// The metadata keys in which a run records the calls a Remote probe made
// through its Caller for one result (see package runner). A result that
// made no call, such as one served from a cache, has none of them.
const (
	// MetaJudge is the chat model called (NAME/MODEL).
	MetaJudge = "judge"
	// MetaJudgeCalls counts the chat calls that returned an answer, and
	// MetaJudgePromptTokens and MetaJudgeCompletionTokens sum their tokens.
	MetaJudgeCalls            = "judge_calls"
	MetaJudgePromptTokens     = "judge_prompt_tokens"
	MetaJudgeCompletionTokens = "judge_completion_tokens"
	// MetaEmbedder is the embedding model called (NAME/MODEL).
	MetaEmbedder = "embedder"
	// MetaEmbeddingCalls counts the embedding calls that returned vectors,
	// and MetaEmbeddingTokens sums the tokens they reported.
	MetaEmbeddingCalls  = "embedding_calls"
	MetaEmbeddingTokens = "embedding_tokens"
)

// evaluateReferencedContext runs p's EvaluateWithContext and never panics.
func evaluateReferencedContext(ctx context.Context, p ReferencedContext, prompt *promptcanary.Prompt, resp *promptcanary.Response, refs []promptcanary.Response) (res Result) {
	defer func() {
		if v := recover(); v != nil {
			res = Result{Details: fmt.Sprintf("probe %s failed: panic: %v", p.ID(), v), Metadata: map[string]any{"error": fmt.Sprint(v)}}
		}
	}()
	res = p.EvaluateWithContext(ctx, prompt, resp, refs)
	res.Score = Clamp(res.Score)
	return res
}

// MetaInt reads an integer metadata value as a run stores it: an int, or a
// float64 once the run went through JSON. It reports false for anything
// else, including a number that is not a whole one.
func MetaInt(md map[string]any, key string) (int, bool) {
	switch v := md[key].(type) {
	case int:
		return v, true
	case int64:
		return int(v), true
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int(v), true
		}
	}
	return 0, false
}
