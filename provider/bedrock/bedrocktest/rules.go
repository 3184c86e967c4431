package bedrocktest

import (
	"fmt"
	"strings"
)

// vendorOf is the vendor part of a model id: anthropic, meta, amazon…
func vendorOf(model string) string {
	v, _, _ := strings.Cut(baseModel(model), ".")
	return v
}

// forceAny and forceTool: which models take toolChoice any and tool.
// "ToolChoice is only supported by Anthropic Claude 3 models and by
// Mistral AI Mistral Large"; "tool: Only supported by Anthropic Claude 3
// and Amazon Nova models."
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolChoice.html
func forceAny(model string) bool {
	b := baseModel(model)
	return strings.HasPrefix(b, "anthropic.") || strings.HasPrefix(b, "amazon.nova") || strings.HasPrefix(b, "mistral.mistral-large")
}

func forceTool(model string) bool {
	b := baseModel(model)
	return strings.HasPrefix(b, "anthropic.") || strings.HasPrefix(b, "amazon.nova")
}

// toolUse reports whether a model takes tools at all: Meta Llama 3.0
// (llama3-8b/70b) and the Titan text models do not.
// https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-supported-models-features.html
func toolUse(model string) bool {
	b := baseModel(model)
	return !strings.HasPrefix(b, "meta.llama3-8b") && !strings.HasPrefix(b, "meta.llama3-70b") && !strings.HasPrefix(b, "amazon.titan")
}

// checkToolConfig checks toolConfig and returns its tool names (nil when
// there is no toolConfig): a non-empty list of toolSpec {name,
// description?, inputSchema {json: object}} with distinct names, and a
// toolChoice of exactly one of auto, any and tool {name} that the model
// takes.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolConfiguration.html
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html
func checkToolConfig(model string, v any) ([]string, string) {
	if v == nil {
		return nil, ""
	}
	tc, ok := v.(map[string]any)
	tools, _ := tc["tools"].([]any)
	if !ok || len(tools) == 0 {
		return nil, "1 validation error detected: Value at 'toolConfig.tools' failed to satisfy constraint: Member must have length greater than or equal to 1"
	}
	if !toolUse(model) {
		return nil, "This model doesn't support tool use."
	}
	for k := range tc {
		if k != "tools" && k != "toolChoice" {
			return nil, fmt.Sprintf("Unknown field %q in toolConfig", k)
		}
	}
	names := []string{}
	for i, tv := range tools {
		t, _ := tv.(map[string]any)
		spec, _ := t["toolSpec"].(map[string]any)
		if spec == nil {
			if t["cachePoint"] != nil && len(t) == 1 {
				continue
			}
			return nil, fmt.Sprintf("toolConfig.tools.%d must hold a toolSpec", i)
		}
		if msg := checkSpec(i, spec, names); msg != "" {
			return nil, msg
		}
		names = append(names, spec["name"].(string))
	}
	return names, checkChoice(model, tc["toolChoice"], names)
}

func checkSpec(i int, spec map[string]any, names []string) string {
	name, _ := spec["name"].(string)
	schema, _ := spec["inputSchema"].(map[string]any)
	js, isObj := schema["json"].(map[string]any)
	for k := range spec {
		if k != "name" && k != "description" && k != "inputSchema" && k != "strict" {
			return fmt.Sprintf("Unknown field %q in toolConfig.tools.%d.toolSpec", k, i)
		}
	}
	switch {
	case !toolNamePattern.MatchString(name):
		return fmt.Sprintf("1 validation error detected: Value '%s' at 'toolConfig.tools.%d.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+", name, i+1)
	case contains(names, name):
		return "The tool names in toolConfig.tools must be unique: " + name
	case !isObj || js["type"] != "object":
		return fmt.Sprintf("toolConfig.tools.%d.toolSpec.inputSchema.json must be a JSON schema of type object", i)
	}
	if d, ok := spec["description"]; ok {
		if s, isStr := d.(string); !isStr || s == "" {
			return fmt.Sprintf("toolConfig.tools.%d.toolSpec.description must be a non-empty string", i)
		}
	}
	return ""
}

// checkChoice checks toolChoice against the model (see forceAny).
func checkChoice(model string, v any, names []string) string {
	if v == nil {
		return ""
	}
	c, ok := v.(map[string]any)
	if !ok || len(c) != 1 {
		return "toolConfig.toolChoice must hold exactly one of auto, any and tool"
	}
	switch {
	case c["auto"] != nil:
		return ""
	case c["any"] != nil:
		if !forceAny(model) {
			return "This model doesn't support the toolConfig.toolChoice.any field. Remove toolConfig.toolChoice.any and try again."
		}
	case c["tool"] != nil:
		t, _ := c["tool"].(map[string]any)
		name, _ := t["name"].(string)
		if !forceTool(model) {
			return "This model doesn't support the toolConfig.toolChoice.tool field. Remove toolConfig.toolChoice.tool and try again."
		}
		if !contains(names, name) {
			return fmt.Sprintf("toolConfig.toolChoice.tool.name %q names no tool of toolConfig.tools", name)
		}
	default:
		return "toolConfig.toolChoice must hold exactly one of auto, any and tool"
	}
	return ""
}

