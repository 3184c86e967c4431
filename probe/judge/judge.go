package judge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/memo"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
)

// Defaults and bounds of the parameters.
const (
	DefaultMin       = 1
	DefaultMax       = 5
	DefaultMaxTokens = 512
	// MaxScale bounds the top of the scale: a judge does not grade finer
	// than a hundred steps.
	MaxScale = 100
	// MinMaxTokens is the least room a verdict needs.
	MinMaxTokens = 16
)

// Judge is the llm_judge probe: a model (the judge) grades each answer
// against a rubric, on an integer scale, and the answer passes when its
// grade reaches PassAt. The judge answers in the strict format of
// ParseVerdict; an answer in any other format, or a call that fails, is a
// failed result with score 0 that says why, never a pass.
//
// The judge is called through the run's engine (probe.Caller), so its
// calls share the run's concurrency, are paced by the judge's rate limits
// (its judges: entry's, or the run's own when the judge is the model
// under test), are retried within the run's retry budget, and their
// tokens are recorded in the result and counted in the run's cost (see
// runner.ModelCost). Verdicts are cached by the whole judge prompt (the
// rubric, the template, the prompt and the answer) and the judge's
// parameters: in memory for the life of the process, and by default in
// files under CacheDir beside canary.yaml.
type Judge struct {
	spec        string
	rubric      string
	tmpl        template
	tmplText    string
	min, max    int
	passAt      float64
	temperature float64
	maxTokens   int
	cache       string
	memo        *memo.Memo[string, entry]
	disk        *disk
}

var (
	_ probe.Probe         = (*Judge)(nil)
	_ probe.Dependent     = (*Judge)(nil)
	_ probe.Fingerprinter = (*Judge)(nil)
)

const (
	id   = "llm_judge"
	name = "LLM Judge"
)

func init() {
	probe.Register(probe.Type{
		ID:          id,
		Name:        name,
		Category:    promptcanary.CategoryCustom,
		Description: "Has a model (the judge) grade the answer against a rubric on a scale, and passes answers graded at or above pass_at.",
		Example: `judges:   # optional: the judge's settings, rate limits and timeout (never run itself)
  - id: openai/gpt-4o-mini
    rpm: 500
    api_key_env: OPENAI_API_KEY
probes:
  - type: llm_judge
    id: helpful
    judge: openai/gpt-4o-mini
    rubric: The answer names the capital correctly, in one or two sentences, without hedging.
    scale: {min: 1, max: 5}
    pass_at: 4
    temperature: 0
    max_tokens: 512
    cache: disk   # verdicts kept in .promptcanary/judge/ beside canary.yaml
    # optional; the default prompt fences the answer off and asks for the
    # verdict as {"score": N, "reason": "…"}, the only format accepted
    prompt: |
      Grade the answer to "{{prompt}}" against this rubric: {{rubric}}
      Answer: <answer>{{response}}</answer>
      Reply with only {"score": <{{scale_min}} to {{scale_max}}>, "reason": "<one sentence>"}.
`,
		Params: []probe.Param{
			{Name: "judge", Kind: probe.String, Required: true,
				Doc: "the model that grades, NAME/MODEL, for example openai/gpt-4o-mini; a judges: entry for it gives its settings, rate limits and timeout"},
			{Name: "rubric", Kind: probe.String, Required: true,
				Doc: "what a good answer does, in plain words, for example \"names Paris and nothing else\""},
			{Name: "prompt", Kind: probe.String,
				Doc: "the judge's prompt, with the placeholders " + known() + "; it must use {{response}} and {{rubric}} and ask for the verdict as {\"score\": N, \"reason\": \"…\"} (default: a grading prompt that does)"},
			{Name: "scale", Kind: probe.Map,
				Doc: "the judge's integer scale, with 0 <= min < max <= 100 (default {min: 1, max: 5}); the score is (grade - min) / (max - min)"},
			{Name: "pass_at", Kind: probe.Float,
				Doc: "the lowest passing grade on the scale, above min and at most max (default: the top quarter, 4 on 1-5 and 8 on 1-10)"},
			{Name: "temperature", Kind: probe.Float, Default: 0.0,
				Doc: "the judge's sampling temperature, 0 to 2; 0 grades the same answer the same way most often"},
			{Name: "max_tokens", Kind: probe.Int, Default: DefaultMaxTokens,
				Doc: "the most tokens the judge may write, at least 16; a reasoning model needs room to think before its verdict"},
			{Name: "cache", Kind: probe.String, Default: CacheDisk, Enum: []string{CacheDisk, CacheMemory, CacheOff},
				Doc: "disk keeps verdicts in memory and in " + CacheDir + "/ beside canary.yaml, so a compare does not pay again for an answer judged before; memory only for the process; off asks the judge every time"},
		},
		NewIn: func(p probe.Params, env probe.Env) (probe.Probe, error) { return New(p, env) },
	})
}

