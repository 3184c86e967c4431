package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/modelrules"
)

// Model is a model that the plan's probes call to judge responses
// (probe.Deps.Models): the judge of an llm_judge, the embedder of a similarity
// probe. The run opens each before its first call and makes the probes'
// calls through its own engine: bounded by the run's concurrency (a probe
// calls from the goroutine of the call whose response it judges), paced
// by the model's Limits, retried by the run's rules within its retry
// budget, told to OnWait, and scrubbed of secrets.
type Model struct {
	probe.Model
	// BaseDir resolves relative paths in Settings (canary.yaml's
	// directory).
	BaseDir string
	// Limits pace the calls to the model; a chat model that is also the
	// model under test shares its limits instead.
	Limits Limits
	// Timeout bounds each attempt; 0 means the run's Options.Timeout.
	Timeout time.Duration
	// UsedBy names the probe instances that call the model, for errors.
	UsedBy []string
}

// models are the models of one run, opened once each.
type models struct {
	e  *engine
	mu sync.Mutex
	// byKey holds chat models by "chat SPEC" (a run knows one
	// configuration per chat model) and embedding models by Model.Key.
	byKey map[string]*model
}

// model is one opened model.
type model struct {
	Model
	once sync.Once
	err  error
	chat provider.Provider
	emb  provider.Embedder
	lim  *limiter
}

func newModels(e *engine, plan []Model) *models {
	ms := &models{e: e, byKey: map[string]*model{}}
	for _, m := range plan {
		k := modelKey(m.Model)
		if old, dup := ms.byKey[k]; dup {
			old.UsedBy = append(old.UsedBy, m.UsedBy...)
			continue
		}
		ms.byKey[k] = &model{Model: m}
	}
	return ms
}

// modelKey is the key of m in models.byKey.
func modelKey(m probe.Model) string {
	if !m.Embedding {
		return "chat " + m.Spec
	}
	return m.Key()
}

// get returns the opened model for m, adding one the plan does not list
// (a probe built outside a suite) with m's own settings.
func (ms *models) get(m probe.Model) (*model, error) {
	k := modelKey(m)
	ms.mu.Lock()
	om, ok := ms.byKey[k]
	if !ok {
		om = &model{Model: Model{Model: m}}
		ms.byKey[k] = om
	}
	ms.mu.Unlock()
	om.once.Do(func() { om.err = ms.open(om) })
	return om, om.err
}

