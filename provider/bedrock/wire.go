package bedrock

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

// object is a JSON object of the request.
type object = map[string]any

// request is one call's body, with the name of the tool that carries a
// structured answer ("" when none does).
type request struct {
	fields     object
	answerTool string
	// noForce: the answer tool must not be forced.
	noForce bool
}

// anyObject is the schema of a json_object response_format.
var anyObject = object{"type": "object"}

// body builds the Converse request of one call. Extra parameters are
// applied last, so they override what is set here (see the package doc).
func (c *Client) body(req *provider.Request) (*request, error) {
	p := req.Prompt
	msgs, system, used, err := messages(p.Conversation())
	if err != nil {
		return nil, err
	}
	system = append(textBlocks(p.SystemPrompt), system...)
	inference := object{"temperature": req.Config.Temperature}
	if req.Config.MaxTokens > 0 {
		inference["maxTokens"] = req.Config.MaxTokens
	}
	out := &request{fields: object{"messages": msgs}}
	// Claude's extended thinking takes no forced tool: the answer tool is
	// then offered, not forced.
	out.noForce = c.family.anthropic && thinking(extraFields(req.Config.ExtraParams))
	tools, choice, err := c.tools(p, used, out)
	if err != nil {
		return nil, err
	}
	if rf := p.ResponseFormat; rf != nil && c.structuredMode() == StructuredPrompt {
		system = append(system, object{"text": instruction(rf)})
	}
	if len(system) > 0 {
		out.fields["system"] = system
	}
	if len(tools) > 0 {
		tc := object{"tools": tools}
		if choice != nil {
			tc["toolChoice"] = choice
		}
		out.fields["toolConfig"] = tc
	}
	if rf := p.ResponseFormat; rf != nil && c.structuredMode() == StructuredNative {
		out.fields["outputConfig"] = nativeFormat(rf)
	}
	// The model rules (modelrules.Apply) were applied to req.Config by the
	// run engine: a fixed temperature, no top_p, Claude's thinking rules.
	additional := extras(req.Config.ExtraParams, inference, out.fields)
	if len(inference) > 0 {
		out.fields["inferenceConfig"] = inference
	}
	if len(additional) > 0 {
		out.fields["additionalModelRequestFields"] = additional
	}
	return out, nil
}

// structuredMode is how this client sends a response_format.
func (c *Client) structuredMode() string {
	if c.structured != "" {
		return c.structured
	}
	return c.family.structured
}

// Extra parameters that are fields of inferenceConfig, by every name
// they are known by, and the top-level Converse fields.
var (
	inferenceKeys = map[string]string{
		"temperature": "temperature", "top_p": "topP", "topP": "topP",
		"max_tokens": "maxTokens", "maxTokens": "maxTokens",
		"stop_sequences": "stopSequences", "stopSequences": "stopSequences", "stop": "stopSequences",
	}
	topLevelKeys = []string{"guardrailConfig", "performanceConfig", "serviceTier", "requestMetadata", "outputConfig", "additionalModelResponseFieldPaths", "promptVariables"}
)

// extras applies the extra parameters to inference and fields, and
// returns the rest: additionalModelRequestFields. A nil value removes the
// parameter wherever it would go.
func extras(extra map[string]any, inference, fields object) object {
	additional := object{}
	for k, v := range extra {
		switch {
		case inferenceKeys[k] != "":
			name := inferenceKeys[k]
			if s, ok := v.(string); ok && name == "stopSequences" {
				v = []string{s}
			}
			set(inference, name, v)
		case slices.Contains(topLevelKeys, k):
			set(fields, k, v)
		default:
			set(additional, k, v)
		}
	}
	return additional
}

// extraFields is what of the extra parameters goes into
// additionalModelRequestFields.
func extraFields(extra map[string]any) object {
	return extras(extra, object{}, object{})
}

// set sets m[k] to v, or deletes it when v is nil.
func set(m object, k string, v any) {
	if v == nil {
		delete(m, k)
		return
	}
	m[k] = v
}

// thinking reports whether additionalModelRequestFields turn Claude's
// extended thinking on.
func thinking(additional object) bool {
	t, ok := additional["thinking"].(map[string]any)
	return ok && (t["type"] == "enabled" || t["type"] == "adaptive")
}

