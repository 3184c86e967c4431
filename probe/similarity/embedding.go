package similarity

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/memo"
	"github.com/promptcanary/promptcanary/internal/textcut"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/embed"
)

// Embedding is the cosine similarity of the texts' embeddings by the
// probe's embedder, negative cosines counting as 0: close to 1 when the
// answers say the same thing in other words. Two empty texts are alike
// (1), an empty and a non-empty one unlike (0); empty texts are not sent.
const Embedding Metric = "embedding"

// MaxEmbedded bounds the bytes of an answer that are embedded: embedding
// models read a few thousand tokens at most. Longer answers are embedded
// on their first MaxEmbedded bytes (metadata "truncated").
const MaxEmbedded = 16 << 10

// vectorsKept bounds the embeddings one probe keeps in memory (about
// 25 MB at 1,536 dimensions).
const vectorsKept = 4096

// ErrNoRun is the error of an embedding similarity computed outside a run,
// with no probe.Caller to call the embedder through.
var ErrNoRun = errors.New("the embedder is called through a run (promptcanary run or compare), and none is under way")

// configureEmbedder reads embedder, embedder_base_url and
// embedder_api_key_env, which metric: embedding needs and the other
// metrics refuse, and checks the embedder's configuration as a run would
// open it.
func (s *Similarity) configureEmbedder(p probe.Params, env probe.Env) error {
	spec := p.String("embedder")
	settings := map[string]any{}
	for param, setting := range map[string]string{"embedder_base_url": "base_url", "embedder_api_key_env": "api_key_env"} {
		if v := strings.TrimSpace(p.String(param)); v != "" {
			settings[setting] = v
		}
	}
	if s.metric() != Embedding {
		for _, param := range []string{"embedder", "embedder_base_url", "embedder_api_key_env"} {
			if p.String(param) != "" {
				return &probe.ParamError{Param: param, Msg: fmt.Sprintf("is used by metric: embedding only, and the metric is %s", s.metric()),
					Hint: "set metric: embedding to compare the answers' embeddings, or remove " + param + ":"}
			}
		}
		return nil
	}
	if spec == "" {
		return &probe.ParamError{Param: "embedder", Msg: "required by metric: embedding",
			Hint: "name the embedding model, for example embedder: openai/text-embedding-3-small or embedder: ollama/nomic-embed-text"}
	}
	if len(settings) == 0 {
		settings = nil
	}
	if _, _, err := provider.Split(spec); err != nil {
		return &probe.ParamError{Param: "embedder", Msg: fmt.Sprintf("must be NAME/MODEL, got %q", spec),
			Hint: "for example embedder: openai/text-embedding-3-small or embedder: ollama/nomic-embed-text"}
	}
	if err := embed.Check(spec, provider.Options{BaseDir: env.Dir, Settings: settings}); err != nil {
		msg := err.Error()
		if inner := errors.Unwrap(err); inner != nil {
			msg = inner.Error() // the field path names the embedder
		}
		pe := &probe.ParamError{Param: "embedder", Msg: msg,
			Hint: "the embedder is openai/MODEL or ollama/MODEL, for example embedder: openai/text-embedding-3-small"}
		if rest, ok := strings.CutPrefix(msg, "setting base_url: "); ok {
			pe.Param, pe.Msg, pe.Hint = "embedder_base_url", rest, "for example embedder_base_url: http://localhost:11434"
		} else if rest, ok := strings.CutPrefix(msg, "setting api_key_env: "); ok {
			pe.Param, pe.Msg, pe.Hint = "embedder_api_key_env", rest, "name the variable that holds the key, for example embedder_api_key_env: OPENAI_API_KEY"
		}
		return pe
	}
	s.Embedder = probe.Model{Spec: spec, Embedding: true, Settings: settings}
	s.vectors = memo.New[[32]byte, []float32](vectorsKept)
	return nil
}

// Deps marks the probe as one that compares answers with reference
// answers, and returns the embedder of the Embedding metric as its model,
// none for the other metrics.
func (s *Similarity) Deps() probe.Deps {
	if s.metric() != Embedding {
		return probe.Deps{References: true}
	}
	m := s.Embedder
	m.Embedding = true
	return probe.Deps{References: true, Models: []probe.Model{m}}
}

// Fingerprint pins the embedder of the Embedding metric, model and
// server, into the prompt hashes: answers embedded by another model are
// not comparable, so a changed embedder makes the baseline stale. It is
// "" for the other metrics.
func (s *Similarity) Fingerprint() string {
	if s.metric() != Embedding {
		return ""
	}
	settings, _ := json.Marshal(s.Embedder.Settings) // sorted keys
	return "embedder:" + s.Embedder.Spec + " " + string(settings)
}

