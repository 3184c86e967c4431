package monitor

import (
	"strings"
	"testing"
)

// A daily budget cannot count the runs of a model whose price is unknown:
// the monitor says so once, at start, rather than counting them as $0.
func TestBudgetWarnsOfAnUnknownPrice(t *testing.T) {
	f := newFixture(t, "")
	f.top = "budget: {usd_per_day: 10}\n"
	f.saveBaseline(1)
	f.monitor(f.config("1h", 1))
	logs := f.logs.String()
	if !strings.Contains(logs, "price unknown: the daily budget does not count this check's runs") {
		t.Errorf("no warning of the unknown price in the logs:\n%s", logs)
	}
	g := newFixture(t, "prices:\n  \"{SPEC}\": {input: 1, output: 1}\n")
	g.top = "budget: {usd_per_day: 10}\n"
	g.saveBaseline(1)
	g.monitor(g.config("1h", 1))
	if strings.Contains(g.logs.String(), "price unknown") {
		t.Errorf("a priced model is warned about:\n%s", g.logs.String())
	}
}
