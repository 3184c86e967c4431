package check

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// paramRules recognise a provider's refusal of a request parameter in a
// call's error message and say which canary.yaml setting fixes it. They
// match the messages as the APIs word them:
//   - OpenAI: "Unsupported parameter: 'max_tokens' is not supported with
//     this model. Use 'max_completion_tokens' instead." and "Unsupported
//     value: 'temperature' does not support 0 with this model. Only the
//     default (1) value is supported."
//     https://platform.openai.com/docs/guides/reasoning
//   - Anthropic: "temperature and top_p cannot both be specified for this
//     model. Please use only one.", "temperature is deprecated for this
//     model" and "`temperature` may only be set to 1 when thinking is
//     enabled", "`max_tokens` must be greater than
//     `thinking.budget_tokens`".
//     https://docs.anthropic.com/en/docs/about-claude/models/migrating-to-claude-4
//   - Gemini (INVALID_ARGUMENT): "Invalid JSON payload received. Unknown
//     name \"topK\" at 'generation_config': Cannot find field."
//     https://ai.google.dev/gemini-api/docs/troubleshooting
//   - Bedrock (ValidationException), for an additionalModelRequestFields
//     key the model does not take (Llama's are only temperature, top_p and
//     max_gen_len): "Malformed input request: #: extraneous key [top_k] is
//     not permitted"; a key with a deeper path ("#/messages/0: …") is not
//     a parameter and gets no hint.
//     https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-meta.html
//     (the wording as users report it: https://github.com/BerriAI/litellm/issues/7416)
var paramRules = []struct {
	re   *regexp.Regexp
	hint func(spec string, m []string) string
}{
	{regexp.MustCompile(`Unsupported parameter: '(max_tokens|max_completion_tokens)'.*?Use '(max_tokens|max_completion_tokens)' instead`),
		func(spec string, m []string) string {
			return fmt.Sprintf("set max_tokens_field: %s in the providers: entry for %s", m[2], spec)
		}},
	{regexp.MustCompile(`Unsupported parameter: '([A-Za-z_.]+)'`), removeParam(1)},
	{regexp.MustCompile(`Unsupported value: '([A-Za-z_.]+)' does not support \S+ with this model\. Only the default \(([^)]*)\) value is supported`),
		func(spec string, m []string) string {
			return fmt.Sprintf("add extra_params: {%s: null} (or %s: %s) to the providers: entry for %s", m[1], m[1], m[2], spec)
		}},
	{regexp.MustCompile("`?([a-z_]+)`? and `?([a-z_]+)`? cannot both be specified"),
		func(spec string, m []string) string {
			return fmt.Sprintf("add extra_params: {%s: null} (or {%s: null}) to the providers: entry for %s", m[2], m[1], spec)
		}},
	{regexp.MustCompile("`?([a-z_]+)`? (?:is deprecated for this model|may only be set to 1 when thinking is enabled)"), removeParam(1)},
	{regexp.MustCompile("`?max_tokens`? must be greater than `?thinking\\.budget_tokens`?"),
		func(spec string, _ []string) string {
			return fmt.Sprintf("raise max_tokens (max_tokens: in canary.yaml or --max-tokens) above the thinking budget, or lower budget_tokens in the extra_params of the providers: entry for %s", spec)
		}},
	{regexp.MustCompile(`Malformed input request: (?:#: )?extraneous key \[([A-Za-z_]+)\] is not permitted`), removeParam(1)},
	{regexp.MustCompile(`Unknown name \\?"([A-Za-z_]+)\\?"`),
		func(spec string, m []string) string {
			return fmt.Sprintf("the API does not know %s: remove it from extra_params, or add extra_params: {%s: null}, in the providers: entry for %s", m[1], m[1], spec)
		}},
}

// removeParam hints at extra_params: {P: null} for the parameter in
// submatch i.
func removeParam(i int) func(spec string, m []string) string {
	return func(spec string, m []string) string {
		return fmt.Sprintf("add extra_params: {%s: null} to the providers: entry for %s", m[i], spec)
	}
}

// ParamHint returns msg, a failed call's error message, ending with a
// hint naming the providers: setting or the extra_params that fixes it
// when msg is a refusal of a request parameter; msg unchanged otherwise,
// and when msg already names its fix (the openai client ends such
// refusals with "(… in canary.yaml)"), so the fix is not said twice.
func ParamHint(spec, msg string) string {
	if strings.Contains(msg, "hint: ") || strings.Contains(msg, " in canary.yaml)") {
		return msg
	}
	for _, r := range paramRules {
		if m := r.re.FindStringSubmatch(msg); m != nil {
			return msg + "; hint: " + r.hint(spec, m)
		}
	}
	return msg
}

// hintErrors adds ParamHint's hint to each of the run's call errors.
func hintErrors(r *promptcanary.Run) {
	for i := range r.Errors {
		e := &r.Errors[i]
		spec := e.Provider
		if spec == "" {
			spec = r.Provider.ModelID
		}
		e.Message = ParamHint(spec, e.Message)
	}
}
