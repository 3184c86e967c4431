package tooluse

import (
	"context"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// Strategy says how tool_call_presence reads the response content.
type Strategy string

// The detection strategies.
const (
	// StrategyAuto tries the JSON rules, then the text patterns.
	StrategyAuto Strategy = "auto"
	// StrategyJSON only parses the trimmed content as JSON.
	StrategyJSON Strategy = "json"
	// StrategyText only searches the content for tool-call patterns.
	StrategyText Strategy = "text"
)

// Presence is the tool_call_presence probe: it checks whether the response
// holds a tool call at all. Structured tool calls always count as detected;
// Strategy chooses how the content is read otherwise (an empty or unknown
// strategy reads as auto).
type Presence struct {
	// Expect is true when a tool call should be present, false when none should.
	Expect   bool
	Strategy Strategy
}

var _ probe.Probe = (*Presence)(nil)

func init() {
	probe.Register(probe.Type{
		ID:          presenceID,
		Name:        "Tool Call Presence",
		Category:    promptcanary.CategoryToolUse,
		Description: "Detects whether any tool/function call is present in the response.",
		Example: `probes:
  - type: tool_call_presence
    expect_tool_call: true
    strategy: auto
`,
		Params: []probe.Param{
			{Name: "expect_tool_call", Kind: probe.Bool, Default: true,
				Doc: "true when the response must call a tool, false when it must not"},
			{Name: "strategy", Kind: probe.String, Default: string(StrategyAuto),
				Enum: []string{string(StrategyAuto), string(StrategyJSON), string(StrategyText)},
				Doc:  "how to read the content: auto (JSON, then text patterns), json or text"},
		},
		New: func(p probe.Params) (probe.Probe, error) {
			expect, _ := p.Bool("expect_tool_call")
			return &Presence{Expect: expect, Strategy: Strategy(p.String("strategy"))}, nil
		},
	})
}

const presenceID = "tool_call_presence"

// Evaluate passes when a tool call is detected exactly when one is expected.
func (p *Presence) Evaluate(_ context.Context, pin probe.Input) probe.Result {
	r := pin.Response
	strategy := p.Strategy
	if strategy != StrategyJSON && strategy != StrategyText {
		strategy = StrategyAuto
	}
	in := getInput(r)
	detected, source := in.detect(strategy)
	in.release()
	passed := detected == p.Expect
	var details string
	switch {
	case detected && p.Expect:
		details = "Tool call detected as expected (" + describeSource(source) + ")."
	case detected:
		details = "Unexpected tool call detected in the response (" + describeSource(source) + ")."
	case p.Expect:
		details = "Expected a tool call but none was found in the response."
	default:
		details = "No tool call present, as expected."
	}
	score := 0.0
	if passed {
		score = 1
	}
	return probe.Result{
		Passed:  passed,
		Score:   score,
		Details: details,
		Metadata: map[string]any{
			"tool_call_detected": detected,
			"strategy":           string(strategy),
			"source":             source,
		},
	}
}

// describeSource names a source for details.
func describeSource(source string) string {
	switch source {
	case sourceStructured:
		return "structured tool calls from the provider"
	case sourceJSON:
		return "JSON tool call in the content"
	case sourceText:
		return "tool-call pattern in the content"
	}
	return "nothing found"
}
