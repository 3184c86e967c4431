package check

import (
	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/drift"
	"github.com/promptcanary/promptcanary/provider"
)

// CostFuncs prices the calls of the baseline's model ([0]) and of the
// run's ([1]) for the economic measures of a drift report, from prices
// (canary.yaml's prices:, keyed by spec or model) and the built-in table
// (provider.LookupPrice): nil for a model with no known price, so its
// cost is n/a and never a made-up number.
func CostFuncs(base *promptcanary.Baseline, cur *promptcanary.Run, prices map[string]provider.Price) [2]drift.CostFunc {
	var out [2]drift.CostFunc
	for i, spec := range [2]string{base.Provider.ModelID, cur.Provider.ModelID} {
		if p, ok := provider.LookupPrice(spec, prices); ok {
			out[i] = p.Cost
		}
	}
	return out
}
