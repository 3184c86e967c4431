package drift

import (
	"math"
	"slices"

	"github.com/promptcanary/promptcanary"
)

// Answers is what a comparison reads of one run's responses: per prompt,
// each response's sample, content, completion tokens and finish reason,
// in their order, and the tallies of its distinct answers; and the served
// models and system fingerprints seen. It takes about 40 bytes a response
// (the content is shared, not copied) where a promptcanary.Response takes
// over 200, so a caller comparing large runs can fold each run's
// responses into it as they are decoded (Results.FoldResponses) and never
// hold them.
type Answers struct {
	n       int
	prompts map[string]*promptResponses
	// finish are the distinct finish reasons, finishes their indexes.
	finish   []string
	finishes map[string]uint32
	// models and fingerprints are the served models (else the provider's
	// model ids) and the system fingerprints seen, "" left out.
	models, fingerprints map[string]bool
}

// promptResponses are the responses of one side to one prompt.
type promptResponses struct {
	list    []answer
	tallies map[string]*answerTally
	// spills holds the whole content of the answers (by index in list)
	// whose content is their head, nil when none is: few answers spill,
	// and a pointer in every answer would cost each 8 bytes.
	spills map[int]*promptcanary.Spill
}

// answer is what a comparison reads of one response: its finish reason
// is an index in Answers.finish.
type answer struct {
	content        string
	tokens, sample int32
	finish         uint32
	// promptTokens and latency (milliseconds) are read by the economic
	// measures (see economics.go).
	promptTokens int32
	latency      float32
}

// NewAnswers folds responses, in their order, into Answers.
func NewAnswers(rs []promptcanary.Response) *Answers {
	a := &Answers{}
	a.Fold(rs)
	return a
}

// Fold adds responses, in their order, after those folded before; the
// chunk may be reused once Fold returns.
func (a *Answers) Fold(rs []promptcanary.Response) {
	if a.prompts == nil {
		a.prompts = map[string]*promptResponses{}
		a.models, a.fingerprints = map[string]bool{}, map[string]bool{}
		a.finishes = map[string]uint32{}
	}
	for i := range rs {
		a.add(&rs[i])
	}
}

func (a *Answers) add(r *promptcanary.Response) {
	p := a.prompts[r.PromptID]
	if p == nil {
		p = &promptResponses{tallies: map[string]*answerTally{}}
		a.prompts[r.PromptID] = p
	}
	key := answerKey(r)
	t := p.tallies[key]
	if t == nil {
		t = &answerTally{text: answerText(r), firstSample: r.Sample, firstPos: len(p.list)}
		p.tallies[key] = t
	}
	t.count++
	t.firstSample = min(t.firstSample, r.Sample)
	f, ok := a.finishes[r.FinishReason]
	if !ok {
		f = uint32(len(a.finish))
		a.finishes[r.FinishReason] = f
		a.finish = append(a.finish, r.FinishReason)
	}
	if r.Spill != nil {
		if p.spills == nil {
			p.spills = map[int]*promptcanary.Spill{}
		}
		p.spills[len(p.list)] = r.Spill
	}
	p.list = append(p.list, answer{content: r.Content, tokens: clamp32(r.CompletionTokens), sample: clamp32(r.Sample), finish: f,
		promptTokens: clamp32(r.PromptTokens), latency: float32(r.LatencyMS)})
	a.n++
	if v := cmpOr(r.ServedModel, r.ProviderModelID); v != "" {
		a.models[v] = true
	}
	if v := r.SystemFingerprint; v != "" {
		a.fingerprints[v] = true
	}
}

// clamp32 is n as an int32, clamped: completion tokens and samples past
// 2³¹ (which no run reaches; MaxMaxTokens and MaxSamples are far below)
// compare as 2³¹−1.
func clamp32(n int) int32 {
	return int32(max(min(n, math.MaxInt32), math.MinInt32))
}

// Len is the number of responses folded.
func (a *Answers) Len() int {
	if a == nil {
		return 0
	}
	return a.n
}

// summaries summarises each prompt's answers (the typical answer: the most frequent, ties going to the
// one seen first in sample order); nil
// for a run without responses.
func (a *Answers) summaries() map[string]promptAnswers {
	if a.Len() == 0 {
		return nil
	}
	out := make(map[string]promptAnswers, len(a.prompts))
	for id, p := range a.prompts {
		var best *answerTally
		for _, t := range p.tallies {
			if best == nil || t.count > best.count ||
				t.count == best.count && (t.firstSample < best.firstSample || t.firstSample == best.firstSample && t.firstPos < best.firstPos) {
				best = t
			}
		}
		out[id] = promptAnswers{n: len(p.list), example: best.text, distinct: len(p.tallies)}
	}
	return out
}

// responses returns the responses of one side to prompt id as the change
// signals read them (content, completion tokens, finish reason), in the
// memory of buf and ptrs.
func (a *Answers) responses(id string, buf *[]promptcanary.Response, ptrs *[]*promptcanary.Response) []*promptcanary.Response {
	p := a.prompts[id]
	if p == nil {
		return nil
	}
	rs := slices.Grow((*buf)[:0], len(p.list))[:len(p.list)]
	out := slices.Grow((*ptrs)[:0], len(p.list))[:len(p.list)]
	for i, an := range p.list {
		rs[i] = promptcanary.Response{PromptID: id, Content: an.content, Spill: p.spills[i], FinishReason: a.finish[an.finish], CompletionTokens: int(an.tokens), Sample: int(an.sample)}
		out[i] = &rs[i]
	}
	*buf, *ptrs = rs, out
	return out
}

// count returns the responses of one side to prompt id.
func (a *Answers) count(id string) int {
	if p := a.prompts[id]; p != nil {
		return len(p.list)
	}
	return 0
}

// samples calls f with the sample of every response to prompt id.
func (a *Answers) samples(id string, f func(sample int)) {
	if p := a.prompts[id]; p != nil {
		for _, an := range p.list {
			f(int(an.sample))
		}
	}
}

// answersOf returns the responses folded with given when it folded them,
// else the run's responses folded now.
func answersOf(given *Results, run *promptcanary.Run) *Answers {
	if given != nil && given.answers != nil {
		return given.answers
	}
	return NewAnswers(run.LLMResponses)
}