// checkModelRules applies the model's own rules, which Bedrock reports as
// "The model returned the following errors: …":
//   - Claude Opus 4.1 and the 4.5 models and later take temperature or
//     top_p, not both ("`temperature` and `top_p` cannot both be specified
//     for this model. Please use only one.").
//     https://docs.claude.com/en/docs/about-claude/models/migrating-to-claude-4
//   - With Claude's extended thinking, temperature may only be 1, top_k
//     is refused, and budget_tokens is at least 1024 and below max_tokens.
//     https://docs.claude.com/en/docs/build-with-claude/extended-thinking
//   - Llama's only parameters are temperature, top_p and max_gen_len (at
//     most 2048), all in inferenceConfig: any additional field is refused.
//     https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-meta.html
//   - maxTokens is at most the model's output limit (Claude Opus 4 and 4.1
//     32,000, other Claude 4.x and 3.7 64,000, 3.5 8,192, 3 4,096).
//     https://docs.claude.com/en/docs/about-claude/models/overview
func checkModelRules(model string, req map[string]any) string {
	ic, _ := req["inferenceConfig"].(map[string]any)
	extra, _ := req["additionalModelRequestFields"].(map[string]any)
	if req["additionalModelRequestFields"] != nil && extra == nil {
		return "additionalModelRequestFields must be a JSON object"
	}
	if limit := outputLimit(model); limit > 0 {
		if n, ok := ic["maxTokens"].(float64); ok && int(n) > limit {
			return fmt.Sprintf("The maximum tokens you requested exceeds the model limit of %d. Try again with a maximum tokens value that is lower than %d.", limit, limit)
		}
	}
	const prefix = "The model returned the following errors: "
	switch vendorOf(model) {
	case "anthropic":
		major, minor, _ := claudeVersion(baseModel(model))
		_, hasT := ic["temperature"]
		_, hasP := ic["topP"]
		if hasT && hasP && (major > 4 || major == 4 && minor >= 1) {
			return prefix + "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
		}
		if msg := checkThinking(prefix, ic, extra); msg != "" {
			return msg
		}
		// "Thinking may not be enabled when tool_choice forces tool use."
		// https://docs.claude.com/en/docs/build-with-claude/extended-thinking#extended-thinking-with-tool-use
		tc, _ := req["toolConfig"].(map[string]any)
		choice, _ := tc["toolChoice"].(map[string]any)
		if t, _ := extra["thinking"].(map[string]any); t != nil && t["type"] == "enabled" && (choice["any"] != nil || choice["tool"] != nil) {
			return prefix + "Thinking may not be enabled when tool_choice forces tool use."
		}
	case "meta":
		for k := range extra {
			return prefix + "Malformed input request: extraneous key [" + k + "] is not permitted, please reformat your input and try again."
		}
	}
	return ""
}

// checkThinking applies extended thinking's rules.
func checkThinking(prefix string, ic, extra map[string]any) string {
	t, _ := extra["thinking"].(map[string]any)
	if t == nil || t["type"] != "enabled" {
		return ""
	}
	budget, _ := t["budget_tokens"].(float64)
	maxTokens, hasMax := ic["maxTokens"].(float64)
	switch temp, hasT := ic["temperature"].(float64); {
	case hasT && temp != 1:
		return prefix + "`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#important-considerations-when-using-extended-thinking"
	case extra["top_k"] != nil:
		return prefix + "`top_k` must be unset when thinking is enabled."
	case budget < 1024:
		return prefix + "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
	case hasMax && budget >= maxTokens:
		return prefix + "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size"
	}
	return ""
}

// outputLimit is a model's largest maxTokens, 0 when unknown here.
func outputLimit(model string) int {
	b := baseModel(model)
	if strings.HasPrefix(b, "meta.llama") {
		return 2048
	}
	major, minor, ok := claudeVersion(b)
	switch {
	case !ok:
		return 0
	case major == 4 && minor <= 1 && strings.Contains(b, "opus"):
		return 32000
	case major >= 4 || major == 3 && minor == 7:
		return 64000
	case major == 3 && minor == 5:
		return 8192
	}
	return 4096
}
