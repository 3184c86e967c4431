package similarity

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/memo"
	"github.com/promptcanary/promptcanary/probe"
)

// Against says how the similarities of an answer to each reference answer
// become its score.
type Against string

// The aggregations.
const (
	// Max scores an answer by its most similar reference: it passes when it
	// is close to any of the answers it is compared with.
	Max Against = "max"
	// Mean scores an answer by its mean similarity to the references.
	Mean Against = "mean"
)

// Similarity is the similarity probe: it scores how close an answer is to
// reference answers to the same prompt and passes when the score is at
// least Min. The references are the answers of the baseline a run is
// compared against or, in a run without one, the run's other answers to
// the prompt (see package runner); with none, the answer passes as skipped.
// Only the text content is compared, not tool calls.
type Similarity struct {
	// Metric is the similarity measure; "" means ChrF.
	Metric Metric
	// Min is the lowest passing score, in (0,1].
	Min float64
	// Against aggregates the similarities to each reference; "" means Max.
	Against Against
	// Embedder is the embedding model of the Embedding metric, with the
	// settings of its client; unused by the other metrics.
	Embedder probe.Model

	// vectors keeps the embeddings of the texts compared, by their hash.
	vectors *memo.Memo[[32]byte, []float32]
}

var (
	_ probe.Probe         = (*Similarity)(nil)
	_ probe.Dependent     = (*Similarity)(nil)
	_ probe.Fingerprinter = (*Similarity)(nil)
)

const (
	id   = "similarity"
	name = "Similarity"
)

func init() {
	probe.Register(probe.Type{
		ID:          id,
		Name:        name,
		Category:    promptcanary.CategoryCustom,
		Description: "Checks that the answer stays close to the baseline's answers to the same prompt (chrF, token F1, ROUGE-L, or the cosine of embeddings).",
		Example: `probes:
  - type: similarity
    metric: chrf
    min: 0.6
    against: max
  - type: similarity
    id: meaning
    metric: embedding   # the cosine of the answers' embeddings
    min: 0.85
    embedder: ollama/nomic-embed-text   # or openai/text-embedding-3-small
    embedder_base_url: http://localhost:11434
    embedder_api_key_env: ""            # the variable holding a key, if the server needs one
`,
		Params: []probe.Param{
			{Name: "metric", Kind: probe.String, Default: string(ChrF), Enum: append(slices.Clone(metrics), string(Embedding)),
				Doc: "chrf (character 1- to 6-grams, β = 2, good for any language), token_f1 (bag of lowercase words), rouge_l (longest common word subsequence, order matters) or embedding (cosine of the answers' embeddings by embedder:)"},
			{Name: "min", Kind: probe.Float, Required: true,
				Doc: "lowest passing similarity, in (0,1], for example 0.6; a run without a baseline shows how similar the model's answers are to one another"},
			{Name: "against", Kind: probe.String, Default: string(Max), Enum: []string{string(Max), string(Mean)},
				Doc: "max scores an answer by its closest reference answer, mean by its mean similarity to all of them"},
			{Name: "embedder", Kind: probe.String,
				Doc: "the embedding model of metric: embedding, openai/MODEL (the OpenAI embeddings API or a compatible server) or ollama/MODEL, for example openai/text-embedding-3-small"},
			{Name: "embedder_base_url", Kind: probe.String,
				Doc: "the embedder's server, for example http://localhost:11434 (default: OPENAI_BASE_URL or https://api.openai.com/v1 for openai, OLLAMA_HOST or http://localhost:11434 for ollama)"},
			{Name: "embedder_api_key_env", Kind: probe.String,
				Doc: "the variable holding the embedder's API key (default: OPENAI_API_KEY for openai, none for ollama)"},
		},
		NewIn: func(p probe.Params, env probe.Env) (probe.Probe, error) {
			s := &Similarity{Metric: Metric(p.String("metric")), Against: Against(p.String("against"))}
			var errs []error
			s.Min, _ = p.Float("min")
			if !(s.Min > 0 && s.Min <= 1) {
				errs = append(errs, &probe.ParamError{Param: "min", Msg: fmt.Sprintf("must be in (0,1], got %v", s.Min),
					Hint: "the lowest passing similarity, above 0 and at most 1, for example min: 0.6"})
			}
			if err := s.configureEmbedder(p, env); err != nil {
				errs = append(errs, err)
			}
			if len(errs) > 0 {
				return nil, errors.Join(errs...)
			}
			return s, nil
		},
	})
}

