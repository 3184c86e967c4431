package openaitest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"
)

// created is the creation time of every answer (2026-12-01 00:00 UTC):
// fixed, so transcripts are stable.
const created = 1764547200

// seq numbers the answers, for their ids.
var seq atomic.Int64

// RefusalText is the refusal the stand-in answers with Refusal.
const RefusalText = "I'm sorry, but I can't help with that."

// reply is an answer before it is put in one API's shape.
type reply struct {
	seq     string
	text    string
	refusal string
	calls   []call
	// length: the whole budget went to reasoning, no visible answer.
	length                                      bool
	promptTokens, outputTokens, reasoningTokens int
}

type call struct{ id, name, args string }

// compose decides the answer to req under b.
func compose(req *request, b Behaviour) reply {
	r := reply{seq: strconv.FormatInt(seq.Add(1), 10)}
	bodyJSON, _ := json.Marshal(req.body)
	r.promptTokens = len(bodyJSON)/4 + 1
	reasoning := modelFacts(req.model).reasoning
	if reasoning {
		r.reasoningTokens = min(64, max(req.maxTokens, 1))
	}
	canCall := len(req.tools) > 0 && req.forced != "none"
	switch {
	case b == Refusal:
		r.refusal = RefusalText
	case b == Length:
		r.length = true
		if !reasoning {
			// A model without reasoning is cut off mid-answer.
			r.text = "Stand-in answer that was cut off at the"
			break
		}
		r.reasoningTokens = req.maxTokens
		if r.reasoningTokens == 0 {
			r.reasoningTokens = 4096
		}
	case b == ManyTools && canCall:
		r.calls = make([]call, ManyToolCalls)
		for i := range r.calls {
			r.calls[i] = r.callTo(req.tools[i%len(req.tools)], i)
		}
	case b == ParallelTools && canCall:
		r.calls = []call{r.callTo(req.tools[0], 0), r.callTo(req.tools[len(req.tools)-1], 1)}
	case b == Auto && canCall && !req.afterToolResult:
		t := req.tools[0]
		for _, x := range req.tools {
			if x.name == req.forced {
				t = x
			}
		}
		r.calls = []call{r.callTo(t, 0)}
	case b == JSON || (b == Auto && req.format != ""):
		out, _ := json.Marshal(r.jsonAnswer(req))
		r.text = string(out)
	default:
		r.text = textAnswer(req)
	}
	r.outputTokens = r.reasoningTokens + (len(r.text)+len(r.refusal))/4 + 1
	if r.length && reasoning {
		r.outputTokens = r.reasoningTokens
	}
	return r
}

func (r *reply) callTo(t toolDef, i int) call {
	args := map[string]any{}
	if t.params != nil {
		if m, ok := example(t.params, 0).(map[string]any); ok {
			args = m
		}
	}
	out, _ := json.Marshal(args)
	return call{id: fmt.Sprintf("call_standin%s_%d", r.seq, i), name: t.name, args: string(out)}
}

func (r *reply) jsonAnswer(req *request) any {
	if req.schema != nil {
		return example(req.schema, 0)
	}
	return map[string]any{"answer": textAnswer(req)}
}

// textAnswer is the plain-text answer: it names the model and the
// question, or says it read the tool's result.
func textAnswer(req *request) string {
	if req.afterToolResult {
		return "Thanks, I used the tool's result to answer."
	}
	q := []rune(req.lastUser)
	if len(q) > 60 {
		q = append(q[:60], '…')
	}
	return fmt.Sprintf("Stand-in answer from %s to: %s", req.model, string(q))
}

// example returns a value matching the JSON Schema s: the first enum or
// const value, every property of an object, one item of an array.
func example(s map[string]any, depth int) any {
	if depth > 8 {
		return nil
	}
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			if m, ok := alts[0].(map[string]any); ok {
				return example(m, depth+1)
			}
		}
	}
	typ, _ := s["type"].(string)
	if ts, ok := s["type"].([]any); ok && len(ts) > 0 {
		typ, _ = ts[0].(string)
	}
	switch typ {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for k, p := range props {
			if pm, ok := p.(map[string]any); ok {
				out[k] = example(pm, depth+1)
			}
		}
		return out
	case "array":
		items, _ := s["items"].(map[string]any)
		return []any{example(items, depth+1)}
	case "integer":
		return 1
	case "number":
		return 1.5
	case "boolean":
		return true
	case "null":
		return nil
	}
	return "example"
}

// served is the model the API says answered: the dated snapshot of an
// alias, as the real API reports it.
func served(model string) string {
	snapshots := map[string]string{
		"gpt-4o-mini": "gpt-4o-mini-2024-07-18", "gpt-4o": "gpt-4o-2024-08-06",
		"gpt-5": "gpt-5-2025-08-07", "gpt-5-mini": "gpt-5-mini-2025-08-07", "gpt-5-nano": "gpt-5-nano-2025-08-07",
		"o3": "o3-2025-04-16", "o3-mini": "o3-mini-2025-01-31", "o4-mini": "o4-mini-2025-04-16", "o1": "o1-2024-12-17",
		"o3-pro": "o3-pro-2025-06-10", "o1-pro": "o1-pro-2025-03-19", "gpt-5-pro": "gpt-5-pro-2025-10-06",
	}
	if s, ok := snapshots[model]; ok {
		return s
	}
	return model
}
