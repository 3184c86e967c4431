package provider

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary/provider/modelrules"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input" yaml:"input"`
	Output float64 `json:"output" yaml:"output"`
}

// Cost is the price of the given token counts. It is computed in floating
// point, so no count overflows it; a negative count (a provider's
// nonsense) costs nothing.
func (p Price) Cost(promptTokens, completionTokens int) float64 {
	return (float64(max(promptTokens, 0))*p.Input + float64(max(completionTokens, 0))*p.Output) / 1e6
}

// ListPrice is the published list price of one model family, with where
// it comes from and how it was checked.
type ListPrice struct {
	// Model is the family's name; dated snapshots and host spellings of
	// it find it (see LookupPrice).
	Model string `json:"model"`
	// Provider is the NAME of the provider spec that serves the model.
	Provider string `json:"provider"`
	Price
	// Source is the provider's price page.
	Source string `json:"source"`
	// Checked says how the price was last checked (see the Checked*
	// constants).
	Checked string `json:"checked"`
}

// PricesChecked is the date the price table was last checked.
const PricesChecked = "2026-12-03"

// How a price of the table was last checked (on PricesChecked).
const (
	// CheckedOfficial: read on a copy of the provider's own price page.
	CheckedOfficial = "provider page"
	// CheckedSecondary: the provider's page could not be read offline;
	// two or more price lists quoting it agree.
	CheckedSecondary = "price lists"
	// CheckedNot: carried over from an earlier table, not re-checked.
	CheckedNot = "not re-checked"
)

// The providers' price pages.
const (
	openAIPrices    = "https://openai.com/api/pricing/"
	anthropicPrices = "https://docs.anthropic.com/en/docs/about-claude/pricing"
	geminiPrices    = "https://ai.google.dev/gemini-api/docs/pricing"
	xAIPrices       = "https://docs.x.ai/docs/models"
	mistralPrices   = "https://mistral.ai/pricing"
)

// listPrices are list prices of well-known models (USD per million
// tokens, standard tier, text, prompts up to 200k tokens where a price
// depends on it). They are estimates for budgeting, not invoices: override
// them with prices: in canary.yaml. Bedrock and Vertex AI are priced at
// the model vendor's list price. Each names the provider that serves the
// model, so that a bare model name ("gpt-4o") can suggest its provider
// spec.
var listPrices = []ListPrice{
	{"gpt-5", "openai", Price{1.25, 10.00}, openAIPrices, CheckedSecondary},
	{"gpt-5-mini", "openai", Price{0.25, 2.00}, openAIPrices, CheckedSecondary},
	{"gpt-5-nano", "openai", Price{0.05, 0.40}, openAIPrices, CheckedSecondary},
	{"gpt-5-pro", "openai", Price{15.00, 120.00}, openAIPrices, CheckedSecondary},
	{"gpt-5-codex", "openai", Price{1.25, 10.00}, openAIPrices, CheckedSecondary},
	{"gpt-5-chat-latest", "openai", Price{1.25, 10.00}, openAIPrices, CheckedSecondary},
	{"gpt-5.1", "openai", Price{1.25, 10.00}, openAIPrices, CheckedSecondary},
	{"gpt-5.2", "openai", Price{1.75, 14.00}, openAIPrices, CheckedSecondary},
	{"gpt-5.4", "openai", Price{2.50, 15.00}, openAIPrices, CheckedSecondary},
	{"o1", "openai", Price{15.00, 60.00}, openAIPrices, CheckedSecondary},
	{"o1-pro", "openai", Price{150.00, 600.00}, openAIPrices, CheckedSecondary},
	{"o3", "openai", Price{2.00, 8.00}, openAIPrices, CheckedSecondary},
	{"o3-pro", "openai", Price{20.00, 80.00}, openAIPrices, CheckedSecondary},
	{"o3-mini", "openai", Price{1.10, 4.40}, openAIPrices, CheckedSecondary},
	{"o4-mini", "openai", Price{1.10, 4.40}, openAIPrices, CheckedSecondary},
	{"gpt-4o", "openai", Price{2.50, 10.00}, openAIPrices, CheckedSecondary},
	{"gpt-4o-mini", "openai", Price{0.15, 0.60}, openAIPrices, CheckedSecondary},
	{"gpt-4.1", "openai", Price{2.00, 8.00}, openAIPrices, CheckedSecondary},
	{"gpt-4.1-mini", "openai", Price{0.40, 1.60}, openAIPrices, CheckedSecondary},
	{"gpt-4.1-nano", "openai", Price{0.10, 0.40}, openAIPrices, CheckedSecondary},
	{"claude-opus-4-1", "anthropic", Price{15.00, 75.00}, anthropicPrices, CheckedOfficial},
	{"claude-opus-4", "anthropic", Price{15.00, 75.00}, anthropicPrices, CheckedOfficial},
	{"claude-sonnet-4", "anthropic", Price{3.00, 15.00}, anthropicPrices, CheckedOfficial},
	{"claude-3-7-sonnet", "anthropic", Price{3.00, 15.00}, anthropicPrices, CheckedOfficial},
	{"claude-3-5-sonnet", "anthropic", Price{3.00, 15.00}, anthropicPrices, CheckedOfficial},
	{"claude-3-5-haiku", "anthropic", Price{0.80, 4.00}, anthropicPrices, CheckedOfficial},
	{"claude-3-haiku", "anthropic", Price{0.25, 1.25}, anthropicPrices, CheckedOfficial},
	{"claude-sonnet-4-5", "anthropic", Price{3.00, 15.00}, anthropicPrices, CheckedSecondary},
	{"claude-haiku-4-5", "anthropic", Price{1.00, 5.00}, anthropicPrices, CheckedSecondary},
	{"claude-opus-4-5", "anthropic", Price{5.00, 25.00}, anthropicPrices, CheckedSecondary},
	{"claude-sonnet-4-6", "anthropic", Price{3.00, 15.00}, anthropicPrices, CheckedSecondary},
	{"claude-opus-4-6", "anthropic", Price{5.00, 25.00}, anthropicPrices, CheckedSecondary},
	{"claude-opus-4-7", "anthropic", Price{5.00, 25.00}, anthropicPrices, CheckedSecondary},
	{"gemini-2.5-pro", "gemini", Price{1.25, 10.00}, geminiPrices, CheckedSecondary},
	{"gemini-2.5-flash", "gemini", Price{0.30, 2.50}, geminiPrices, CheckedSecondary},
	{"gemini-2.5-flash-lite", "gemini", Price{0.10, 0.40}, geminiPrices, CheckedSecondary},
	{"gemini-2.0-flash", "gemini", Price{0.10, 0.40}, geminiPrices, CheckedSecondary},
	{"gemini-1.5-pro", "gemini", Price{1.25, 5.00}, geminiPrices, CheckedNot},
	{"gemini-1.5-flash", "gemini", Price{0.075, 0.30}, geminiPrices, CheckedNot},
	{"grok-3", "xai", Price{3.00, 15.00}, xAIPrices, CheckedNot},
	{"grok-3-mini", "xai", Price{0.30, 0.50}, xAIPrices, CheckedNot},
	{"mistral-large", "mistral", Price{2.00, 6.00}, mistralPrices, CheckedNot},
	{"mistral-small", "mistral", Price{0.10, 0.30}, mistralPrices, CheckedNot},
}

// ListPrices returns the price table, sorted by provider and model.
func ListPrices() []ListPrice {
	out := slices.Clone(listPrices)
	slices.SortFunc(out, func(a, b ListPrice) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Model, b.Model))
	})
	return out
}

// LookupPrice returns the price of spec ("name/model"): from overrides
// (keyed by the full spec or by model name), else the default table, else
// false. Local and offline providers (Capabilities.Free) are free.
func LookupPrice(spec string, overrides map[string]Price) (Price, bool) {
	if p, ok := overrides[spec]; ok {
		return p, true
	}
	name, model, err := Split(spec)
	if err != nil {
		return Price{}, false
	}
	if p, ok := overrides[model]; ok {
		return p, true
	}
	if CapabilitiesOf(name).Free {
		return Price{}, true
	}
	lp, ok := family(model)
	return lp.Price, ok
}

// snapshotSuffix is what may follow a family's name in the name of one of
// its snapshots: dates ("-2024-08-06", "-20250929", "-06-05"), "-latest",
// previews, experiments, revisions ("-002", "-v2") and Bedrock's version
// ("-v1:0"). Anything else ("-mini", ".1", "-4-5") is another model.
var snapshotSuffix = regexp.MustCompile(`^(-\d{8}|-\d{4}-\d{2}-\d{2}|-\d{2}-\d{4}|-\d{2}-\d{2}|-latest|-preview[-\w.]*|-exp[-\w.]*|-v\d+(:\d+)?|-\d{3})*$`)

// Family returns the price table's row for model, a model name as any
// host spells it ("gpt-4o-2024-08-06", "us.anthropic.claude-sonnet-4-5-…");
// false when the table has none.
func Family(model string) (ListPrice, bool) { return family(model) }

// family returns the list price of the model family that model (a name
// as any host spells it, see modelrules.Base) is, or is a snapshot of.
func family(model string) (ListPrice, bool) {
	m := modelrules.Base(model)
	best := -1
	for i, lp := range listPrices {
		rest, ok := strings.CutPrefix(m, lp.Model)
		if ok && snapshotSuffix.MatchString(rest) && (best < 0 || len(lp.Model) > len(listPrices[best].Model)) {
			best = i
		}
	}
	if best < 0 {
		return ListPrice{}, false
	}
	return listPrices[best], true
}

// modelProvider guesses the provider of a bare model name from the price
// table: the provider of the longest family the name starts with, else of
// a family sharing its first word ("gemini-3-pro" → gemini); "" when none.
func modelProvider(model string) string {
	if lp, ok := family(model); ok {
		return lp.Provider
	}
	word, _, _ := strings.Cut(model, "-")
	if word == "" {
		return ""
	}
	for _, lp := range ListPrices() {
		if w, _, _ := strings.Cut(lp.Model, "-"); w == word {
			return lp.Provider
		}
	}
	return ""
}
