package check

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
)

const rulesYAML = `name: rules
probes: [direct_answer]
providers:
  - id: openai/gpt-5
    extra_params: {top_p: 0.9}
  - id: anthropic/claude-sonnet-4-5
    extra_params: {top_p: 0.9}
  - id: openai/gpt-4o-mini
    extra_params: {top_p: 0.9}
  - id: sim/stable
prompts:
  - {id: a, text: hi}
`

func TestResolveAppliesModelRules(t *testing.T) {
	st := loadSuite(t, rulesYAML)
	targets, _ := mustResolve(t, st, Settings{})
	gpt5, claude, mini, sim := targets[0], targets[1], targets[2], targets[3]
	if gpt5.Config.Temperature != 1 || gpt5.Config.ExtraParams["top_p"] != nil {
		t.Errorf("gpt-5 sends %+v, want temperature 1 and no top_p", gpt5.Config)
	}
	if len(gpt5.Adjustments) != 2 || gpt5.Adjustments[0] != "gpt-5 takes no temperature but the default 1: sends 1 instead of 0" {
		t.Errorf("gpt-5 adjustments %q", gpt5.Adjustments)
	}
	if v, ok := claude.Config.ExtraParams["top_p"]; !ok || v != nil || claude.Config.Temperature != 0 || len(claude.Adjustments) != 1 {
		t.Errorf("claude-sonnet-4-5 sends %+v (%q), want temperature 0 and top_p removed", claude.Config, claude.Adjustments)
	}
	if mini.Config.ExtraParams["top_p"] != 0.9 || len(mini.Adjustments) != 0 {
		t.Errorf("gpt-4o-mini sends %+v (%q), want it as asked", mini.Config, mini.Adjustments)
	}
	if len(sim.Adjustments) != 0 || len(sim.Config.ExtraParams) != 0 {
		t.Errorf("sim/stable: %+v %q", sim.Config, sim.Adjustments)
	}
}

func TestResolveWarnsOfAWrongTokenField(t *testing.T) {
	st := loadSuite(t, "name: t\nprobes: [direct_answer]\nproviders:\n  - id: openai/o3\n    max_tokens_field: max_tokens\nprompts:\n  - {id: a, text: hi}\n")
	targets, _ := mustResolve(t, st, Settings{})
	if a, w := targets[0].Adjustments, targets[0].Warnings; len(a) != 1 || len(w) != 1 || !strings.Contains(w[0], "sets max_tokens_field: max_tokens") {
		t.Errorf("adjustments %q, warnings %q: want the token field under warnings", a, w)
	}
}

func TestResolveRefusesABadThinkingBudget(t *testing.T) {
	st := loadSuite(t, "name: t\nprobes: [direct_answer]\nproviders:\n  - id: anthropic/claude-sonnet-4-5\n    extra_params: {thinking: {type: enabled, budget_tokens: 4096}}\nprompts:\n  - {id: a, text: hi}\n")
	_, _, err := Resolve(st, Settings{})
	if err == nil || !strings.Contains(err.Error(), "canary.yaml:4: providers[0] (anthropic/claude-sonnet-4-5): extra_params thinking: budget_tokens 4096 is not below max_tokens 1024") {
		t.Errorf("got %v", err)
	}
	if _, _, err := Resolve(st, Settings{MaxTokens: ptr(8192)}); err != nil {
		t.Errorf("with room for the budget: %v", err)
	}
}

// TestRulesMakeAnOlderBaselineStale: a baseline taken with the parameters
// canary.yaml asked for (temperature 0 on gpt-5, as before the rules) is
// stale against a run that sent what the model takes, not silently
// compared.
func TestRulesMakeAnOlderBaselineStale(t *testing.T) {
	st := loadSuite(t, rulesYAML)
	targets, _ := mustResolve(t, st, Settings{})
	asked := targets[0].Config
	asked.Temperature, asked.ExtraParams = 0, map[string]any{"top_p": 0.9}
	oldPlan, newPlan := st.Plan(asked, 1), st.Plan(targets[0].Config, 1)
	base := &promptcanary.Run{PromptHashes: oldPlan.PromptHashes, ConfigHash: oldPlan.ConfigHash}
	cur := &promptcanary.Run{PromptHashes: newPlan.PromptHashes, ConfigHash: newPlan.ConfigHash}
	if stale := stalePrompts(base, cur); !stale["a"] {
		t.Errorf("prompt a is not stale: %v", stale)
	}
	if base.ConfigHash == cur.ConfigHash {
		t.Error("the config hash ignores the parameters sent")
	}
}

// failing answers every call with err.
type failing struct {
	provider.Provider
	err error
}

func (f failing) Generate(context.Context, *provider.Request) (*promptcanary.Response, error) {
	return nil, f.err
}