// Evaluate scores the content of in.Response against the content of each
// of in.References and aggregates the scores by s.Against. The metadata holds
// "metric", "min", "against", "references" (their number) and "skipped";
// unless skipped, also "score" and "best_sample", the sample index of the
// most similar reference (the first of equals). With no reference, the
// result passes with score 1 and "skipped" true. The Embedding metric
// calls its embedder through the probe.Caller that ctx carries, a run's.
func (s *Similarity) Evaluate(ctx context.Context, in probe.Input) probe.Result {
	r, refs := in.Response, in.References
	metric, against := s.metric(), s.against()
	if len(refs) > 0 && metric == Embedding {
		return s.evaluateEmbedding(ctx, r, refs)
	}
	meta := s.meta(metric, against, len(refs))
	if !metric.valid() && metric != Embedding {
		return probe.Result{Metadata: meta, Details: fmt.Sprintf("Unknown similarity metric %q; use chrf, token_f1, rouge_l or embedding.", metric)}
	}
	if len(refs) == 0 {
		return probe.Result{Passed: true, Score: 1, Metadata: meta,
			Details: "No reference answer to compare with (no baseline answer to this prompt, nor another sample of it in the run), so the check was skipped."}
	}
	texts := make([]string, 1+len(refs))
	texts[0] = clip(r.Content)
	truncated := len(texts[0]) < len(r.Content)
	for i := range refs {
		texts[1+i] = clip(refs[i].Content)
		truncated = truncated || len(texts[1+i]) < len(refs[i].Content)
	}
	if truncated {
		meta["truncated"] = true
	}
	sc := scorer{metric: metric}
	ps := sc.profiles(texts)
	best, bestAt, sum := -1.0, 0, 0.0
	for i := range refs {
		v := sc.score(&ps[0], &ps[1+i])
		sum += v
		if v > best {
			best, bestAt = v, i
		}
	}
	return s.result(meta, metric, against, best, bestAt, sum, refs)
}

// meta is the metadata every result has.
func (s *Similarity) meta(metric Metric, against Against, refs int) map[string]any {
	meta := map[string]any{"metric": string(metric), "min": s.Min, "against": string(against),
		"references": refs, "skipped": refs == 0}
	if metric == Embedding {
		meta[probe.MetaEmbedder] = s.Embedder.Spec
	}
	return meta
}

// result aggregates the similarities to the references, the best of them
// at bestAt, their sum, into the verdict.
func (s *Similarity) result(meta map[string]any, metric Metric, against Against, best float64, bestAt int, sum float64, refs []promptcanary.Response) probe.Result {
	score := best
	if against == Mean {
		score = sum / float64(len(refs))
	}
	score = probe.Clamp(score)
	meta["score"] = score
	meta["best_sample"] = refs[bestAt].Sample
	return probe.Result{Passed: score >= s.Min, Score: score, Metadata: meta, Details: s.details(metric, against, score, len(refs))}
}

// MaxCompared bounds the bytes of an answer that are compared: the metrics
// grow with the product of the lengths, and a runaway answer must not
// stall a run. Longer answers are compared on their first MaxCompared
// bytes (metadata "truncated").
const MaxCompared = 32 << 10

// clip cuts s to at most MaxCompared bytes, on a character boundary.
func clip(s string) string { return clipTo(s, MaxCompared) }

// details says the score, how it was aggregated and whether it reaches Min.
func (s *Similarity) details(metric Metric, against Against, score float64, n int) string {
	how := "closest of " + strconv.Itoa(n) + " reference answers"
	switch {
	case n == 1:
		how = "against the one reference answer"
	case against == Mean:
		how = "mean over " + strconv.Itoa(n) + " reference answers"
	}
	verdict := "at least"
	if score < s.Min {
		verdict = "below"
	}
	shown, limit := fmtScore(score), fmtScore(s.Min)
	if shown == limit && score != s.Min {
		// Three decimals would hide why the verdict is what it is.
		shown, limit = strconv.FormatFloat(score, 'g', -1, 64), strconv.FormatFloat(s.Min, 'g', -1, 64)
	}
	return fmt.Sprintf("%s similarity %s (%s) is %s the minimum %s.", metric.displayName(), shown, how, verdict, limit)
}

// fmtScore shows a score with three decimals, never rounding a score
// below 1 up to 1 or one above 0 down to 0.
func fmtScore(v float64) string {
	out := strconv.FormatFloat(v, 'f', 3, 64)
	switch {
	case v < 1 && out == "1.000":
		return "0.999"
	case v > 0 && out == "0.000":
		return "<0.001"
	}
	return out
}

func (s *Similarity) metric() Metric {
	if s.Metric == "" {
		return ChrF
	}
	return s.Metric
}

func (s *Similarity) against() Against {
	if s.Against == "" {
		return Max
	}
	return s.Against
}
