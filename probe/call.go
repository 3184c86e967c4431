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

// Caller calls models for a probe that calls models (Deps.Models), through the engine of the run
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

// WithCaller returns ctx carrying c, for the probes that call models
// evaluated under it.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the Caller that ctx carries, nil when it carries
// none.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

// The metadata keys in which a run records the calls a probe made
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

type uncachedKey struct{}

// Uncached returns ctx marking the evaluations under it as re-runs that
// must ask the models again: a probe that caches its models' answers
// (llm_judge) neither reads nor writes its cache under it. A compare
// re-judges the baseline's answers this way to tell whether the judge
// changed (docs/attribution.md).
func Uncached(ctx context.Context) context.Context {
	return context.WithValue(ctx, uncachedKey{}, true)
}

// IsUncached reports whether ctx was marked by Uncached.
func IsUncached(ctx context.Context) bool {
	v, _ := ctx.Value(uncachedKey{}).(bool)
	return v
}
