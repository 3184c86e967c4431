package config

import (
	"fmt"
	"math"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary/internal/yamlwalk"
)

// DefaultCandidateSamples is the samples per prompt of a check's upgrade
// gate when neither the check nor defaults: sets samples:, as for
// compare --candidate: a 5-point margin needs dozens of samples to show a
// pair no worse.
const DefaultCandidateSamples = 30

// DefaultMarginPoints is the margin of an upgrade gate in points when the
// check sets no margin:, as compare --candidate's --margin.
const DefaultMarginPoints = 5.0

// Candidate is the upgrade gate of a check (candidate:): every slot runs
// the check's provider and the candidate on the same prompts and tests,
// pair by pair, whether the candidate is no worse (drift.Candidate).
type Candidate struct {
	// Provider is the candidate model, NAME/MODEL.
	Provider string
	// Margin is the largest drop of a pair's pass rate that still counts
	// as no worse, as a share (0.05 for margin: 5).
	Margin float64
	// Samples per prompt on each model: the check's samples: (its own or
	// the defaults'), else DefaultCandidateSamples.
	Samples int
	// Line is candidate:'s line in monitor.yaml.
	Line int
}

// candidateKeys are the keys of a check that configure its upgrade gate.
var candidateKeys = []string{"candidate", "margin"}

const (
	candidateHint = "the model to test against the check's provider, NAME/MODEL, for example candidate: openai/gpt-5"
	marginHint    = "the margin in points between 0 and 100 (exclusive), for example margin: 5"
)

// candidate reads a check's candidate: and margin: from rest; samples are
// the check's own or the defaults'. It returns nil when the check has no
// candidate, and false when a problem was reported.
func (l *loader) candidate(item *yaml.Node, field string, rest []kv, st, d settings) (*Candidate, bool) {
	c := &Candidate{Margin: DefaultMarginPoints / 100}
	var node, marginNode *yaml.Node
	ok := true
	for _, e := range rest {
		switch f := yamlwalk.Join(field, e.Key.Value); e.Key.Value {
		case "candidate":
			node = e.Val
			if yamlwalk.IsNull(e.Val) {
				l.add(e.Val, f, "must not be empty", candidateHint)
				ok = false
			} else if sp, good := l.providerSpec(e.Val, f); good {
				c.Provider, c.Line = sp, e.Val.Line
			} else {
				ok = false
			}
		case "margin":
			marginNode = e.Key
			if yamlwalk.IsNull(e.Val) {
				continue
			}
			m := l.number(e.Val, f, math.Inf(-1), math.Inf(1), marginHint)
			switch {
			case m == nil:
				ok = false
			case *m <= 0 || *m >= 100:
				l.add(e.Val, f, fmt.Sprintf("out of range: got %s, allowed above 0 and below 100", e.Val.Value), marginHint)
				ok = false
			default:
				c.Margin = *m / 100
			}
		}
	}
	if node == nil {
		if marginNode != nil {
			l.add(marginNode, yamlwalk.Join(field, "margin"), "applies to an upgrade gate, and the check has no candidate",
				"name the model to test with candidate: NAME/MODEL, or remove margin")
			return nil, false
		}
		return nil, true
	}
	c.Samples = pick(st.samples, d.samples, DefaultCandidateSamples)
	if c.Samples < 2 {
		at, from := valueOf(item, "samples"), ""
		if st.samples == nil {
			at, from = item, " (from defaults:)"
		}
		l.add(at, yamlwalk.Join(field, "samples"), fmt.Sprintf("got %d%s, but the upgrade gate of candidate: needs 2 or more", c.Samples, from),
			fmt.Sprintf("one sample per prompt cannot show a pair worse or no worse: set samples: %d on the check, or leave samples: out for %d", DefaultCandidateSamples, DefaultCandidateSamples))
		ok = false
	}
	if !ok {
		return nil, false
	}
	return c, true
}

// valueOf returns the value of key in the mapping n, n itself when it
// has none.
func valueOf(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return n
}
