package similarity

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary/suite"
)

// TestConfigErrors loads each testdata/invalid-*.yaml suite and checks the
// exact problems and hints a user sees.
func TestConfigErrors(t *testing.T) {
	const (
		minDoc    = "lowest passing similarity, in (0,1], for example 0.6; a run without a baseline shows how similar the model's answers are to one another"
		rangeHint = "the lowest passing similarity, above 0 and at most 1, for example min: 0.6"
	)
	tests := []struct {
		file string
		want []string // Error() and hint of each problem, alternating
	}{
		{"invalid-min-missing.yaml", []string{
			"invalid-min-missing.yaml:3: probes[0] (similarity).min: required parameter is missing", minDoc,
		}},
		{"invalid-min-range.yaml", []string{
			"invalid-min-range.yaml:4: probes[0] (similarity).min: must be in (0,1], got 0", rangeHint,
			"invalid-min-range.yaml:6: probes[1] (similarity).min: must be in (0,1], got 1.5", rangeHint,
		}},
		{"invalid-min-type.yaml", []string{
			`invalid-min-type.yaml:4: probes[0] (similarity).min: must be a number, got string "high"`, minDoc,
		}},
		{"invalid-metric.yaml", []string{
			`invalid-metric.yaml:4: probes[0] (similarity).metric: invalid value "bleu"`, "use one of: chrf, token_f1, rouge_l",
			`invalid-metric.yaml:6: probes[0] (similarity).against: invalid value "median"`, "use one of: max, mean",
		}},
		{"invalid-unknown.yaml", []string{
			"invalid-unknown.yaml:5: probes[0] (similarity).treshold: unknown parameter for similarity", "known parameters: metric, min, against",
		}},
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "invalid-*.yaml"))
	if len(files) != len(tests) {
		t.Errorf("got %d testdata/invalid-*.yaml files, want one per case (%d)", len(files), len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			_, err = suite.Parse(tc.file, b)
			var ve *suite.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a *suite.ValidationError", err)
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.Error(), p.Hint)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("problems:\ngot  %q\nwant %q", got, tc.want)
			}
		})
	}
}
