package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/modelrules"
)

// modelInfo is one model as `promptcanary models --json` lists it.
type modelInfo struct {
	Model    string `json:"model"`
	Provider string `json:"provider,omitempty"`
	// Price is nil when the price is unknown.
	Price        *provider.Price `json:"price_usd_per_million_tokens"`
	PriceSource  string          `json:"price_source,omitempty"`
	PriceChecked string          `json:"price_checked,omitempty"`
	Family       string          `json:"family,omitempty"`
	RulesSource  string          `json:"rules_source,omitempty"`
	Rules        []string        `json:"rules"`
	// Description says the rules in one line, as the table shows them:
	// "plain rules (unknown family): takes every parameter" for a model
	// the table does not know.
	Description string   `json:"description"`
	Temperature *float64 `json:"temperature_only,omitempty"`
	NoTemp      bool     `json:"no_temperature,omitempty"`
	NoTopP      bool     `json:"no_top_p,omitempty"`
	OneSampler  bool     `json:"temperature_or_top_p,omitempty"`
	TokenField  string   `json:"token_field,omitempty"`
	API         string   `json:"api,omitempty"`
	// Thinking: "budget" (Anthropic's extended thinking), "adaptive"
	// (adaptive only), "in_output" (Gemini: thinking spends max_tokens).
	Thinking string `json:"thinking,omitempty"`
}

// modelsDoc is the whole --json output.
type modelsDoc struct {
	PricesChecked string      `json:"prices_checked"`
	Note          string      `json:"note"`
	Models        []modelInfo `json:"models"`
}

const pricesNote = "list prices in US dollars per million tokens (standard tier, text); estimates for budgeting, not invoices: override them with prices: in canary.yaml"

func (a *app) modelsCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "models [MODEL...]",
		Short: "List the known models, their request rules and list prices",
		Long: `List the models PromptCanary knows: the request rules of each (which
sampling parameters it takes, the field of its token limit, its API, how it
thinks) and its list price, with the date the price table was last checked
and the page each price comes from. A run sends what the model takes and
says what it changed (see docs/providers/model-rules.md).

Given MODEL names (any spelling: gpt-5, openai/gpt-5,
bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0), it shows the rules
and price those models get; an unknown model gets its family's rules by
prefix, or the plain rules, and "price unknown". Works offline.`,
		Example: "  promptcanary models\n  promptcanary models gpt-5 vertex/claude-sonnet-4-5@20250929\n  promptcanary models --json",
		RunE: func(_ *cobra.Command, args []string) error {
			doc := modelsDoc{PricesChecked: provider.PricesChecked, Note: pricesNote}
			if len(args) == 0 {
				for _, lp := range provider.ListPrices() {
					doc.Models = append(doc.Models, describeModel(lp.Provider+"/"+lp.Model))
				}
			}
			for _, m := range args {
				if err := knownProvider(m); err != nil {
					return usageErr(err, "run 'promptcanary models' for the known models, or give a bare model name such as gpt-5")
				}
				doc.Models = append(doc.Models, describeModel(m))
			}
			if asJSON {
				enc := json.NewEncoder(a.stdio.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(doc)
			}
			return writeModels(a.stdio.Out, doc)
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

// knownProvider refuses a NAME/MODEL whose NAME no provider registered,
// with the nearest name as a hint; a bare model name is fine.
func knownProvider(model string) error {
	name, _, err := provider.Split(model)
	if err != nil || slices.Contains(provider.Names(), name) {
		return nil
	}
	return provider.Check(model, provider.Options{}) // the unknown-provider error, as run gives it
}

// describeModel gathers the rules and price of model: NAME/MODEL, or a
// bare model name.
func describeModel(model string) modelInfo {
	r := modelrules.For(model)
	info := modelInfo{Model: model, Family: r.Family, RulesSource: r.Source, Rules: r.Describe(),
		Temperature: r.Temperature, NoTemp: r.NoTemperature, NoTopP: r.NoTopP, OneSampler: r.OneSampler,
		TokenField: r.TokenField, API: r.API()}
	if info.Rules == nil {
		info.Rules = []string{}
	}
	info.Description = strings.Join(info.Rules, "; ")
	if info.Description == "" {
		info.Description = "takes every parameter"
	}
	if r.Family == "" {
		info.Description = "plain rules (unknown family): " + info.Description
	}
	switch {
	case r.ThinkingBudget:
		info.Thinking = "budget"
	case r.AdaptiveThinkingOnly:
		info.Thinking = "adaptive"
	case r.ThinksInOutput:
		info.Thinking = "in_output"
	}
	spec := model
	if lp, ok := provider.Family(model); ok {
		info.Provider, info.PriceSource, info.PriceChecked = lp.Provider, lp.Source, lp.Checked
		if !strings.Contains(model, "/") {
			spec = lp.Provider + "/" + model
		}
	}
	if name, _, err := provider.Split(model); err == nil {
		info.Provider = name
	}
	if p, ok := provider.LookupPrice(spec, nil); ok {
		info.Price = &p
	}
	return info
}

// money prints a price per million tokens: cents, or finer when needed.
// Whole cents are found up to float rounding (1.1 × 100 is
// 110.00000000000001), so $1.10 is not printed as $1.1.
func money(x float64) string {
	if c := x * 100; math.Abs(c-math.Round(c)) < 1e-6 {
		return fmt.Sprintf("$%.2f", x)
	}
	return fmt.Sprintf("$%g", x)
}

// writeModels prints the models as a table, then the sources.
func writeModels(w io.Writer, doc modelsDoc) error {
	fmt.Fprintf(w, "Prices: %s. Last checked %s.\n\n", pricesNote, doc.PricesChecked)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tINPUT\tOUTPUT\tPRICE FROM\tRULES")
	families := map[string]string{}
	var order []string
	for _, m := range doc.Models {
		in, out := "price unknown", ""
		if m.Price != nil {
			in, out = money(m.Price.Input), money(m.Price.Output)
		}
		rules := m.Description
		checked := m.PriceChecked
		if checked == "" {
			checked = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termtext.Safe(m.Model), in, out, checked, rules)
		if m.Family != "" && families[m.Family] == "" {
			families[m.Family] = m.RulesSource
			order = append(order, m.Family)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nRules come from:")
	for _, f := range order {
		fmt.Fprintf(w, "  %s: %s\n", f, families[f])
	}
	fmt.Fprintln(w, "Prices come from:")
	seen := map[string]bool{}
	for _, lp := range provider.ListPrices() {
		if !seen[lp.Source] {
			seen[lp.Source] = true
			fmt.Fprintf(w, "  %s: %s\n", lp.Provider, lp.Source)
		}
	}
	_, err := fmt.Fprintf(w, "PRICE FROM says how each price was checked on %s: %q is a copy of the provider's own page, %q two or more price lists quoting it that agree (the page itself could not be read offline), %q a price carried over unchecked.\n",
		doc.PricesChecked, provider.CheckedOfficial, provider.CheckedSecondary, provider.CheckedNot)
	return err
}