// toolNamePattern is what Converse takes as a tool name.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html
var toolNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// tools returns the toolConfig's tools and toolChoice. Tools named by
// the conversation's tool calls but not offered are declared with an
// empty schema: Converse requires toolConfig whenever toolUse or
// toolResult blocks are sent. A structured answer through a forced tool
// adds that tool and records its name in out.
func (c *Client) tools(p *promptcanary.Prompt, used []string, out *request) ([]object, object, error) {
	var tools []object
	offered := map[string]bool{}
	if p.ToolChoice != "none" || len(used) > 0 {
		for _, t := range p.Tools {
			tools = append(tools, toolSpec(t.Name, t.Description, toolcall.Parameters(t.Parameters)))
			offered[t.Name] = true
		}
	}
	for _, name := range used {
		if !offered[name] {
			tools = append(tools, toolSpec(name, "", toolcall.Parameters(nil)))
			offered[name] = true
		}
	}
	choice, err := c.choice(p.ToolChoice, len(p.Tools) > 0)
	if err != nil {
		return nil, nil, err
	}
	if rf := p.ResponseFormat; rf != nil && c.structuredMode() == StructuredTool {
		name := answerToolName(rf, offered)
		schema := rf.Schema
		if rf.Type != promptcanary.FormatJSONSchema || len(schema) == 0 {
			schema = anyObject
		}
		tools = append(tools, toolSpec(name, "Give the answer: its input is the whole answer, as JSON.", schema))
		out.answerTool = name
		if choice == nil && !out.noForce {
			choice = c.answerChoice(name, len(p.Tools) > 0)
		}
	}
	return tools, choice, nil
}

func toolSpec(name, description string, schema map[string]any) object {
	spec := object{"name": name, "inputSchema": object{"json": schema}}
	if description != "" {
		spec["description"] = description
	}
	return object{"toolSpec": spec}
}

// choice maps a prompt's tool_choice to Converse's toolChoice; nil means
// none is sent (the default is auto, and only some models take the field
// at all). A forced choice the model cannot take is an error.
func (c *Client) choice(tc string, hasTools bool) (object, error) {
	switch {
	case !hasTools || tc == "" || tc == "auto" || tc == "none":
		return nil, nil
	case tc == "required" && c.family.forceAny:
		return object{"any": object{}}, nil
	case tc != "required" && c.family.forceTool:
		return object{"tool": object{"name": tc}}, nil
	}
	return nil, &provider.Error{Message: fmt.Sprintf("tool_choice %q: %s cannot be made to call a tool on Bedrock (toolChoice any and tool are taken by Anthropic Claude and Amazon Nova models, any also by Mistral Large: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolChoice.html); use tool_choice: auto with this model",
		tc, BaseModel(c.model))}
}

// answerChoice forces the answer tool where the model can be forced:
// alone, by name; beside the prompt's tools, "any" lets the model call
// one of them or answer.
func (c *Client) answerChoice(name string, withTools bool) object {
	switch {
	case withTools && c.family.forceAny:
		return object{"any": object{}}
	case withTools:
		return nil
	case c.family.forceTool:
		return object{"tool": object{"name": name}}
	case c.family.forceAny:
		return object{"any": object{}}
	}
	return nil
}

// answerToolName is the name of the tool that carries a structured
// answer: the schema's name when it is a valid tool name no prompt tool
// has, else "response" (or "structured_response").
func answerToolName(rf *promptcanary.ResponseFormat, taken map[string]bool) string {
	for _, name := range []string{rf.SchemaName(), "response", "structured_response"} {
		if toolNamePattern.MatchString(name) && !taken[name] {
			return name
		}
	}
	return "structured_response_answer"
}

// nativeFormat is Converse's outputConfig for rf: its schema goes as a
// JSON string.
// https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_JsonSchemaDefinition.html
func nativeFormat(rf *promptcanary.ResponseFormat) object {
	schema := rf.Schema
	if rf.Type != promptcanary.FormatJSONSchema || len(schema) == 0 {
		schema = anyObject
	}
	data, _ := json.Marshal(schema)
	def := object{"schema": string(data)}
	if name := rf.SchemaName(); toolNamePattern.MatchString(name) {
		def["name"] = name
	}
	return object{"textFormat": object{"type": "json_schema", "structure": object{"jsonSchema": def}}}
}

// instruction asks a model that has no structured output for the JSON in
// words, in the system prompt.
func instruction(rf *promptcanary.ResponseFormat) string {
	if rf.Type == promptcanary.FormatJSONSchema && len(rf.Schema) > 0 {
		data, _ := json.Marshal(rf.Schema)
		return "Answer with one JSON value only, without any other text or code fences, matching this JSON Schema: " + string(data)
	}
	return "Answer with one JSON object only, without any other text or code fences."
}
