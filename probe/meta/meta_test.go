package meta

import (
	"math"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
	"github.com/promptcanary/promptcanary/suite"
)

// evalCase is one row of a probe's table test.
type evalCase struct {
	name    string
	params  map[string]any
	resp    promptcanary.Response
	pass    bool
	score   float64
	meta    map[string]any // the exact metadata, nil to skip the check
	details string         // a substring the details must contain
}

// runCases builds probe id through the registry for each case and checks
// the evaluated result.
func runCases(t *testing.T, id string, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := probetest.New(t, id, tc.params)
			got := probetest.Eval(p, &promptcanary.Prompt{ID: "p1"}, &tc.resp)
			probetest.CheckResult(t, got, probetest.Want{Passed: tc.pass, Score: tc.score, Meta: tc.meta, Details: tc.details})
		})
	}
}

// list is shorthand for a YAML list of strings as the decoder produces it.
var list = probetest.List

func TestLatency(t *testing.T) {
	max := map[string]any{"max_ms": 1000}
	runCases(t, "latency", []evalCase{
		{name: "within", params: max, resp: promptcanary.Response{LatencyMS: 999.5}, pass: true, score: 1,
			meta: map[string]any{"latency_ms": 999.5, "max_ms": 1000.0, "skipped": false}, details: "Latency 1000 ms is within the 1000 ms limit."},
		{name: "at the limit", params: max, resp: promptcanary.Response{LatencyMS: 1000}, pass: true, score: 1},
		{name: "half over", params: max, resp: promptcanary.Response{LatencyMS: 1500}, pass: false, score: 0.5,
			details: "Latency 1500 ms exceeds the 1000 ms limit (1.5×)."},
		{name: "twice the limit", params: max, resp: promptcanary.Response{LatencyMS: 2000}, pass: false, score: 0},
		{name: "far over", params: max, resp: promptcanary.Response{LatencyMS: 1e9}, pass: false, score: 0},
		{name: "not reported", params: max, resp: promptcanary.Response{}, pass: true, score: 1,
			meta: map[string]any{"latency_ms": 0.0, "max_ms": 1000.0, "skipped": true}, details: "reported no latency"},
		{name: "NaN", params: max, resp: promptcanary.Response{LatencyMS: math.NaN()}, pass: true, score: 1,
			meta: map[string]any{"latency_ms": 0.0, "max_ms": 1000.0, "skipped": true}},
		{name: "negative", params: max, resp: promptcanary.Response{LatencyMS: -3}, pass: true, score: 1, details: "skipped"},
	})
}

func TestTokens(t *testing.T) {
	both := map[string]any{"max_completion_tokens": 100, "max_total_tokens": 300}
	runCases(t, "tokens", []evalCase{
		{name: "within both", params: both, resp: promptcanary.Response{PromptTokens: 150, CompletionTokens: 100, TotalTokens: 250}, pass: true, score: 1,
			meta:    map[string]any{"completion_tokens": 100, "total_tokens": 250, "max_completion_tokens": 100, "max_total_tokens": 300, "skipped": false},
			details: "100 completion tokens and 250 total tokens are within the limits."},
		{name: "completion over", params: both, resp: promptcanary.Response{PromptTokens: 10, CompletionTokens: 150, TotalTokens: 160}, pass: false, score: 0.5,
			details: "150 completion tokens exceed the limit of 100."},
		{name: "the worse limit scores", params: both, resp: promptcanary.Response{PromptTokens: 200, CompletionTokens: 175, TotalTokens: 375}, pass: false, score: 0.25,
			details: "175 completion tokens exceed the limit of 100; 375 total tokens exceed the limit of 300."},
		{name: "total from parts", params: map[string]any{"max_total_tokens": 100}, resp: promptcanary.Response{PromptTokens: 80, CompletionTokens: 40}, pass: false, score: 0.8,
			meta: map[string]any{"completion_tokens": 40, "total_tokens": 120, "max_total_tokens": 100, "skipped": false}},
		{name: "empty answer is counted", params: map[string]any{"max_completion_tokens": 5}, resp: promptcanary.Response{PromptTokens: 8}, pass: true, score: 1},
		{name: "no counts", params: both, resp: promptcanary.Response{Content: "hi"}, pass: true, score: 1,
			meta:    map[string]any{"completion_tokens": 0, "total_tokens": 0, "max_completion_tokens": 100, "max_total_tokens": 300, "skipped": true},
			details: "The provider reported no token counts, so the check was skipped."},
		{name: "negative counts are nonsense", params: both, resp: promptcanary.Response{PromptTokens: -5, CompletionTokens: -1, TotalTokens: -6}, pass: true, score: 1, details: "skipped"},
	})
}