// evaluateEmbedding scores r by the cosine of its embedding with the
// references' embeddings.
func (s *Similarity) evaluateEmbedding(ctx context.Context, r *promptcanary.Response, refs []promptcanary.Response) probe.Result {
	against := s.against()
	meta := s.meta(Embedding, against, len(refs))
	texts := make([]string, 1+len(refs))
	texts[0] = clipTo(r.Content, MaxEmbedded)
	truncated := len(texts[0]) < len(r.Content)
	for i := range refs {
		texts[1+i] = clipTo(refs[i].Content, MaxEmbedded)
		truncated = truncated || len(texts[1+i]) < len(refs[i].Content)
	}
	if truncated {
		meta["truncated"] = true
	}
	vecs, err := s.embed(ctx, texts)
	if err != nil {
		meta["error"] = err.Error()
		return probe.Result{Metadata: meta, Details: fmt.Sprintf("Not compared: the embedder %s could not embed the answers: %s.", s.Embedder.Spec, strings.TrimSuffix(err.Error(), "."))}
	}
	best, bestAt, sum := -1.0, 0, 0.0
	for i := range refs {
		v := cosine(vecs[0], vecs[1+i])
		sum += v
		if v > best {
			best, bestAt = v, i
		}
	}
	return s.result(meta, Embedding, against, best, bestAt, sum, refs)
}

// embed returns the embeddings of texts (nil for an empty text): those
// kept from before, those another evaluation is computing, and the rest in
// one call through the run's probe.Caller.
func (s *Similarity) embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	type pending struct {
		slot memo.Slot[[]float32]
		key  [32]byte
		at   []int
	}
	byKey := map[[32]byte]*pending{}
	var stored, mine, waits []*pending
	for i, t := range texts {
		if t == "" {
			continue
		}
		k := sha256.Sum256([]byte(t))
		if p, ok := byKey[k]; ok {
			p.at = append(p.at, i)
			continue
		}
		p := &pending{key: k, at: []int{i}}
		byKey[k] = p
		if s.vectors == nil {
			mine = append(mine, p)
			continue
		}
		p.slot = s.vectors.Begin(k)
		switch {
		case p.slot.Stored:
			stored = append(stored, p)
		case p.slot.Mine():
			mine = append(mine, p)
		default:
			waits = append(waits, p)
		}
	}
	fill := func(p *pending, v []float32) {
		for _, i := range p.at {
			out[i] = v
		}
	}
	for _, p := range stored {
		fill(p, p.slot.Value)
	}
	if len(mine) > 0 {
		batch := make([]string, len(mine))
		for j, p := range mine {
			batch[j] = texts[p.at[0]]
		}
		vecs, err := s.call(ctx, batch)
		for j, p := range mine {
			var v []float32
			if err == nil {
				v = vecs[j]
				fill(p, v)
			}
			if s.vectors != nil {
				s.vectors.End(p.key, v, err == nil, err)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	for _, p := range waits {
		v, err := p.slot.Wait(ctx)
		if err != nil {
			return nil, err
		}
		fill(p, v)
	}
	return out, nil
}

// call embeds batch through the Caller in ctx, as float32 vectors of one
// dimension.
func (s *Similarity) call(ctx context.Context, batch []string) ([][]float32, error) {
	c := probe.CallerFrom(ctx)
	if c == nil {
		return nil, ErrNoRun
	}
	vs, _, err := c.Embed(ctx, s.Embedder, batch)
	if err != nil {
		return nil, err
	}
	if len(vs) != len(batch) {
		return nil, fmt.Errorf("the embedder returned %d vectors for %d texts", len(vs), len(batch))
	}
	out := make([][]float32, len(vs))
	for j, v := range vs {
		if len(v) == 0 || len(v) != len(vs[0]) {
			return nil, errors.New("the embedder returned vectors of different dimensions")
		}
		out[j] = make([]float32, len(v))
		for d, x := range v {
			out[j][d] = float32(x)
		}
	}
	return out, nil
}

// cosine is the cosine of a and b clamped to [0,1]; nil stands for an
// empty text: two are alike, one is unlike anything. A zero vector is
// unlike anything.
func cosine(a, b []float32) float64 {
	switch {
	case a == nil && b == nil:
		return 1
	case a == nil || b == nil || len(a) != len(b):
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	if dot == na && na == nb {
		return 1 // the same direction, whatever the rounding of the roots
	}
	return probe.Clamp(dot / (math.Sqrt(na) * math.Sqrt(nb)))
}

// clipTo cuts s to at most n bytes, on a character boundary.
func clipTo(s string, n int) string {
	return textcut.Bytes(s, n, "")
}