// New builds an llm_judge probe from checked parameters; env.Dir is where
// the disk cache lives (none when it is "").
func New(p probe.Params, env probe.Env) (*Judge, error) {
	var errs []error
	j := &Judge{spec: p.String("judge"), rubric: p.String("rubric"), cache: p.String("cache")}
	if j.cache == "" {
		j.cache = CacheDisk
	}
	if err := checkSpec(j.spec); err != nil {
		errs = append(errs, err)
	}
	if strings.TrimSpace(j.rubric) == "" {
		errs = append(errs, &probe.ParamError{Param: "rubric", Msg: "must not be empty",
			Hint: "say what a good answer does, for example rubric: names Paris and nothing else"})
	}
	j.tmplText = DefaultPrompt
	if p.Has("prompt") {
		j.tmplText = p.String("prompt")
	}
	tmpl, err := parseTemplate(j.tmplText, "prompt")
	if err != nil {
		errs = append(errs, err)
	}
	j.tmpl = tmpl
	j.min, j.max = DefaultMin, DefaultMax
	if p.Has("scale") {
		var err error
		if j.min, j.max, err = readScale(p.Map("scale")); err != nil {
			errs = append(errs, err)
		}
	}
	j.passAt = defaultPassAt(j.min, j.max)
	if v, ok := p.Float("pass_at"); ok {
		j.passAt = v
		if len(errs) == 0 && !(v > float64(j.min) && v <= float64(j.max)) {
			errs = append(errs, &probe.ParamError{Param: "pass_at", Msg: fmt.Sprintf("must be above scale.min %d and at most scale.max %d, got %v", j.min, j.max, v),
				Hint: fmt.Sprintf("the lowest passing grade, for example pass_at: %v", defaultPassAt(j.min, j.max))})
		}
	}
	if v, ok := p.Float("temperature"); ok {
		j.temperature = v
		if v < 0 || v > 2 {
			errs = append(errs, &probe.ParamError{Param: "temperature", Msg: fmt.Sprintf("must be from 0 to 2, got %v", v),
				Hint: "0 grades the same answer the same way most often"})
		}
	}
	j.maxTokens = DefaultMaxTokens
	if v, ok := p.Int("max_tokens"); ok {
		j.maxTokens = v
		if v < MinMaxTokens || v > promptcanary.MaxMaxTokens {
			errs = append(errs, &probe.ParamError{Param: "max_tokens", Msg: fmt.Sprintf("must be from %d to %d, got %d", MinMaxTokens, promptcanary.MaxMaxTokens, v),
				Hint: fmt.Sprintf("a verdict needs about 100 tokens, for example max_tokens: %d", DefaultMaxTokens)})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if j.cache != CacheOff {
		j.memo = memo.New[string, entry](memoSize)
	}
	if j.cache == CacheDisk && env.Dir != "" {
		j.disk = &disk{dir: filepath.Join(env.Dir, filepath.FromSlash(CacheDir))}
	}
	return j, nil
}

// checkSpec checks that spec is NAME/MODEL with a registered NAME.
func checkSpec(spec string) error {
	name, _, err := provider.Split(spec)
	if err != nil {
		hint := "name the judge as NAME/MODEL, for example judge: openai/gpt-4o-mini"
		if s := provider.Suggest(spec); s != "" {
			hint = "did you mean " + s + "?"
		}
		return &probe.ParamError{Param: "judge", Msg: fmt.Sprintf("must be NAME/MODEL, got %q", spec), Hint: hint}
	}
	names := provider.Names()
	if slices.Contains(names, name) {
		return nil
	}
	if len(names) == 0 {
		return &probe.ParamError{Param: "judge", Msg: fmt.Sprintf("unknown provider %q: no provider is registered", name),
			Hint: "forgotten import of provider/builtin?"}
	}
	hint := "known providers: " + strings.Join(names, ", ")
	if c := suggest.Closest(name, names); c != "" {
		hint = "did you mean " + c + "? " + hint
	}
	return &probe.ParamError{Param: "judge", Msg: fmt.Sprintf("unknown provider %q", name), Hint: hint}
}

// readScale reads {min, max}: integers with 0 <= min < max <= MaxScale.
func readScale(m map[string]any) (lo, hi int, err error) {
	var errs []error
	lo, hi = DefaultMin, DefaultMax
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != "min" && k != "max" {
			hint := "a scale has min: and max:, for example scale: {min: 1, max: 5}"
			if c := suggest.Closest(k, []string{"min", "max"}); c != "" {
				hint = "did you mean " + c + "?"
			}
			errs = append(errs, &probe.ParamError{Param: "scale." + k, Msg: "unknown key", Hint: hint})
		}
	}
	read := func(k string, dst *int) {
		v, ok := m[k]
		if !ok {
			errs = append(errs, &probe.ParamError{Param: "scale", Msg: "needs " + k + ":", Hint: "for example scale: {min: 1, max: 5}"})
			return
		}
		n, ok := wholeNumber(v)
		if !ok || n < 0 || n > MaxScale {
			errs = append(errs, &probe.ParamError{Param: "scale." + k, Msg: fmt.Sprintf("must be a whole number from 0 to %d, got %v", MaxScale, v),
				Hint: "for example scale: {min: 1, max: 5}"})
			return
		}
		*dst = n
	}
	read("min", &lo)
	read("max", &hi)
	if len(errs) == 0 && lo >= hi {
		errs = append(errs, &probe.ParamError{Param: "scale.max", Msg: fmt.Sprintf("must be above min (%d), got %d", lo, hi),
			Hint: "for example scale: {min: 1, max: 5}"})
	}
	return lo, hi, errors.Join(errs...)
}

// wholeNumber reads a YAML or JSON integer.
func wholeNumber(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), n >= math.MinInt32 && n <= math.MaxInt32
	case uint64:
		return int(n), n <= math.MaxInt32
	case float64:
		return int(n), n == math.Trunc(n) && math.Abs(n) <= math.MaxInt32
	}
	return 0, false
}