func TestCost(t *testing.T) {
	lim := map[string]any{"max_usd": 0.001}
	// gpt-4o-mini: $0.15 in, $0.60 out per million tokens.
	runCases(t, "cost", []evalCase{
		{name: "within", params: lim, resp: promptcanary.Response{ProviderModelID: "openai/gpt-4o-mini", PromptTokens: 1000, CompletionTokens: 1000}, pass: true, score: 1,
			meta: map[string]any{"provider_model_id": "openai/gpt-4o-mini", "price_known": true, "prompt_tokens": 1000, "completion_tokens": 1000,
				"max_usd": 0.001, "skipped": false, "cost_usd": 0.00075, "usd_per_mtok_input": 0.15, "usd_per_mtok_output": 0.60},
			details: "The call cost $0.000750, within the $0.001 limit."},
		{name: "over", params: lim, resp: promptcanary.Response{ProviderModelID: "openai/gpt-4o-mini", PromptTokens: 1000, CompletionTokens: 2250}, pass: false, score: 0.5,
			details: "The call cost $0.001500, over the $0.001 limit (1.5×)."},
		{name: "dated snapshot finds its family", params: lim, resp: promptcanary.Response{ProviderModelID: "openai/gpt-4o-2024-08-06", PromptTokens: 1000, CompletionTokens: 1000}, pass: false, score: 0},
		{name: "free provider", params: lim, resp: promptcanary.Response{ProviderModelID: "ollama/llama3", PromptTokens: 1e6, CompletionTokens: 1e6}, pass: true, score: 1},
		{name: "price unknown", params: lim, resp: promptcanary.Response{ProviderModelID: "acme/brain-9", PromptTokens: 1e6, CompletionTokens: 1e6}, pass: true, score: 1,
			meta: map[string]any{"provider_model_id": "acme/brain-9", "price_known": false, "prompt_tokens": 1000000, "completion_tokens": 1000000,
				"max_usd": 0.001, "skipped": true},
			details: `Price unknown for "acme/brain-9", so the cost was not checked.`},
		{name: "no model id", params: lim, resp: promptcanary.Response{PromptTokens: 10}, pass: true, score: 1, details: "Price unknown"},
		{name: "no token counts", params: lim, resp: promptcanary.Response{ProviderModelID: "openai/gpt-4o", TotalTokens: 50}, pass: true, score: 1,
			details: "no prompt or completion token counts"},
	})
}

// TestCostUsesSuitePrices checks that prices: in canary.yaml price a model
// the built-in table does not know, and override one it does.
func TestCostUsesSuitePrices(t *testing.T) {
	st, err := suite.Parse("canary.yaml", []byte(`
prices:
  acme/brain-9: {input: 1, output: 2}
  gpt-4o-mini: {input: 10, output: 10}
probes: [{type: cost, max_usd: 0.01}]
prompts: [{id: p, text: hi}]
`))
	if err != nil {
		t.Fatal(err)
	}
	p := st.Probes[0].Probe
	tests := []struct {
		model   string
		cost    any
		passed  bool
		details string
	}{
		// 1,000 × $1 + 2,000 × $2 per million tokens.
		{"acme/brain-9", 0.005, true, "The call cost $0.005000, within the $0.01 limit."},
		// The override, not the list price ($0.15 and $0.60).
		{"openai/gpt-4o-mini", 0.03, false, "The call cost $0.030000, over the $0.01 limit (3.0×)."},
		// Models prices: does not name keep the table's price.
		{"openai/gpt-4o", 0.0225, false, "The call cost $0.022500, over the $0.01 limit (2.2×)."},
	}
	for _, tc := range tests {
		// Twice: the second lookup is the probe's cached one.
		for range 2 {
			res := probetest.Eval(p, &st.Prompts[0], &promptcanary.Response{ProviderModelID: tc.model, PromptTokens: 1000, CompletionTokens: 2000})
			if res.Passed != tc.passed || res.Details != tc.details || res.Metadata["price_known"] != true {
				t.Errorf("%s: got passed %v, details %q, price_known %v; want %v, %q, true", tc.model, res.Passed, res.Details, res.Metadata["price_known"], tc.passed, tc.details)
			}
			if got := res.Metadata["cost_usd"].(float64); math.Abs(got-tc.cost.(float64)) > 1e-12 {
				t.Errorf("%s: cost_usd %v, want %v", tc.model, got, tc.cost)
			}
		}
	}
}

