// Package sim is a built-in simulated model for the quickstart, the docs and
// tests: it needs no network and no key, answers in microseconds, and
// behaves like a hosted model in the ways PromptCanary measures.
//
// It answers what the prompt asks for: a JSON object with the keys the prompt
// names, numbered steps, a structured tool call typed by the tool's schema, a
// refusal of a harmful request, a short fact, a Markdown document with the
// named sections, or a short direct answer.
//
// A conversation prompt is answered by its last user turn; when tool
// results follow that turn, the answer quotes them ("The get_weather tool
// returned …") instead of calling the tool again. A prompt with a
// response_format gets bare JSON, as from an API that enforces it: the
// schema's required properties with typed values, or an object for
// json_object; drift then shows in key order and values, never as prose
// around the JSON or a missing key.
//
// Four models differ in how they vary:
//
//   - sim/stable is deterministic at temperature 0 for a given seed; above 0
//     it varies with the sample and seed (an occasional preamble, an extra
//     sentence, a changed JSON key order).
//   - sim/drifted shows the silent drift users fear on about two prompts in
//     three (prose around JSON, preambles, disclaimers, refusals of harmless
//     prompts, much longer answers, renamed tool calls, missing keys) and
//     reports a different served model and fingerprint.
//   - sim/noisy is like stable but nondeterministic even at temperature 0: on
//     about a quarter of prompts one behaviour fails in 10% of samples. It is
//     what a drift-free hosted model looks like.
//   - sim/subtle is like noisy, but on about a quarter of prompts that
//     behaviour fails in 40–50% of samples: a drop that many samples reveal
//     and a single sample usually misses.
//
// Two more are substitutions for the model identity test: they behave as
// sim/stable does (same served model, fingerprint and behaviours, so the
// usual probes still pass) but word their answers differently.
//
//   - sim/paraphrase rewords the prose of every text answer with synonyms
//     ("Start by clarifying the goal" becomes "Begin by defining the
//     aim"); JSON, tool calls and refusals are unchanged.
//   - sim/terse never adds the extra sentences stable adds above
//     temperature 0 and keeps only the first sentence of a one-paragraph
//     answer.
//
// All randomness comes from a PCG generator seeded by a hash of the model,
// the seed, the prompt and system text and, when the model varies between
// samples, the sample index; a run is reproducible from its inputs.
package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/internal/textcut"
	"github.com/promptcanary/promptcanary/provider"
)

func init() {
	provider.Register("sim", Open)
	provider.RegisterChecker("sim", Check)
	provider.Declare("sim", provider.Capabilities{Free: true})
}

// Check checks that model names a simulated model, as Open does.
func Check(model string, _ provider.Options) error {
	_, err := New(model)
	return err
}

// model describes one simulated model.
type model struct {
	name string
	// everySample puts the sample index into the hash even at temperature 0.
	everySample bool
	noise       bool
	subtle      bool
	drift       bool
	// paraphrase and terse make the substitutions of the identity test
	// (see substitute.go).
	paraphrase, terse bool
	// drawsAs is the model whose random draws a substitution shares, so
	// its answers are that model's answers reworded.
	drawsAs     string
	served      string
	fingerprint string
}

const (
	stableServed      = "sim-2026-01"
	stableFingerprint = "fp_sim_2026_01"
	driftServed       = "sim-2026-06-drift"
	driftFingerprint  = "fp_sim_2026_06"
)

var models = map[string]*model{
	"stable":  {name: "stable", served: stableServed, fingerprint: stableFingerprint},
	"noisy":   {name: "noisy", everySample: true, noise: true, served: stableServed, fingerprint: stableFingerprint},
	"subtle":  {name: "subtle", everySample: true, noise: true, subtle: true, served: stableServed, fingerprint: stableFingerprint},
	"drifted": {name: "drifted", drift: true, served: driftServed, fingerprint: driftFingerprint},
	// The substitutions report the stable model's served model and
	// fingerprint: a silent swap behind an unchanged name.
	"paraphrase": {name: "paraphrase", paraphrase: true, drawsAs: "stable", served: stableServed, fingerprint: stableFingerprint},
	"terse":      {name: "terse", terse: true, drawsAs: "stable", served: stableServed, fingerprint: stableFingerprint},
}

// modelNames lists the models, sorted.
var modelNames = []string{"drifted", "noisy", "paraphrase", "stable", "subtle", "terse"}

