package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
)

// The GenAI attributes of a provider call's span, as the semantic
// conventions name them:
// https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/
const (
	AttrOperation      = "gen_ai.operation.name"
	AttrProviderName   = "gen_ai.provider.name"
	AttrSystem         = "gen_ai.system" // the name before gen_ai.provider.name, still read by many backends
	AttrRequestModel   = "gen_ai.request.model"
	AttrTemperature    = "gen_ai.request.temperature"
	AttrMaxTokens      = "gen_ai.request.max_tokens"
	AttrSeed           = "gen_ai.request.seed"
	AttrResponseModel  = "gen_ai.response.model"
	AttrResponseID     = "gen_ai.response.id"
	AttrFinishReasons  = "gen_ai.response.finish_reasons"
	AttrInputTokens    = "gen_ai.usage.input_tokens"
	AttrOutputTokens   = "gen_ai.usage.output_tokens"
	AttrInputMessages  = "gen_ai.input.messages"
	AttrOutputMessages = "gen_ai.output.messages"
	AttrSystemInstr    = "gen_ai.system_instructions"
	AttrErrorType      = "error.type"
	AttrPromptID       = "promptcanary.prompt.id"
	AttrSample         = "promptcanary.sample"

	// OperationChat is gen_ai.operation.name of every call.
	OperationChat = "chat"
)

// maxContent bounds each text attribute of an opted-in call's content.
const maxContent = 16 << 10

// genAINames maps promptcanary's provider names to gen_ai.provider.name
// and the older gen_ai.system, where the conventions list a well-known
// value (https://opentelemetry.io/docs/specs/semconv/registry/attributes/gen-ai/);
// other names are exported as they are.
var genAINames = map[string][2]string{
	"openai":    {"openai", "openai"},
	"azure":     {"azure.ai.openai", "az.ai.openai"},
	"anthropic": {"anthropic", "anthropic"},
	"gemini":    {"gcp.gemini", "gemini"},
	"vertex":    {"gcp.vertex_ai", "vertex_ai"},
	"bedrock":   {"aws.bedrock", "aws.bedrock"},
	"mistral":   {"mistral_ai", "mistral_ai"},
	"groq":      {"groq", "groq"},
	"xai":       {"x_ai", "xai"},
}

// Wrap returns p with a span around every call (each attempt of a call
// that is retried is a span of its own); spec is NAME/MODEL. On a nil
// Tracer it returns p itself.
func (t *Tracer) Wrap(spec string, p provider.Provider) provider.Provider {
	if t == nil || p == nil {
		return p
	}
	name, model, err := provider.Split(spec)
	if err != nil {
		name, model = spec, spec
	}
	names, ok := genAINames[name]
	if !ok {
		names = [2]string{name, name}
	}
	return &traced{p: p, t: t, model: model, span: OperationChat + " " + model,
		fixed: []attribute.KeyValue{
			attribute.String(AttrOperation, OperationChat), attribute.String(AttrProviderName, names[0]),
			attribute.String(AttrSystem, names[1]), attribute.String(AttrRequestModel, model), attribute.String(AttrProvider, spec),
		}}
}

// traced is a provider whose calls are spans.
type traced struct {
	p     provider.Provider
	t     *Tracer
	model string
	span  string
	fixed []attribute.KeyValue
}

var _ provider.Provider = (*traced)(nil)

// Generate makes the call in a client span.
func (c *traced) Generate(ctx context.Context, req *provider.Request) (*promptcanary.Response, error) {
	ctx, s := c.t.tr.Start(ctx, c.span, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(c.fixed...))
	defer s.End()
	s.SetAttributes(requestAttrs(req)...)
	if c.t.content {
		s.SetAttributes(c.t.inputContent(req.Prompt)...)
	}
	resp, err := c.p.Generate(ctx, req)
	if err != nil {
		s.SetAttributes(attribute.String(AttrErrorType, errorType(ctx, err)))
		c.t.status(s, err)
		return resp, err
	}
	if resp != nil {
		s.SetAttributes(responseAttrs(resp)...)
		if c.t.content {
			s.SetAttributes(c.t.outputContent(resp)...)
		}
	}
	return resp, err
}

// requestAttrs are the attributes of what a call asks for. A parameter
// that extra_params removes (a nil value) is left out.
func requestAttrs(req *provider.Request) []attribute.KeyValue {
	cfg := req.Config
	attrs := make([]attribute.KeyValue, 0, 5)
	if req.Prompt != nil {
		attrs = append(attrs, attribute.String(AttrPromptID, req.Prompt.ID))
	}
	attrs = append(attrs, attribute.Int(AttrSample, req.Sample))
	if v, set := cfg.ExtraParams["temperature"]; !set || v != nil {
		attrs = append(attrs, attribute.Float64(AttrTemperature, cfg.Temperature))
	}
	if cfg.MaxTokens > 0 {
		attrs = append(attrs, attribute.Int(AttrMaxTokens, cfg.MaxTokens))
	}
	if seed, ok := req.CallSeed(); ok {
		attrs = append(attrs, attribute.Int64(AttrSeed, seed))
	}
	return attrs
}