// defaultPassAt is the bottom of the top quarter of the scale: 4 on 1-5,
// 8 on 1-10, 1 on 0-1.
func defaultPassAt(lo, hi int) float64 {
	return float64(lo) + math.Ceil(0.75*float64(hi-lo))
}

// Deps returns the judge, the model it calls.
func (j *Judge) Deps() probe.Deps { return probe.Deps{Models: []probe.Model{{Spec: j.spec}}} }

// Fingerprint identifies the prompt template in effect, so that a default
// prompt that changes with a release makes baselines stale.
func (j *Judge) Fingerprint() string {
	sum := sha256.Sum256([]byte(j.tmplText))
	return "prompt:" + hex.EncodeToString(sum[:8])
}

// ErrNoRun is the error of a judge evaluated outside a run, with no
// probe.Caller to call the judge through.
var ErrNoRun = errors.New("llm_judge calls its judge through a run (promptcanary run or compare), and none is under way")

// Evaluate has the judge grade in.Response, an answer to in.Prompt,
// through the probe.Caller in ctx, unless the verdict is cached; with no
// Caller (no run under way) it is an error result. The metadata holds
// "judge", "scale_min", "scale_max", "pass_at" and "cached" (the verdict
// was not paid for by this evaluation); with a verdict, "grade" and
// "reason"; when the answer was cut to MaxJudged bytes, "truncated";
// when the judge could not grade, "error" (and "verdict_preview", the
// start of an off-format answer). The run adds the judge's tokens (see
// probe.MetaJudgeCalls).
func (j *Judge) Evaluate(ctx context.Context, in probe.Input) probe.Result {
	p, r := in.OrEmpty()
	meta := map[string]any{"judge": j.spec, "scale_min": j.min, "scale_max": j.max, "pass_at": j.passAt, "cached": false}
	text, cut := j.tmpl.render(j, p, r)
	if cut {
		meta["truncated"] = true
	}
	e, cached, err := j.verdict(ctx, p.ID, text)
	meta["cached"] = cached
	if err != nil {
		meta["error"] = err.Error()
		return probe.Result{Metadata: meta, Details: fmt.Sprintf("Not graded: the judge %s could not be asked: %s.", j.spec, strings.TrimSuffix(err.Error(), "."))}
	}
	v, err := ParseVerdict(e.Answer, j.min, j.max)
	if err != nil {
		meta["error"] = "off-format verdict: " + err.Error()
		meta["verdict_preview"] = preview(e.Answer, 200)
		return probe.Result{Metadata: meta, Details: fmt.Sprintf(`Not graded: the judge %s answered off-format (%s); it must answer with only {"score": N, "reason": "…"}.`, j.spec, err)}
	}
	score := float64(v.Score-j.min) / float64(j.max-j.min)
	passed := float64(v.Score) >= j.passAt
	meta["grade"] = v.Score
	meta["reason"] = v.Reason
	verdict := "passes"
	if !passed {
		verdict = "fails"
	}
	return probe.Result{Passed: passed, Score: score, Metadata: meta,
		Details: fmt.Sprintf("The judge %s graded %d on %d-%d (%s: the pass mark is %s): %s", j.spec, v.Score, j.min, j.max, verdict,
			strconv.FormatFloat(j.passAt, 'g', -1, 64), preview(v.Reason, 300))}
}