// Models returns the simulated models, sorted, as "sim/NAME" strings.
func Models() []string {
	out := make([]string, len(modelNames))
	for i, n := range modelNames {
		out[i] = "sim/" + n
	}
	return out
}

// Sim is one simulated model. It is safe for concurrent use.
type Sim struct {
	m *model
}

var _ provider.Provider = (*Sim)(nil)

// Open opens the simulated model named model ("stable", "drifted",
// "noisy", "subtle", "paraphrase" or "terse"). The sim has no settings; opts is unused.
func Open(model string, _ provider.Options) (provider.Provider, error) {
	return New(model)
}

// New returns the simulated model named model.
func New(model string) (*Sim, error) {
	m, ok := models[model]
	if !ok {
		hint := ""
		if c := suggest.Closest(model, modelNames); c != "" {
			hint = " (did you mean sim/" + c + "?)"
		}
		return nil, fmt.Errorf("unknown sim model %q%s; known models: %s", model, hint, strings.Join(Models(), ", "))
	}
	return &Sim{m: m}, nil
}

// Model returns the model's name as "sim/NAME".
func (s *Sim) Model() string { return "sim/" + s.m.name }

// Generate answers one request. It never sleeps and never fails for a
// well-formed request; a cancelled context returns ctx.Err().
func (s *Sim) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req == nil || req.Prompt == nil {
		return nil, errors.New("sim: request has no prompt")
	}
	whole := req.Prompt
	p, results := asked(whole)
	temp := req.Config.Temperature
	if math.IsNaN(temp) || temp < 0 {
		temp = 0
	}
	temp = min(temp, 2)
	var seed int64
	if req.Config.Seed != nil {
		seed = *req.Config.Seed
	}
	sample := -1
	if s.m.everySample || temp > 0 {
		sample = req.Sample
	}
	rng := newPRNG(callHash(cmp.Or(s.m.drawsAs, s.m.name), seed, callText(p, results), p.SystemPrompt, sample))
	q := analyzed(p)

	d := q.draft(&rng)
	flags := s.behaviours(&rng, q.hash, d.kind, temp)
	if s.m.terse {
		flags &^= fExtraSentence | fLonger
	}
	if structured(p) {
		flags &^= fWrapJSON | fPreamble | fDropKey
	}
	resp := &promptcanary.Response{
		PromptID:          p.ID,
		Sample:            req.Sample,
		ServedModel:       s.m.served,
		SystemFingerprint: s.m.fingerprint,
		FinishReason:      "stop",
	}
	d.render(resp, flags, &rng, q.hash)
	s.substitute(resp, d, flags)
	if len(results) > 0 && d.kind != kindJSON && flags&fRefuse == 0 {
		resp.Content = fromResults(resp.Content, results)
	}

	if maxChars := req.Config.MaxTokens * 4; req.Config.MaxTokens > 0 && len(resp.Content) > maxChars {
		if c, cut := truncateRunes(resp.Content, maxChars); cut {
			resp.Content = c
			resp.FinishReason = "length"
		}
	}
	resp.PromptTokens = tokens(promptWords(whole))
	words := countWords(resp.Content)
	for i := range resp.ToolCalls {
		words += 1 + countWords(string(resp.ToolCalls[i].Arguments))
	}
	resp.CompletionTokens = tokens(words)
	resp.TotalTokens = resp.PromptTokens + resp.CompletionTokens
	resp.LatencyMS = latency(&rng, resp.CompletionTokens)
	return resp, nil
}

// tokens estimates a token count from a word count: ceil(words × 1.3).
func tokens(words int) int { return (words*13 + 9) / 10 }

// latency simulates a call's latency in milliseconds, 150–900, growing with
// the completion length.
func latency(r *prng, completionTokens int) float64 {
	scale := min(1, float64(completionTokens)/150)
	ms := 150 + 600*scale*(0.7+0.3*r.float()) + 150*r.float()
	return math.Round(min(ms, 900)*10) / 10
}

// countWords counts runs of non-space characters without allocating.
func countWords(s string) int {
	n, in := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		space := c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// truncateRunes cuts s to at most n characters; cut reports whether it did.
func truncateRunes(s string, n int) (string, bool) {
	cut := textcut.Runes(s, n, "")
	return cut, len(cut) < len(s)
}
