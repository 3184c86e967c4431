package bedrocktest

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The Converse request's members.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_RequestSyntax
var requestMembers = []string{"messages", "system", "inferenceConfig", "toolConfig", "guardrailConfig", "additionalModelRequestFields",
	"promptVariables", "additionalModelResponseFieldPaths", "requestMetadata", "performanceConfig", "serviceTier", "outputConfig"}

// Patterns of the API reference: a tool name and a tool use id.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolUseBlock.html
var (
	toolNamePattern  = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	toolUseIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	// modelIDPattern: vendor.model-…[:version], with an optional
	// geographic inference-profile prefix, or an ARN.
	modelIDPattern = regexp.MustCompile(`^(arn:aws(-[a-z]+)?:bedrock:[a-z0-9-]*:[0-9]{0,12}:[a-z-]+/[A-Za-z0-9.:_-]+|([a-z-]+\.)?[a-z0-9-]+\.[a-z0-9.-]+(:[0-9]+)?(:[a-z0-9]+)?)$`)
)

// validate returns the ValidationException message for a request the
// real API refuses, "" for an accepted one. Unknown members are refused
// too: Bedrock may ignore them, and a misspelled member silently lost
// there would make a test prove nothing.
func validate(model string, req map[string]any) string {
	if !modelIDPattern.MatchString(model) {
		return "The provided model identifier is invalid."
	}
	if msg := profileOnly(model); msg != "" {
		return msg
	}
	for k := range req {
		if !slices.Contains(requestMembers, k) {
			return fmt.Sprintf("Unknown field %q in the request body", k)
		}
	}
	tools, msg := checkToolConfig(model, req["toolConfig"])
	if msg != "" {
		return msg
	}
	for _, check := range []func() string{
		func() string { return checkMessages(req["messages"], tools) },
		func() string { return checkSystem(req["system"]) },
		func() string { return checkInference(req["inferenceConfig"]) },
		func() string { return checkOutput(model, req["outputConfig"]) },
		func() string { return checkModelRules(model, req) },
	} {
		if msg := check(); msg != "" {
			return msg
		}
	}
	return ""
}

// profileOnly refuses a bare foundation model id that Bedrock serves only
// through inference profiles (Claude 3.7 and later, Llama 3.2 and later):
// "Invocation of model ID … with on-demand throughput isn't supported."
// https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html
func profileOnly(model string) string {
	if baseModel(model) != model || strings.HasPrefix(model, "arn:") {
		return ""
	}
	name := strings.ToLower(model)
	major, minor, claude := claudeVersion(name)
	llama := regexp.MustCompile(`^meta\.llama(3-[2-9]|[4-9])`).MatchString(name)
	if claude && (major > 3 || major == 3 && minor >= 7) || llama {
		return "Invocation of model ID " + model + " with on-demand throughput isn’t supported. Retry your request with the ID or ARN of an inference profile that contains this model."
	}
	return ""
}

// checkMessages checks the conversation: it starts with a user message,
// the roles alternate, every block holds one member, no text is blank,
// toolUse and toolResult need a toolConfig, and every toolResult answers
// a toolUse of the assistant message before it.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ContentBlock.html
func checkMessages(v any, tools []string) string {
	msgs, ok := v.([]any)
	if !ok || len(msgs) == 0 {
		return "1 validation error detected: Value at 'messages' failed to satisfy constraint: Member must not be null and must not be empty"
	}
	var prevUses []string
	for i, mv := range msgs {
		m, ok := mv.(map[string]any)
		if !ok {
			return fmt.Sprintf("messages.%d must be an object", i)
		}
		role, _ := m["role"].(string)
		switch {
		case role != "user" && role != "assistant":
			return fmt.Sprintf("1 validation error detected: Value '%v' at 'messages.%d.member.role' failed to satisfy constraint: Member must satisfy enum value set: [user, assistant]", m["role"], i+1)
		case i == 0 && role != "user":
			return "A conversation must start with a user message. Try again with a conversation that starts with a user message."
		case i > 0 && msgs[i-1].(map[string]any)["role"] == role:
			return "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again."
		}
		uses, msg := checkBlocks(i, m["content"], tools, prevUses)
		if msg != "" {
			return msg
		}
		prevUses = uses
	}
	return ""
}