// openAll opens every model of the plan, in a stable order, and returns
// every failure: a run checks them before its first call.
func (ms *models) openAll() error {
	ms.mu.Lock()
	all := make([]*model, 0, len(ms.byKey))
	for _, k := range slices.Sorted(maps.Keys(ms.byKey)) {
		all = append(all, ms.byKey[k])
	}
	ms.mu.Unlock()
	var errs []error
	for _, m := range all {
		if _, err := ms.get(m.Model.Model); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// open opens m: a chat model that is the model under test is the run's
// own provider, with its limits.
func (ms *models) open(m *model) error {
	e := ms.e
	if !m.Embedding && e.p != nil && m.Spec == e.plan.Config.ModelID {
		m.chat, m.lim = e.p, e.lim
		return nil
	}
	opts := provider.Options{BaseDir: m.BaseDir, Settings: m.Settings, Getenv: e.opts.Getenv, HTTPClient: e.opts.HTTPClient, Secrets: e.opts.Secrets}
	var err error
	if m.Embedding {
		m.emb, err = provider.OpenEmbedder(m.Spec, opts)
	} else {
		m.chat, err = provider.Open(m.Spec, opts)
	}
	if err != nil {
		who := "a probe"
		if len(m.UsedBy) > 0 {
			who = "probe " + strings.Join(m.UsedBy, ", ")
		}
		kind := "judge"
		if m.Embedding {
			kind = "embedder"
		}
		return fmt.Errorf("%s: the %s %s cannot be opened: %w", who, kind, m.Spec, err)
	}
	m.lim = newLimiter(m.Limits)
	return nil
}

func (m *model) timeout(run time.Duration) time.Duration {
	if m.Timeout > 0 {
		return m.Timeout
	}
	return run
}

// The engine is the probe.Caller of the probes of its run that call models.
var _ probe.Caller = (*engine)(nil)

type siteKey struct{}

// siteFrom returns the response a model call is made for, as the probe's
// account put it in ctx.
func siteFrom(ctx context.Context, spec, promptID string) callSite {
	s, ok := ctx.Value(siteKey{}).(callSite)
	if !ok {
		s = callSite{promptID: promptID}
	}
	s.spec = spec
	return s
}

// Call sends prompt to the chat model cfg.ModelID through the engine: paced,
// retried and scrubbed as the run's own calls. The answer and any error
// are scrubbed of the run's secrets.
func (e *engine) Call(ctx context.Context, prompt *promptcanary.Prompt, cfg promptcanary.ProviderConfig) (*promptcanary.Response, error) {
	m, err := e.models.get(probe.Model{Spec: cfg.ModelID})
	if err != nil {
		return nil, e.scrub(err)
	}
	// A judge is called as its model takes it (a gpt-5 judge gets the
	// temperature 1 it accepts, not the judge's 0), as a run's provider is.
	if provider.CapabilitiesOf(cfg.ModelID).VendorModels {
		if cfg, _, err = modelrules.Apply(cfg); err != nil {
			return nil, e.scrub(fmt.Errorf("judge %s: %w", cfg.ModelID, err))
		}
	}
	req := &provider.Request{Prompt: prompt, Config: cfg}
	var resp *promptcanary.Response
	var bound *provider.Bound
	attempts, err := e.retry(ctx, siteFrom(ctx, cfg.ModelID, prompt.ID), m.lim, CallTokens(prompt, cfg.MaxTokens), m.timeout(e.opts.Timeout), func(ctx context.Context) error {
		bound = &provider.Bound{Max: e.opts.maxAnswer()}
		r, err := generate(provider.WithBound(ctx, bound), m.chat, req)
		resp = r
		return err
	})
	if err != nil {
		return nil, e.scrub(err)
	}
	_, original := bound.Cut()
	resp.Cut(e.opts.maxAnswer(), original)
	e.opts.Secrets.Response(resp)
	resp.Attempts = attempts
	if resp.TotalTokens == 0 {
		resp.TotalTokens = resp.PromptTokens + resp.CompletionTokens
	}
	return resp, nil
}

// Embed embeds texts with the embedding model m through the engine, in
// calls of at most provider.MaxEmbedBatch texts, each paced and retried as the
// run's own calls.
func (e *engine) Embed(ctx context.Context, pm probe.Model, texts []string) ([][]float64, int, error) {
	pm.Embedding = true
	m, err := e.models.get(pm)
	if err != nil {
		return nil, 0, e.scrub(err)
	}
	site := siteFrom(ctx, pm.Spec, "")
	out := make([][]float64, 0, len(texts))
	tokens := 0
	for batch := range slices.Chunk(texts, provider.MaxEmbedBatch) {
		var res *provider.Embeddings
		_, err := e.retry(ctx, site, m.lim, embedTokens(batch), m.timeout(e.opts.Timeout), func(ctx context.Context) error {
			r, err := m.emb.Embed(ctx, batch)
			res = r
			return err
		})
		if err != nil {
			return nil, 0, e.scrub(err)
		}
		out = append(out, res.Vectors...)
		tokens += res.Tokens
	}
	return out, tokens, nil
}

// embedTokens estimates the tokens of texts for the tpm limit, as
// EstimateTokens does for a prompt.
func embedTokens(texts []string) int64 {
	words := 0
	for _, t := range texts {
		words += len(strings.Fields(t))
	}
	return int64(min(math.Ceil(float64(words)*1.3)+1, math.MaxInt32))
}

// scrub returns err with the run's secrets removed from its message; a
// context error is returned as it is.
func (e *engine) scrub(err error) error {
	if e.opts.Secrets == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if msg := e.opts.Secrets.String(err.Error()); msg != err.Error() {
		return errors.New(msg)
	}
	return err
}

// probeContext is ctx carrying the engine as the Caller of the probes that call models.
func (e *engine) probeContext(ctx context.Context) context.Context {
	return probe.WithCaller(ctx, e)
}

// account is the Caller a probe that calls models gets while it judges one response:
// the run's, counting what the calls returned so that the result records
// it (see ModelCost).
type account struct {
	next probe.Caller
	site callSite

	mu                              sync.Mutex
	judges, embedders               []string
	judgeCalls, promptTok, complTok int
	embedCalls, embedTok            int
}

var _ probe.Caller = (*account)(nil)

func (a *account) Call(ctx context.Context, prompt *promptcanary.Prompt, cfg promptcanary.ProviderConfig) (*promptcanary.Response, error) {
	resp, err := a.next.Call(context.WithValue(ctx, siteKey{}, a.site), prompt, cfg)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !slices.Contains(a.judges, cfg.ModelID) {
		a.judges = append(a.judges, cfg.ModelID)
	}
	a.judgeCalls++
	a.promptTok += max(resp.PromptTokens, 0)
	a.complTok += max(resp.CompletionTokens, 0)
	return resp, nil
}

func (a *account) Embed(ctx context.Context, m probe.Model, texts []string) ([][]float64, int, error) {
	vs, tokens, err := a.next.Embed(context.WithValue(ctx, siteKey{}, a.site), m, texts)
	if err != nil {
		return nil, 0, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !slices.Contains(a.embedders, m.Spec) {
		a.embedders = append(a.embedders, m.Spec)
	}
	a.embedCalls += (len(texts) + provider.MaxEmbedBatch - 1) / provider.MaxEmbedBatch
	a.embedTok += max(tokens, 0)
	return vs, tokens, nil
}

// record writes what the calls returned into md: the probe.MetaJudge…
// and probe.MetaEmbedding… keys, for the kinds of model called.
func (a *account) record(md map[string]any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.judgeCalls > 0 {
		md[probe.MetaJudge] = strings.Join(a.judges, ",")
		md[probe.MetaJudgeCalls] = a.judgeCalls
		md[probe.MetaJudgePromptTokens] = a.promptTok
		md[probe.MetaJudgeCompletionTokens] = a.complTok
	}
	if a.embedCalls > 0 {
		md[probe.MetaEmbedder] = strings.Join(a.embedders, ",")
		md[probe.MetaEmbeddingCalls] = a.embedCalls
		md[probe.MetaEmbeddingTokens] = a.embedTok
	}
}

// ModelCost is what the calls that run's probes made to models cost
// (judges and embedders, as recorded in each result's metadata by the
// run), priced like the run's own calls (provider.LookupPrice with
// prices). known is false when a judge's price is unknown. An embedder's
// calls count when its price is known (prices: in canary.yaml, or a free
// local provider) and are left out otherwise: embeddings cost a small
// fraction of chat calls, and an unknown price would hide the whole cost.
func ModelCost(run *promptcanary.Run, prices map[string]provider.Price) (usd float64, known bool) {
	known = true
	for i := range run.ProbeResults {
		md := run.ProbeResults[i].Metadata
		if n, _ := probe.MetaInt(md, probe.MetaJudgeCalls); n > 0 {
			spec, _ := md[probe.MetaJudge].(string)
			in, _ := probe.MetaInt(md, probe.MetaJudgePromptTokens)
			out, _ := probe.MetaInt(md, probe.MetaJudgeCompletionTokens)
			if p, ok := provider.LookupPrice(spec, prices); ok {
				usd += p.Cost(in, out)
			} else {
				known = false
			}
		}
		if n, _ := probe.MetaInt(md, probe.MetaEmbeddingCalls); n > 0 {
			spec, _ := md[probe.MetaEmbedder].(string)
			tokens, _ := probe.MetaInt(md, probe.MetaEmbeddingTokens)
			if p, ok := provider.LookupPrice(spec, prices); ok {
				usd += p.Cost(tokens, 0)
			}
		}
	}
	return usd, known
}
