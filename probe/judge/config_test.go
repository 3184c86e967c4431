package judge

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"
	// The judge must name a registered provider.
	_ "github.com/promptcanary/promptcanary/provider/builtin"
)

// TestConfigErrors loads each testdata/invalid-*.yaml suite and checks the
// exact problems and hints a user sees.
func TestConfigErrors(t *testing.T) {
	const scaleHint = "for example scale: {min: 1, max: 5}"
	probetest.CheckInvalidFiles(t, []probetest.Invalid{
		{File: "invalid-judge.yaml", Want: []string{
			`invalid-judge.yaml:3: probes[0] (llm_judge).judge: must be NAME/MODEL, got "openai:gpt-4o-mini"`, "did you mean openai/gpt-4o-mini?",
			`invalid-judge.yaml:6: probes[1] (llm_judge).judge: unknown provider "opneai"`,
			"did you mean openai? known providers: anthropic, azure, exec, gemini, groq, hosted_vllm, http, mistral, ollama, openai, openrouter, replay, sim, together, vertex, xai",
			"invalid-judge.yaml:8: probes[2] (llm_judge).judge: required parameter is missing",
			"the model that grades, NAME/MODEL, for example openai/gpt-4o-mini; a judges: entry for it gives its settings, rate limits and timeout",
		}},
		{File: "invalid-judges.yaml", Want: []string{
			`invalid-judges.yaml:2: judges[0] (openai/gpt-4o-mini): open provider openai/gpt-4o-mini: openai: base URL "ftp://nope": want an http or https URL such as https://api.openai.com/v1`,
			"judges: entries take the settings of providers: entries (base_url, api_key_env, headers, …) and rpm, tpm and timeout",
			"invalid-judges.yaml:4: judges[0].rpm: out of range: got 0, allowed 1 to 1000000000", "use a value from 1 to 1000000000",
			"invalid-judges.yaml:5: judges[1] (anthropic/claude-haiku-4-5): no probe calls this judge",
			"name it in an llm_judge probe (judge: anthropic/claude-haiku-4-5), or remove the entry",
			"invalid-judges.yaml:6: judges[2].id: required field is missing", "name the provider, for example id: openai/gpt-4o-mini or id: http/my-app",
			`invalid-judges.yaml:7: judges[3].id: duplicate provider "openai/gpt-4o-mini" (also at line 2)`, "list each provider once",
		}},
		{File: "invalid-numbers.yaml", Want: []string{
			"invalid-numbers.yaml:5: probes[0] (llm_judge).pass_at: must be above scale.min 1 and at most scale.max 5, got 1", "the lowest passing grade, for example pass_at: 4",
			"invalid-numbers.yaml:10: probes[1] (llm_judge).pass_at: must be above scale.min 1 and at most scale.max 10, got 11", "the lowest passing grade, for example pass_at: 8",
			"invalid-numbers.yaml:11: probes[1] (llm_judge).temperature: must be from 0 to 2, got 3", "0 grades the same answer the same way most often",
			"invalid-numbers.yaml:12: probes[1] (llm_judge).max_tokens: must be from 16 to 1000000, got 8", "a verdict needs about 100 tokens, for example max_tokens: 512",
			`invalid-numbers.yaml:16: probes[2] (llm_judge).cache: invalid value "forever"`, "use one of: disk, memory, off",
			"invalid-numbers.yaml:19: probes[3] (llm_judge).rubric: must not be empty", "say what a good answer does, for example rubric: names Paris and nothing else",
		}},
		{File: "invalid-prompt.yaml", Want: []string{
			"invalid-prompt.yaml:5: probes[0] (llm_judge).prompt: unknown placeholder {{answer}}",
			"known placeholders: {{prompt}}, {{response}}, {{rubric}}, {{system_prompt}}, {{scale_min}}, {{scale_max}}",
			"invalid-prompt.yaml:9: probes[1] (llm_judge).prompt: the template does not use {{rubric}}", "put {{rubric}} in the template, or the judge never sees the rubric",
			"invalid-prompt.yaml:13: probes[2] (llm_judge).prompt: unclosed {{ in the template",
			"write placeholders as {{name}}, one of {{prompt}}, {{response}}, {{rubric}}, {{system_prompt}}, {{scale_min}}, {{scale_max}}",
		}},
		{File: "invalid-scale.yaml", Want: []string{
			"invalid-scale.yaml:5: probes[0] (llm_judge).scale.max: must be above min (5), got 1", scaleHint,
			"invalid-scale.yaml:9: probes[1] (llm_judge).scale.max: must be a whole number from 0 to 100, got 1000", scaleHint,
			"invalid-scale.yaml:9: probes[1] (llm_judge).scale.step: unknown key", "a scale has min: and max:, for example scale: {min: 1, max: 5}",
			"invalid-scale.yaml:13: probes[2] (llm_judge).scale.min: must be a whole number from 0 to 100, got 1.5", scaleHint,
			"invalid-scale.yaml:17: probes[3] (llm_judge).scale: needs min:", scaleHint,
		}},
	})
}