// responseAttrs are the attributes of an answer: the served model, its
// id, the finish reason and the tokens counted.
func responseAttrs(r *promptcanary.Response) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 5)
	if r.ServedModel != "" {
		attrs = append(attrs, attribute.String(AttrResponseModel, r.ServedModel))
	}
	if r.ResponseID != "" {
		attrs = append(attrs, attribute.String(AttrResponseID, r.ResponseID))
	}
	if r.FinishReason != "" {
		attrs = append(attrs, attribute.StringSlice(AttrFinishReasons, []string{r.FinishReason}))
	}
	return append(attrs, attribute.Int(AttrInputTokens, r.PromptTokens), attribute.Int(AttrOutputTokens, r.CompletionTokens))
}

// errorType is error.type of a failed call: the HTTP status code, timeout,
// canceled, or the Go type of the error for a network failure; _OTHER
// otherwise (https://opentelemetry.io/docs/specs/semconv/attributes-registry/error/).
func errorType(ctx context.Context, err error) string {
	var pe *provider.Error
	var ne net.Error
	switch {
	case errors.As(err, &pe) && pe.StatusCode > 0:
		return strconv.Itoa(pe.StatusCode)
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled) || ctx.Err() != nil:
		return "canceled"
	case errors.As(err, &ne):
		return "network"
	}
	return "_OTHER"
}

// part is one part of a message in the GenAI conventions' JSON form.
type part struct {
	Type    string `json:"type"`
	Content string `json:"content,omitempty"`
	ID      string `json:"id,omitempty"`
	Name    string `json:"name,omitempty"`
}

// message is one message of gen_ai.input.messages or
// gen_ai.output.messages.
type message struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

// inputContent is the prompt's text as gen_ai.system_instructions and
// gen_ai.input.messages, scrubbed and bounded.
func (t *Tracer) inputContent(p *promptcanary.Prompt) []attribute.KeyValue {
	if p == nil {
		return nil
	}
	var attrs []attribute.KeyValue
	if p.SystemPrompt != "" {
		attrs = append(attrs, t.jsonAttr(AttrSystemInstr, []part{{Type: "text", Content: t.text(p.SystemPrompt)}}))
	}
	var msgs []message
	if p.Text != "" {
		msgs = append(msgs, message{Role: promptcanary.RoleUser, Parts: []part{{Type: "text", Content: t.text(p.Text)}}})
	}
	for _, m := range p.Messages {
		msg := message{Role: m.Role, Parts: []part{}}
		if m.Content != "" {
			typ := "text"
			if m.Role == promptcanary.RoleTool {
				typ = "tool_call_response"
			}
			msg.Parts = append(msg.Parts, part{Type: typ, Content: t.text(m.Content), ID: m.ToolCallID})
		}
		for _, tc := range m.ToolCalls {
			msg.Parts = append(msg.Parts, part{Type: "tool_call", ID: tc.ID, Name: tc.Name})
		}
		msgs = append(msgs, msg)
	}
	return append(attrs, t.jsonAttr(AttrInputMessages, msgs))
}

// outputContent is the answer as gen_ai.output.messages, scrubbed and
// bounded.
func (t *Tracer) outputContent(r *promptcanary.Response) []attribute.KeyValue {
	msg := message{Role: promptcanary.RoleAssistant, Parts: []part{}, FinishReason: r.FinishReason}
	if r.Content != "" {
		msg.Parts = append(msg.Parts, part{Type: "text", Content: t.text(r.Content)})
	}
	for _, tc := range r.ToolCalls {
		msg.Parts = append(msg.Parts, part{Type: "tool_call", ID: tc.ID, Name: tc.Name})
	}
	return []attribute.KeyValue{t.jsonAttr(AttrOutputMessages, []message{msg})}
}

// text scrubs s of secrets and bounds it to maxContent bytes. A longer s
// is cut to a few times the bound before it is scrubbed, so that a huge
// answer is not scanned whole; a secret the first cut splits ends up past
// the second.
func (t *Tracer) text(s string) string {
	if len(s) > 4*maxContent {
		s = s[:4*maxContent]
	}
	return t.secrets.Truncate(s, maxContent)
}

// jsonAttr is a string attribute holding v as JSON, scrubbed once more
// (JSON escapes could hide a secret from the scrub of each text).
func (t *Tracer) jsonAttr(key string, v any) attribute.KeyValue {
	b, err := json.Marshal(v)
	if err != nil {
		return attribute.String(key, "")
	}
	return attribute.String(key, t.secrets.String(string(b)))
}
