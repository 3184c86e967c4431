package cli

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/suite"
)

// The check package names settings by field; the CLI words them as the
// flags that set them, in the message and the hints, and keeps the error
// a configuration mistake (exit 2). Every field check names is a flag of
// run or compare.
func TestFlagWords(t *testing.T) {
	zero, tooMany := time.Duration(0), 0
	sim := &suite.Suite{Path: "canary.yaml", Defaults: suite.Defaults{Provider: "sim/stable"}}
	resolve := func(st *suite.Suite, s check.Settings) error {
		_, _, err := check.Resolve(st, s)
		return err
	}
	_, bsErr := check.BaselineSamples(1, &tooMany)
	_, _, streamErr := check.Streams(nil, check.StreamPlan{Mode: check.StreamAlways})
	compare := func(req check.CompareRequest) error {
		_, err := check.Compare(context.Background(), req)
		return err
	}
	tests := []struct {
		name  string
		err   error
		msg   string
		hints []string
	}{
		{"timeout", resolve(sim, check.Settings{Timeout: &zero}),
			"--timeout 0s is out of range", []string{"use a positive duration of at most 24h, for example --timeout 60s"}},
		{"retry wait", resolve(sim, check.Settings{MaxRetryWait: 25 * time.Hour}),
			"--max-retry-wait 25h0m0s is out of range", []string{"use a duration from 0s (no waiting) to 24h, for example --max-retry-wait 5m"}},
		{"answer bound", resolve(sim, check.Settings{MaxAnswerBytes: &tooMany}),
			"--max-answer-bytes 0 is out of range", []string{"use a value from 1024 to 16777216"}},
		{"no provider", resolve(&suite.Suite{Path: "canary.yaml"}, check.Settings{}),
			"no provider given", []string{"pass --provider NAME/MODEL (for example --provider sim/stable), or set provider: or providers: in canary.yaml"}},
		{"base url", resolve(sim, check.Settings{BaseURL: "http://127.0.0.1:1"}),
			"--base-url does not apply to sim/stable", []string{"it sets the API address of openai, anthropic, gemini, ollama and the OpenAI-compatible providers"}},
		{"baseline samples", bsErr, "--baseline-samples 0 is out of range", []string{"use a value from 1 to 10000"}},
		{"current and provider", compare(check.CompareRequest{Current: []*promptcanary.Run{{}}, Targets: []check.Target{{}}}),
			"--current and --provider exclude each other", []string{"compare a saved run with --current, or run now with --provider"}},
		{"two baselines", compare(check.CompareRequest{Baseline: &promptcanary.Baseline{}, BaselineModel: "sim/stable"}),
			"--baseline and --baseline-provider exclude each other", nil},
		{"stream", streamErr, "--stream streams one replay file: run it with exactly one provider, replay/FILE", nil},
	}
	root := (&app{getenv: func(string) string { return "" }}).rootCmd()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fe, ok := errors.AsType[*check.FieldError](tc.err)
			if !ok {
				t.Fatalf("got %T (%v), want a *check.FieldError", tc.err, tc.err)
			}
			got := flagWords(tc.err)
			if got.Error() != tc.msg {
				t.Errorf("got %q, want %q", got.Error(), tc.msg)
			}
			var h hinted
			if errors.As(got, &h); h == nil || !slices.Equal(h.Hints(), tc.hints) {
				t.Errorf("got hints %q, want %q", h.Hints(), tc.hints)
			}
			if exitCode(got) != ExitUsage {
				t.Errorf("got exit code %d, want %d", exitCode(got), ExitUsage)
			}
			for _, f := range fe.Fields() {
				found := false
				for _, name := range []string{"run", "compare"} {
					if c, _, err := root.Find([]string{name}); err == nil && c.Flags().Lookup(flagOf(f)[2:]) != nil {
						found = true
					}
				}
				if !found {
					t.Errorf("field %s: neither run nor compare has a flag %s", f, flagOf(f))
				}
			}
		})
	}
	if plain := errors.New("plain"); flagWords(plain) != plain {
		t.Error("an error without a *check.FieldError was changed")
	}
}