// verdict returns the judge's answer to text: cached, or asked through the
// Caller in ctx (always asked, and not cached, under probe.Uncached).
// cached reports that this evaluation did not pay for it.
// A well-formed verdict is kept; an off-format one reaches the
// evaluations waiting for it but is not kept, so a later run asks again.
func (j *Judge) verdict(ctx context.Context, promptID, text string) (e entry, cached bool, err error) {
	if j.memo == nil || probe.IsUncached(ctx) {
		e, err = j.ask(ctx, promptID, text)
		return e, false, err
	}
	key := j.key(text)
	e, shared, err := j.memo.Do(ctx, key, func() (entry, bool, error) {
		if j.disk != nil {
			if e, ok := j.disk.read(key, j.spec); ok {
				if _, err := ParseVerdict(e.Answer, j.min, j.max); err == nil {
					return e, true, nil
				}
			}
		}
		e, err := j.ask(ctx, promptID, text)
		if err != nil {
			return e, false, err
		}
		_, perr := ParseVerdict(e.Answer, j.min, j.max)
		if perr == nil && j.disk != nil {
			// A cache that cannot be written costs a call next time, not a
			// verdict now.
			_ = j.disk.write(key, e)
		}
		return e, perr == nil, nil
	})
	return e, shared || e.disk, err
}

// ask calls the judge through the run's Caller.
func (j *Judge) ask(ctx context.Context, promptID, text string) (entry, error) {
	c := probe.CallerFrom(ctx)
	if c == nil {
		return entry{}, ErrNoRun
	}
	cfg := promptcanary.ProviderConfig{ModelID: j.spec, Temperature: j.temperature, MaxTokens: j.maxTokens}
	resp, err := c.Call(ctx, &promptcanary.Prompt{ID: promptID, Text: text}, cfg)
	if err != nil {
		return entry{}, err
	}
	return entry{Judge: j.spec, Answer: resp.Content, PromptTokens: resp.PromptTokens, CompletionTokens: resp.CompletionTokens, Created: time.Now().UTC()}, nil
}