// checkBlocks checks message i's content and returns its toolUse ids.
func checkBlocks(i int, v any, tools, prevUses []string) ([]string, string) {
	blocks, ok := v.([]any)
	if !ok || len(blocks) == 0 {
		return nil, fmt.Sprintf("1 validation error detected: Value at 'messages.%d.member.content' failed to satisfy constraint: Member must not be null and must have length greater than or equal to 1", i+1)
	}
	var uses []string
	for j, bv := range blocks {
		b, ok := bv.(map[string]any)
		if !ok || len(b) != 1 {
			return nil, fmt.Sprintf("messages.%d.content.%d must hold exactly one of text, toolUse, toolResult, image, document, reasoningContent…", i, j)
		}
		switch {
		case b["text"] != nil:
			if s, ok := b["text"].(string); !ok || strings.TrimSpace(s) == "" {
				return nil, fmt.Sprintf("The text field in the ContentBlock object at messages.%d.content.%d is blank. Add text to the text field, and try again.", i, j)
			}
		case b["toolUse"] != nil:
			id, msg := checkToolUse(i, j, b["toolUse"], tools)
			if msg != "" {
				return nil, msg
			}
			uses = append(uses, id)
		case b["toolResult"] != nil:
			if msg := checkToolResult(i, j, b["toolResult"], tools, prevUses); msg != "" {
				return nil, msg
			}
		case b["reasoningContent"] != nil, b["image"] != nil, b["document"] != nil, b["cachePoint"] != nil, b["guardContent"] != nil:
		default:
			return nil, fmt.Sprintf("messages.%d.content.%d: unknown content block", i, j)
		}
	}
	return uses, ""
}

func checkToolUse(i, j int, v any, tools []string) (string, string) {
	tu, _ := v.(map[string]any)
	id, _ := tu["toolUseId"].(string)
	name, _ := tu["name"].(string)
	_, isObj := tu["input"].(map[string]any)
	switch {
	case tools == nil:
		return "", "The toolConfig field must be defined when using toolUse and toolResult content blocks."
	case !toolUseIDPattern.MatchString(id):
		return "", fmt.Sprintf("messages.%d.content.%d.toolUse.toolUseId must match [a-zA-Z0-9_-]{1,64}", i, j)
	case !toolNamePattern.MatchString(name):
		return "", fmt.Sprintf("messages.%d.content.%d.toolUse.name must match [a-zA-Z0-9_-]{1,64}", i, j)
	case !isObj:
		return "", fmt.Sprintf("messages.%d.content.%d.toolUse.input must be a JSON object", i, j)
	}
	return id, ""
}

func checkToolResult(i, j int, v any, tools, prevUses []string) string {
	tr, _ := v.(map[string]any)
	id, _ := tr["toolUseId"].(string)
	content, _ := tr["content"].([]any)
	switch {
	case tools == nil:
		return "The toolConfig field must be defined when using toolUse and toolResult content blocks."
	case !slices.Contains(prevUses, id):
		return fmt.Sprintf("messages.%d.content.%d: the toolResult's toolUseId %q matches no toolUse block of the previous assistant message.", i, j, id)
	case content == nil:
		return fmt.Sprintf("messages.%d.content.%d.toolResult.content must be a list", i, j)
	}
	for _, cv := range content {
		c, _ := cv.(map[string]any)
		if s, ok := c["text"].(string); ok && strings.TrimSpace(s) == "" || len(c) != 1 {
			return fmt.Sprintf("messages.%d.content.%d.toolResult.content holds a blank or malformed block", i, j)
		}
	}
	return ""
}

// checkSystem: a list of {text} blocks (or cache points), none blank.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_SystemContentBlock.html
func checkSystem(v any) string {
	if v == nil {
		return ""
	}
	list, ok := v.([]any)
	if !ok {
		return "system must be a list of SystemContentBlock objects"
	}
	for i, bv := range list {
		b, _ := bv.(map[string]any)
		s, isText := b["text"].(string)
		if len(b) != 1 || isText && strings.TrimSpace(s) == "" || !isText && b["cachePoint"] == nil && b["guardContent"] == nil {
			return fmt.Sprintf("system.%d must be a SystemContentBlock with non-empty text", i)
		}
	}
	return ""
}

