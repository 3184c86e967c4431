package sim

import (
	"encoding/json"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// maxResultChars bounds how much of a tool result an answer quotes.
const maxResultChars = 200

// asked returns the prompt the simulated model answers and the tool
// results it answers from. A prompt without messages is answered as it is.
// A conversation is answered by its last user turn; when tool results
// follow that turn, the model answers from them (quoting them) instead of
// calling a tool again.
func asked(p *promptcanary.Prompt) (*promptcanary.Prompt, []promptcanary.Message) {
	if len(p.Messages) == 0 {
		return p, nil
	}
	turns := p.Conversation()
	last := -1
	for i := len(turns) - 1; i >= 0; i-- {
		if turns[i].Role == promptcanary.RoleUser {
			last = i
			break
		}
	}
	view := *p
	view.Messages = nil
	if last >= 0 {
		view.Text = turns[last].Content
	}
	var results []promptcanary.Message
	for _, m := range turns[last+1:] {
		if m.Role == promptcanary.RoleTool {
			results = append(results, m)
		}
	}
	if len(results) > 0 {
		view.Tools, view.ToolChoice = nil, ""
	}
	return &view, results
}

// callText is the text that seeds a call's randomness: the question and
// the tool results it is answered from.
func callText(view *promptcanary.Prompt, results []promptcanary.Message) string {
	if len(results) == 0 {
		return view.Text
	}
	var b strings.Builder
	b.WriteString(view.Text)
	for _, m := range results {
		b.WriteByte(0)
		b.WriteString(m.Name)
		b.WriteByte(0)
		b.WriteString(m.Content)
	}
	return b.String()
}

// fromResults prefixes a text answer with what the tools returned, as a
// model answering from tool results does.
func fromResults(answer string, results []promptcanary.Message) string {
	var b strings.Builder
	for _, m := range results {
		content, cut := truncateRunes(strings.TrimSpace(m.Content), maxResultChars)
		if cut {
			content += "…"
		}
		b.WriteString("The ")
		b.WriteString(m.Name)
		b.WriteString(" tool returned ")
		b.WriteString(content)
		b.WriteString(". ")
	}
	return b.String() + answer
}

// promptWords counts the words the model reads: the system prompt and
// every turn.
func promptWords(p *promptcanary.Prompt) int {
	n := countWords(p.SystemPrompt) + countWords(p.Text)
	for _, m := range p.Messages {
		n += countWords(m.Content)
		for _, c := range m.ToolCalls {
			n += 1 + countWords(string(c.Arguments))
		}
	}
	return n
}

// formatKey identifies a response format for the analysis cache.
func formatKey(f *promptcanary.ResponseFormat) string {
	if f == nil {
		return ""
	}
	schema, _ := json.Marshal(f.Schema) // decoded YAML or JSON always encodes; keys sorted
	return f.Type + "\x00" + string(schema)
}

// structured reports whether the prompt asks the API for JSON, which the
// API then enforces: no prose around it, and with a schema no key left out.
func structured(p *promptcanary.Prompt) bool { return p.ResponseFormat != nil }
