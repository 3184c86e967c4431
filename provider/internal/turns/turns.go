// Package turns maps a prompt's conversation to the turns of APIs that
// hold the system prompt apart and want user and assistant turns to
// alternate (Anthropic's Messages API, Gemini's generateContent).
package turns

import (
	"strings"

	"github.com/promptcanary/promptcanary"
)

// Turn is one turn as such an API takes it: the assistant's, or the
// user's (user turns and tool results), with the blocks of every
// conversation turn merged into it.
type Turn[T any] struct {
	Assistant bool
	Blocks    []T
}

// Merge returns p's system prompt with the conversation's system turns
// appended (blank ones left out), and the other turns converted by
// blocks, in order. A turn blocks converts to nothing is left out, and
// consecutive turns of one side are merged into one, so that the
// results of parallel tool calls come in one user turn, right after the
// assistant turn that made the calls.
func Merge[T any](p *promptcanary.Prompt, blocks func(promptcanary.Message) []T) (string, []Turn[T]) {
	system := p.SystemPrompt
	var out []Turn[T]
	for _, m := range p.Conversation() {
		if m.Role == promptcanary.RoleSystem {
			if m.Content != "" {
				system = strings.TrimPrefix(system+"\n\n"+m.Content, "\n\n")
			}
			continue
		}
		b := blocks(m)
		if len(b) == 0 {
			continue
		}
		assistant := m.Role == promptcanary.RoleAssistant
		if n := len(out); n > 0 && out[n-1].Assistant == assistant {
			out[n-1].Blocks = append(out[n-1].Blocks, b...)
			continue
		}
		out = append(out, Turn[T]{Assistant: assistant, Blocks: b})
	}
	return system, out
}
