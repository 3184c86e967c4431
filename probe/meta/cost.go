package meta

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
)

// Cost is the cost probe: it prices each call from the token counts the
// provider reported and the provider price table (provider.LookupPrice of
// the response's ProviderModelID), and passes when it cost at most MaxUSD,
// scoring 1 within the limit and falling linearly to 0 at twice the limit.
//
// Which model answered is known only when the call is made, so an unknown
// price cannot be a validation error: such a response passes as skipped,
// with details "price unknown" and metadata "price_known" false. So does a
// response that reports no prompt or completion token counts. Local and
// offline providers (sim, replay, ollama, exec) are free. The prices: of
// canary.yaml override the table (SetPrices).
type Cost struct {
	// MaxUSD is the most a call may cost, in US dollars; it must be
	// greater than 0.
	MaxUSD float64

	// prices override the price table; last is the entry looked up last
	// with them (one model answers most calls).
	prices map[string]provider.Price
	last   atomic.Pointer[priceEntry]
}

var _ probe.Probe = (*Cost)(nil)

const costID = "cost"

func init() {
	probe.Register(probe.Type{
		ID:          costID,
		Name:        "Cost per Call",
		Category:    promptcanary.CategoryCustom,
		Description: "Checks the cost of each call, from its token counts and the model's price, against a limit.",
		Example: `probes:
  - type: cost
    max_usd: 0.002
`,
		Params: []probe.Param{
			{Name: "max_usd", Kind: probe.Float, Required: true,
				Doc: "most one call may cost, in US dollars; the score falls to 0 at twice this"},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			usd, err := limit(p, "max_usd", "the most one call may cost in US dollars, for example max_usd: 0.002")
			if err != nil {
				return nil, err
			}
			return &Cost{MaxUSD: usd}, nil
		},
	})
}

// Evaluate prices the call. The metadata holds "provider_model_id",
// "price_known", "prompt_tokens", "completion_tokens", "max_usd" and
// "skipped", plus "cost_usd" and the price per million input and output
// tokens ("usd_per_mtok_input", "usd_per_mtok_output") when it was priced.
func (c *Cost) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	prompt, completion := max(r.PromptTokens, 0), max(r.CompletionTokens, 0)
	pe := c.priceOf(r.ProviderModelID)
	meta := make(map[string]any, 9)
	meta["provider_model_id"] = pe.boxedID
	meta["prompt_tokens"] = prompt
	meta["completion_tokens"] = completion
	meta["max_usd"] = c.MaxUSD
	meta["skipped"] = true
	meta["price_known"] = pe.known
	if !pe.known {
		return skip(meta, "Price unknown for "+strconv.Quote(r.ProviderModelID)+", so the cost was not checked.")
	}
	if prompt == 0 && completion == 0 {
		return skip(meta, "The provider reported no prompt or completion token counts, so the cost was not checked.")
	}
	cost := pe.price.Cost(prompt, completion)
	meta["skipped"] = false
	meta["cost_usd"] = cost
	meta["usd_per_mtok_input"] = pe.input
	meta["usd_per_mtok_output"] = pe.output
	var buf [128]byte
	b := append(buf[:0], "The call cost $"...)
	b = strconv.AppendFloat(b, cost, 'f', 6, 64)
	if cost <= c.MaxUSD {
		b = append(b, ", within the $"...)
		b = strconv.AppendFloat(b, c.MaxUSD, 'g', -1, 64)
		b = append(b, " limit."...)
		return probe.Result{Passed: true, Score: 1, Metadata: meta, Details: string(b)}
	}
	// "The call cost $%s, over the $%s limit (%s×)."
	b = append(b, ", over the $"...)
	b = strconv.AppendFloat(b, c.MaxUSD, 'g', -1, 64)
	b = append(b, " limit ("...)
	b = strconv.AppendFloat(b, cost/c.MaxUSD, 'f', 1, 64)
	b = append(b, "×)."...)
	return probe.Result{Score: overLimit(cost, c.MaxUSD), Metadata: meta, Details: string(b)}
}

// SetPrices makes the probe price calls with prices (keyed by model or
// NAME/MODEL, as provider.LookupPrice takes them) before the built-in
// table; the suite calls it with canary.yaml's prices: before the probe
// judges anything.
func (c *Cost) SetPrices(prices map[string]provider.Price) {
	c.prices = prices
	c.last.Store(nil)
}

// priceOf is the price of the model id, with the probe's overrides.
func (c *Cost) priceOf(id string) *priceEntry {
	if len(c.prices) == 0 {
		return priceOf(id)
	}
	if pe := c.last.Load(); pe != nil && pe.id == id {
		return pe
	}
	p, ok := provider.LookupPrice(id, c.prices)
	pe := newPriceEntry(id, p, ok)
	c.last.Store(pe)
	return pe
}

// newPriceEntry boxes the values metadata holds once.
func newPriceEntry(id string, p provider.Price, known bool) *priceEntry {
	return &priceEntry{id: id, price: p, known: known, boxedID: id, input: p.Input, output: p.Output}
}

// priceEntry is a cached price lookup, with the values metadata holds
// boxed once.
type priceEntry struct {
	id            string
	price         provider.Price
	known         bool
	boxedID       any // id
	input, output any // price.Input, price.Output
}

// maxCachedPrices bounds the price cache: a run sees a handful of models,
// and a stream of made-up model ids must not grow memory.
const maxCachedPrices = 1024

var (
	priceCache   sync.Map // model id → *priceEntry
	cachedPrices atomic.Int64
	// lastPrice is the entry looked up last: most runs price one model.
	lastPrice atomic.Pointer[priceEntry]
)

// lookupPrice is provider.LookupPrice without overrides, cached.
func lookupPrice(id string) (provider.Price, bool) {
	pe := priceOf(id)
	return pe.price, pe.known
}

// priceOf is the cached price lookup of id: the table lookup scans every
// model family, and one model answers many calls.
func priceOf(id string) *priceEntry {
	if pe := lastPrice.Load(); pe != nil && pe.id == id {
		return pe
	}
	if e, ok := priceCache.Load(id); ok {
		pe := e.(*priceEntry)
		lastPrice.Store(pe)
		return pe
	}
	p, ok := provider.LookupPrice(id, nil)
	pe := newPriceEntry(id, p, ok)
	if cachedPrices.Load() < maxCachedPrices {
		if _, loaded := priceCache.LoadOrStore(id, pe); !loaded {
			cachedPrices.Add(1)
		}
	}
	lastPrice.Store(pe)
	return pe
}