func TestFinishReason(t *testing.T) {
	allowed := map[string]any{"allowed": list("stop", "end_turn")}
	forbidden := map[string]any{"forbidden": list("length", "max_tokens")}
	runCases(t, "finish_reason", []evalCase{
		{name: "allowed", params: allowed, resp: promptcanary.Response{FinishReason: "stop"}, pass: true, score: 1,
			meta: map[string]any{"finish_reason": "stop", "skipped": false}, details: `Finish reason "stop" is allowed.`},
		{name: "allowed ignoring case", params: allowed, resp: promptcanary.Response{FinishReason: "STOP"}, pass: true, score: 1},
		{name: "not allowed", params: allowed, resp: promptcanary.Response{FinishReason: "length"}, pass: false, score: 0,
			details: `Finish reason "length" is not among the allowed "stop", "end_turn".`},
		{name: "whole words only", params: allowed, resp: promptcanary.Response{FinishReason: "stop_sequence"}, pass: false, score: 0},
		{name: "forbidden", params: forbidden, resp: promptcanary.Response{FinishReason: "MAX_TOKENS"}, pass: false, score: 0,
			details: `Finish reason "MAX_TOKENS" is forbidden.`},
		{name: "not forbidden", params: forbidden, resp: promptcanary.Response{FinishReason: "tool_calls"}, pass: true, score: 1,
			details: `Finish reason "tool_calls" is not forbidden.`},
		{name: "not reported", params: allowed, resp: promptcanary.Response{}, pass: true, score: 1,
			meta: map[string]any{"finish_reason": "", "skipped": true}, details: "reported no finish reason"},
	})
}

// TestConfigErrors loads suites with each configuration mistake and checks
// the exact problems and hints.
func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // Error() and hint of each problem, alternating
	}{
		{"latency without max_ms", "probes: [latency]\nprompts: [hi]\n", []string{
			"canary.yaml:1: probes[0] (latency).max_ms: required parameter is missing",
			"longest acceptable latency in milliseconds; the score falls to 0 at twice this",
		}},
		{"latency max_ms 0", "probes:\n  - type: latency\n    max_ms: 0\nprompts: [hi]\n", []string{
			"canary.yaml:3: probes[0] (latency).max_ms: must be a finite number > 0, got 0",
			"the longest acceptable latency in milliseconds, for example max_ms: 8000",
		}},
		{"tokens with nothing", "probes:\n  - type: tokens\nprompts: [hi]\n", []string{
			"canary.yaml:2: probes[0] (tokens): nothing to check: set max_completion_tokens, max_total_tokens or both",
			"for example max_completion_tokens: 400",
		}},
		{"tokens with bad limits", "probes:\n  - type: tokens\n    max_completion_tokens: 0\n    max_total_tokens: -1\nprompts: [hi]\n", []string{
			"canary.yaml:3: probes[0] (tokens).max_completion_tokens: must be > 0, got 0",
			"omit max_completion_tokens for no limit on the answer",
			"canary.yaml:4: probes[0] (tokens).max_total_tokens: must be > 0, got -1",
			"omit max_total_tokens for no limit on the call",
		}},
		{"cost with a string", "probes:\n  - type: cost\n    max_usd: cheap\nprompts: [hi]\n", []string{
			`canary.yaml:3: probes[0] (cost).max_usd: must be a number, got string "cheap"`,
			"most one call may cost, in US dollars; the score falls to 0 at twice this",
		}},
		{"cost negative", "probes:\n  - type: cost\n    max_usd: -0.01\nprompts: [hi]\n", []string{
			"canary.yaml:3: probes[0] (cost).max_usd: must be a finite number > 0, got -0.01",
			"the most one call may cost in US dollars, for example max_usd: 0.002",
		}},
		{"finish_reason with nothing", "probes:\n  - type: finish_reason\n    allowed: []\nprompts: [hi]\n", []string{
			"canary.yaml:2: probes[0] (finish_reason): nothing to check: allowed and forbidden are both empty",
			"list the reasons that pass, for example allowed: [stop], or those that fail, for example forbidden: [length, content_filter]",
		}},
		{"finish_reason with both", "probes:\n  - type: finish_reason\n    allowed: [stop]\n    forbidden: [length, ' ', LENGTH]\nprompts: [hi]\n", []string{
			"canary.yaml:4: probes[0] (finish_reason).forbidden: set allowed or forbidden, not both",
			"allowed already rejects every other reason; remove forbidden, or use a second finish_reason probe",
			"canary.yaml:4: probes[0] (finish_reason).forbidden[1]: must not be empty",
			"a response without a finish reason is skipped; list reasons such as stop or length",
			`canary.yaml:4: probes[0] (finish_reason).forbidden[2]: reason "LENGTH" repeats forbidden[0]`,
			"reasons are compared ignoring case; list each once",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := probetest.Problems(t, "", "canary.yaml", tc.yaml); !slices.Equal(got, tc.want) {
				t.Errorf("problems:\ngot  %q\nwant %q", got, tc.want)
			}
		})
	}
}