// checkInference: maxTokens >= 1, temperature and topP in [0, 1], at most
// 2500 non-empty stop sequences, nothing else.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InferenceConfiguration.html
func checkInference(v any) string {
	if v == nil {
		return ""
	}
	ic, ok := v.(map[string]any)
	if !ok {
		return "inferenceConfig must be an object"
	}
	for k, val := range ic {
		n, isNum := val.(float64)
		switch k {
		case "maxTokens":
			if !isNum || n < 1 || n != float64(int64(n)) {
				return fmt.Sprintf("1 validation error detected: Value '%v' at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1", val)
			}
		case "temperature", "topP":
			if !isNum || n < 0 || n > 1 {
				return fmt.Sprintf("1 validation error detected: Value '%v' at 'inferenceConfig.%s' failed to satisfy constraint: Member must have value less than or equal to 1", val, k)
			}
		case "stopSequences":
			list, ok := val.([]any)
			if !ok || len(list) > 2500 {
				return "inferenceConfig.stopSequences must be a list of at most 2500 strings"
			}
			for _, s := range list {
				if str, ok := s.(string); !ok || str == "" {
					return "inferenceConfig.stopSequences members must be non-empty strings"
				}
			}
		default:
			return fmt.Sprintf("Unknown field %q in inferenceConfig", k)
		}
	}
	return ""
}

// checkOutput: outputConfig.textFormat {type: json_schema, structure:
// {jsonSchema: {schema: a JSON string}}}, for a model that takes it.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_OutputFormat.html
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_JsonSchemaDefinition.html
func checkOutput(model string, v any) string {
	if v == nil {
		return ""
	}
	oc, _ := v.(map[string]any)
	tf, _ := oc["textFormat"].(map[string]any)
	st, _ := tf["structure"].(map[string]any)
	js, _ := st["jsonSchema"].(map[string]any)
	schema, isString := js["schema"].(string)
	switch {
	case tf == nil:
		return "outputConfig.textFormat is required"
	case tf["type"] != "json_schema":
		return fmt.Sprintf("1 validation error detected: Value '%v' at 'outputConfig.textFormat.type' failed to satisfy constraint: Member must satisfy enum value set: [json_schema]", tf["type"])
	case !isString:
		return "outputConfig.textFormat.structure.jsonSchema.schema must be a string holding a JSON schema"
	case !json.Valid([]byte(schema)):
		return "outputConfig.textFormat.structure.jsonSchema.schema is not valid JSON"
	case !nativeJSON(model):
		return "This model doesn't support the outputConfig.textFormat field. Remove outputConfig.textFormat and try again."
	}
	return ""
}

// nativeJSON: the models that take outputConfig.textFormat here: Claude
// Haiku 4.5, Sonnet 4.5, Opus 4.5 and later (Llama takes none).
// https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-structured-outputs.html
func nativeJSON(model string) bool {
	base := baseModel(model)
	major, minor, ok := claudeVersion(base)
	if ok {
		return major > 4 || major == 4 && minor >= 5
	}
	vendor, _, _ := strings.Cut(base, ".")
	return vendor == "qwen" || vendor == "deepseek" || vendor == "openai"
}

// baseModel strips a geographic inference-profile prefix or an ARN from a
// model id ("us.anthropic.claude-…" is "anthropic.claude-…").
// https://docs.aws.amazon.com/bedrock/latest/userguide/inference-profiles-support.html
func baseModel(id string) string {
	if strings.HasPrefix(id, "arn:") {
		id = id[strings.LastIndexByte(id, '/')+1:]
	}
	parts := strings.SplitN(id, ".", 3)
	if len(parts) == 3 && slices.Contains([]string{"us", "eu", "apac", "global", "jp", "au", "ca", "us-gov"}, parts[0]) {
		return parts[1] + "." + parts[2]
	}
	return id
}

// claudeVersion reads the version of an "anthropic.claude-…" id: 4.5 for
// claude-sonnet-4-5-20250929-v1:0, 3.7 for claude-3-7-sonnet-…, 4.0 for
// claude-sonnet-4-20250514-v1:0.
func claudeVersion(id string) (major, minor int, ok bool) {
	m := regexp.MustCompile(`^anthropic\.claude-(?:(?:opus|sonnet|haiku)-)?(\d+)(?:-(\d{1,2}))?(?:-|$)`).FindStringSubmatch(strings.ToLower(id))
	if m == nil {
		return 0, 0, false
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor, true
}
