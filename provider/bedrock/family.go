package bedrock

import (
	"strconv"
	"strings"
)

// family is what this client knows of a model's features in the Converse
// API, by the model id with any inference-profile prefix or ARN removed.
type family struct {
	// vendor is the id's first part: anthropic, meta, amazon, mistral…
	vendor string
	// anthropic: an Anthropic Claude model.
	anthropic bool
	// forceAny and forceTool: the model takes toolChoice {any:{}} and
	// {tool:{name}}. "ToolChoice is only supported by Anthropic Claude 3
	// models and by Mistral AI Mistral Large"; "tool: Only supported by
	// Anthropic Claude 3 and Amazon Nova models."
	// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolChoice.html
	// https://docs.aws.amazon.com/bedrock/latest/userguide/conversation-inference-supported-models-features.html
	// https://docs.aws.amazon.com/nova/latest/userguide/tool-choice.html
	forceAny, forceTool bool
	// structured is the default way a response_format is sent (see
	// structuredFor).
	structured string
}

// regionPrefixes are the geographic prefixes of cross-region inference
// profile ids ("us.anthropic.claude-…").
// https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html
var regionPrefixes = []string{"us", "eu", "apac", "global", "jp", "au", "ca", "us-gov"}

// BaseModel returns the foundation model id inside a model id, an
// inference profile id or an ARN: "us.anthropic.claude-sonnet-4-5-…-v1:0"
// and "arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-…"
// give "anthropic.claude-…". An application inference profile ARN names
// no model and is returned as it is.
func BaseModel(id string) string {
	if strings.HasPrefix(id, "arn:") {
		if i := strings.LastIndexByte(id, '/'); i >= 0 {
			id = id[i+1:]
		}
	}
	if first, rest, ok := strings.Cut(id, "."); ok {
		for _, p := range regionPrefixes {
			if first == p && strings.Contains(rest, ".") {
				return rest
			}
		}
	}
	return id
}

// familyOf returns what is known of model's features.
func familyOf(model string) family {
	base := strings.ToLower(BaseModel(model))
	vendor, name, _ := strings.Cut(base, ".")
	f := family{vendor: vendor, structured: StructuredPrompt}
	switch {
	case vendor == "anthropic":
		f.anthropic, f.forceAny, f.forceTool = true, true, true
		f.structured = StructuredTool
		if claudeNativeJSON(name) {
			f.structured = StructuredNative
		}
	case vendor == "amazon" && strings.HasPrefix(name, "nova"):
		f.forceAny, f.forceTool = true, true
		f.structured = StructuredTool
	case vendor == "mistral" && strings.Contains(name, "large"):
		// Mistral Large forces "any" only; with the schema as the only
		// tool, "any" forces that tool.
		f.forceAny = true
		f.structured = StructuredTool
	case nativeJSONVendors[vendor]:
		f.structured = StructuredNative
	}
	return f
}

// nativeJSONVendors are the open-weight vendors some of whose models
// take outputConfig.textFormat; a model of theirs that does not can be
// given structured_output: prompt.
// https://docs.aws.amazon.com/bedrock/latest/userguide/structured-output.html
var nativeJSONVendors = map[string]bool{"qwen": true, "deepseek": true, "openai": true, "google": true, "nvidia": true, "minimax": true, "moonshot": true, "moonshotai": true}

// claudeNativeJSON reports whether a Claude model (the id after
// "anthropic.") takes outputConfig.textFormat: Claude Haiku 4.5, Sonnet
// 4.5, Opus 4.5, Opus 4.6 and later.
// https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-structured-outputs.html
func claudeNativeJSON(name string) bool {
	major, minor, ok := ClaudeVersion(name)
	return ok && (major > 4 || major == 4 && minor >= 5)
}

// ClaudeVersion reads the version of a Claude model name ("claude-sonnet-
// 4-5-20250929-v1:0" is 4.5, "claude-3-7-sonnet-…" 3.7, "claude-sonnet-4-
// 20250514-v1:0" 4.0), with or without the "anthropic." prefix.
func ClaudeVersion(name string) (major, minor int, ok bool) {
	name = strings.TrimPrefix(strings.ToLower(name), "anthropic.")
	rest, found := strings.CutPrefix(name, "claude-")
	if !found {
		return 0, 0, false
	}
	for _, tier := range []string{"opus-", "sonnet-", "haiku-", "instant-"} {
		rest = strings.TrimPrefix(rest, tier)
	}
	parts := strings.Split(rest, "-")
	major, err := strconv.Atoi(parts[0])
	if err != nil {
		return 0, 0, false
	}
	// A minor version is one or two digits; a date (20250514) is not one.
	if len(parts) > 1 && len(parts[1]) <= 2 {
		if m, err := strconv.Atoi(parts[1]); err == nil {
			minor = m
		}
	}
	return major, minor, true
}
