package similarity

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// TestConfigErrors loads each testdata/invalid-*.yaml suite and checks the
// exact problems and hints a user sees.
func TestConfigErrors(t *testing.T) {
	const (
		minDoc    = "lowest passing similarity, in (0,1], for example 0.6; a run without a baseline shows how similar the model's answers are to one another"
		rangeHint = "the lowest passing similarity, above 0 and at most 1, for example min: 0.6"
	)
	probetest.CheckInvalidFiles(t, []probetest.Invalid{
		{File: "invalid-min-missing.yaml", Want: []string{
			"invalid-min-missing.yaml:3: probes[0] (similarity).min: required parameter is missing", minDoc,
		}},
		{File: "invalid-min-range.yaml", Want: []string{
			"invalid-min-range.yaml:4: probes[0] (similarity).min: must be in (0,1], got 0", rangeHint,
			"invalid-min-range.yaml:6: probes[1] (similarity).min: must be in (0,1], got 1.5", rangeHint,
		}},
		{File: "invalid-min-type.yaml", Want: []string{
			`invalid-min-type.yaml:4: probes[0] (similarity).min: must be a number, got string "high"`, minDoc,
		}},
		{File: "invalid-metric.yaml", Want: []string{
			`invalid-metric.yaml:4: probes[0] (similarity).metric: invalid value "bleu"`, "use one of: chrf, token_f1, rouge_l",
			`invalid-metric.yaml:6: probes[0] (similarity).against: invalid value "median"`, "use one of: max, mean",
		}},
		{File: "invalid-unknown.yaml", Want: []string{
			"invalid-unknown.yaml:5: probes[0] (similarity).treshold: unknown parameter for similarity", "known parameters: metric, min, against",
		}},
	})
}
