package turns

import (
	"fmt"
	"testing"

	"github.com/promptcanary/promptcanary"
)

// System turns join the system prompt, empty turns are left out, and
// consecutive turns of one side merge: the results of parallel calls
// make one user turn after the assistant's.
func TestMerge(t *testing.T) {
	p := &promptcanary.Prompt{SystemPrompt: "Be brief.", Text: "Weather in Oslo and Rome?", Messages: []promptcanary.Message{
		{Role: promptcanary.RoleSystem, Content: "Use tools."},
		{Role: promptcanary.RoleAssistant, ToolCalls: []promptcanary.ToolCall{{ID: "a", Name: "w"}, {ID: "b", Name: "w"}}},
		{Role: promptcanary.RoleTool, ToolCallID: "a", Content: "rain"},
		{Role: promptcanary.RoleTool, ToolCallID: "b", Content: "sun"},
		{Role: promptcanary.RoleAssistant, Content: ""},
		{Role: promptcanary.RoleUser, Content: "And Paris?"},
	}}
	system, got := Merge(p, func(m promptcanary.Message) []string {
		var out []string
		if m.Content != "" {
			out = append(out, m.Role+":"+m.Content)
		}
		for _, c := range m.ToolCalls {
			out = append(out, "call:"+c.ID)
		}
		return out
	})
	if system != "Be brief.\n\nUse tools." {
		t.Errorf("system %q", system)
	}
	want := "[{false [user:Weather in Oslo and Rome?]} {true [call:a call:b]} {false [tool:rain tool:sun user:And Paris?]}]"
	if fmt.Sprint(got) != want {
		t.Errorf("turns\ngot  %v\nwant %s", got, want)
	}
	if system, _ := Merge(&promptcanary.Prompt{Messages: []promptcanary.Message{{Role: promptcanary.RoleSystem, Content: "Only."}}}, func(promptcanary.Message) []int { return nil }); system != "Only." {
		t.Errorf("system without a system prompt: %q", system)
	}
}
