package ollama

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/apicall"
	"github.com/promptcanary/promptcanary/provider/internal/toolcall"
)

// message is one chat message of the request: Ollama's api.Message
// (https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-tools
// and #chat-request-with-history). A tool result names its tool in
// tool_name and its call in tool_call_id.
type message struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolName   string         `json:"tool_name,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// wireToolCall is an assistant turn's call. Ollama's arguments are a JSON
// object, not a string as in OpenAI's API.
type wireToolCall struct {
	ID       string `json:"id,omitempty"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// messages turns the prompt's system prompt and conversation into chat
// messages.
func messages(p *promptcanary.Prompt) []message {
	turns := p.Conversation()
	msgs := make([]message, 0, 1+len(turns))
	if p.SystemPrompt != "" {
		msgs = append(msgs, message{Role: promptcanary.RoleSystem, Content: p.SystemPrompt})
	}
	for _, m := range turns {
		w := message{Role: m.Role, Content: m.Content}
		if m.Role == promptcanary.RoleTool {
			w.ToolName, w.ToolCallID = m.Name, m.ToolCallID
		}
		for _, c := range m.ToolCalls {
			var tc wireToolCall
			tc.ID, tc.Function.Name, tc.Function.Arguments = c.ID, c.Name, objectArgs(c.Arguments)
			w.ToolCalls = append(w.ToolCalls, tc)
		}
		msgs = append(msgs, w)
	}
	return msgs
}

// objectArgs returns a call's arguments as the JSON object Ollama wants:
// {} for none, and a JSON string holding an object unwrapped.
func objectArgs(raw json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	var obj map[string]any
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return raw
}

// format maps a response format to Ollama's "format": the JSON schema
// itself, or "json" for any JSON
// (https://github.com/ollama/ollama/blob/main/docs/api.md#request-structured-outputs).
// Ollama always holds the model to the schema, so strict and the schema's
// name have no counterpart.
func format(f *promptcanary.ResponseFormat) any {
	if f.Type == promptcanary.FormatJSONSchema && len(f.Schema) > 0 {
		return f.Schema
	}
	return "json"
}

// tool is a tool definition in Ollama's (OpenAI-like) format.
type tool struct {
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Parameters  map[string]any `json:"parameters"`
}

// optionKeys are Ollama's model options (the Modelfile parameters and
// runner settings); an extra parameter with one of these names goes into
// "options".
var optionKeys = map[string]bool{
	"num_keep": true, "seed": true, "num_predict": true, "top_k": true, "top_p": true,
	"min_p": true, "typical_p": true, "repeat_last_n": true, "temperature": true,
	"repeat_penalty": true, "presence_penalty": true, "frequency_penalty": true,
	"penalize_newline": true, "stop": true, "numa": true, "num_ctx": true,
	"num_batch": true, "num_gpu": true, "main_gpu": true, "low_vram": true,
	"vocab_only": true, "use_mmap": true, "use_mlock": true, "num_thread": true,
	"mirostat": true, "mirostat_tau": true, "mirostat_eta": true, "tfs_z": true,
}

// body builds the request body of one call.
func (c *Client) body(req *provider.Request) map[string]any {
	p := req.Prompt
	b := make(map[string]any, 5+len(req.Config.ExtraParams))
	b["model"] = c.model
	b["stream"] = false
	b["messages"] = messages(p)
	if p.ResponseFormat != nil {
		b["format"] = format(p.ResponseFormat)
	}
	opts := map[string]any{"temperature": req.Config.Temperature}
	if req.Config.MaxTokens > 0 {
		opts["num_predict"] = req.Config.MaxTokens
	}
	if seed, ok := req.CallSeed(); ok {
		opts["seed"] = seed
	}
	if tools := offeredTools(p.Tools, p.ToolChoice); len(tools) > 0 {
		out := make([]tool, len(tools))
		for i, t := range tools {
			out[i] = tool{Type: "function", Function: toolFunction{Name: t.Name, Description: t.Description, Parameters: toolcall.Parameters(t.Parameters)}}
		}
		b["tools"] = out
	}
	for _, k := range slices.Sorted(maps.Keys(req.Config.ExtraParams)) {
		v := req.Config.ExtraParams[k]
		switch m, isMap := v.(map[string]any); {
		case v == nil && k == "options":
			opts = nil
		case v == nil:
			// extra_params: {k: null} removes the parameter.
			delete(opts, k)
			delete(b, k)
		case k == "options" && isMap:
			maps.Copy(opts, m)
		case optionKeys[k]:
			opts[k] = v
		default:
			b[k] = v
		}
	}
	if _, replaced := b["options"]; !replaced && opts != nil {
		b["options"] = opts
	}
	return b
}

// offeredTools approximates tool_choice, which Ollama lacks: "none" offers
// no tool, a tool's name offers only that tool, anything else all of them.
func offeredTools(tools []promptcanary.Tool, choice string) []promptcanary.Tool {
	switch choice {
	case "", "auto", "required":
		return tools
	case "none":
		return nil
	}
	for i := range tools {
		if tools[i].Name == choice {
			return tools[i : i+1]
		}
	}
	return tools
}

// response is the part of an /api/chat answer this client reads.
type response struct {
	Model   string `json:"model"`
	Message struct {
		Content   string `json:"content"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"message"`
	DoneReason      string `json:"done_reason"`
	PromptEvalCount int    `json:"prompt_eval_count"`
	EvalCount       int    `json:"eval_count"`
	Error           string `json:"error"`
}

// decode turns a 2xx body into a response.
func (c *Client) decode(body []byte) (*promptcanary.Response, error) {
	var r response
	if err := apicall.DecodeJSON(body, &r); err != nil {
		return nil, err
	}
	if r.Error != "" {
		// The server failed after it had started answering (a model crash,
		// running out of memory): worth another attempt.
		return nil, &provider.Error{Retryable: true, Message: c.http.Message(r.Error)}
	}
	out := &promptcanary.Response{
		Content:          r.Message.Content,
		FinishReason:     r.DoneReason,
		PromptTokens:     max(0, r.PromptEvalCount),
		CompletionTokens: max(0, r.EvalCount),
		TotalTokens:      max(0, r.PromptEvalCount) + max(0, r.EvalCount),
		ServedModel:      r.Model,
		RawResponse:      json.RawMessage(body),
	}
	for i := range r.Message.ToolCalls {
		tc := &r.Message.ToolCalls[i]
		out.ToolCalls = append(out.ToolCalls, promptcanary.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: toolcall.Arguments(tc.Function.Arguments)})
	}
	toolcall.Bound(out, len(out.ToolCalls))
	if out.Content == "" && len(out.ToolCalls) == 0 {
		switch r.DoneReason {
		case "", "stop", "load", "unload":
			return nil, &provider.Error{Message: fmt.Sprintf("response has no message content or tool calls (done_reason %q)", r.DoneReason)}
		}
	}
	return out, nil
}