func TestExecuteRecordsAdjustmentsAndHints(t *testing.T) {
	st := loadSuite(t, rulesYAML)
	targets, _, err := Resolve(st, Settings{Getenv: func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "sk-test"
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	targets = targets[:1]
	refusal := &provider.Error{StatusCode: 400, Message: "invalid_request_error: Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}
	x := Exec{Settings: Settings{Retries: ptr(0)}, Wrap: func(_ string, p provider.Provider) provider.Provider { return failing{p, refusal} }}
	runs, err := Execute(context.Background(), st, targets, 1, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	r := runs[0]
	if !reflect.DeepEqual(r.Adjustments, targets[0].Adjustments) || r.Provider.Temperature != 1 {
		t.Errorf("run records %q and temperature %v", r.Adjustments, r.Provider.Temperature)
	}
	if len(r.Errors) != 1 || !strings.HasSuffix(r.Errors[0].Message, "; hint: set max_tokens_field: max_completion_tokens in the providers: entry for openai/gpt-5") {
		t.Errorf("errors %+v", r.Errors)
	}
}

func TestParamHint(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"HTTP 400: invalid_request_error: Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
			"add extra_params: {temperature: null} (or temperature: 1) to the providers: entry for X"},
		{"HTTP 400: invalid_request_error: Unsupported parameter: 'top_p' is not supported with this model.",
			"add extra_params: {top_p: null} to the providers: entry for X"},
		{"HTTP 400: invalid_request_error: temperature and top_p cannot both be specified for this model. Please use only one.",
			"add extra_params: {top_p: null} (or {temperature: null}) to the providers: entry for X"},
		{"HTTP 400: invalid_request_error: temperature is deprecated for this model.",
			"add extra_params: {temperature: null} to the providers: entry for X"},
		{"HTTP 400: invalid_request_error: `temperature` may only be set to 1 when thinking is enabled.",
			"add extra_params: {temperature: null} to the providers: entry for X"},
		{"HTTP 400: invalid_request_error: `max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation",
			"raise max_tokens (max_tokens: in canary.yaml or --max-tokens) above the thinking budget, or lower budget_tokens in the extra_params of the providers: entry for X"},
		{"HTTP 400: ValidationException: The model returned the following errors: Malformed input request: #: extraneous key [top_k] is not permitted, please reformat your input and try again.",
			"add extra_params: {top_k: null} to the providers: entry for X"},
		{"HTTP 400: ValidationException: The model returned the following errors: Malformed input request: extraneous key [top_k] is not permitted, please reformat your input and try again.",
			"add extra_params: {top_k: null} to the providers: entry for X"},
		{`HTTP 400: INVALID_ARGUMENT: Invalid JSON payload received. Unknown name "topK" at 'generation_config': Cannot find field.`,
			"the API does not know topK: remove it from extra_params, or add extra_params: {topK: null}, in the providers: entry for X"},
	} {
		got := ParamHint("X", tc.msg)
		if want := tc.msg + "; hint: " + tc.want; got != want {
			t.Errorf("ParamHint(%q)\n got %q\nwant %q", tc.msg, got, want)
		}
	}
	for _, msg := range []string{"HTTP 429: rate limited", "HTTP 400: bad; hint: already one",
		// a nested key is no parameter
		"HTTP 400: ValidationException: Malformed input request: #/messages/0/content/0: extraneous key [type] is not permitted, please reformat your input and try again.",
		// the openai client's own hint: one is enough
		"HTTP 400: invalid_request_error: Unsupported parameter: 'presence_penalty' is not supported with this model. (the model refuses presence_penalty: remove it with extra_params: {presence_penalty: null} in canary.yaml)"} {
		if got := ParamHint("X", msg); got != msg {
			t.Errorf("ParamHint(%q) = %q", msg, got)
		}
	}
}

// TestResolveReportsEveryBadProvider: two providers: entries the model
// rules refuse are both reported at once, each at its line, as every
// other mistake in canary.yaml is (the second was only found after the
// first was fixed).
func TestResolveReportsEveryBadProvider(t *testing.T) {
	st := loadSuite(t, "name: t\nprobes: [direct_answer]\nproviders:\n"+
		"  - id: anthropic/claude-sonnet-4-5\n    extra_params: {thinking: {type: enabled, budget_tokens: 500}}\n"+
		"  - id: gemini/gemini-2.5-pro\n    extra_params: {thinkingConfig: {thinkingBudget: 0}}\n"+
		"prompts:\n  - {id: a, text: hi}\n")
	_, _, err := Resolve(st, Settings{})
	if !IsConfig(err) {
		t.Fatalf("got %v, want a configuration error", err)
	}
	for _, want := range []string{"canary.yaml:4: providers[0] (anthropic/claude-sonnet-4-5): extra_params thinking: budget_tokens 500", "canary.yaml:6: providers[1] (gemini/gemini-2.5-pro): extra_params thinkingBudget 0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got %v, want it to hold %q", err, want)
		}
	}
}
