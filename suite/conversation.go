package suite

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/internal/yamlwalk"
)

// The rules of a conversation prompt (`messages:`), checked at load so that
// every client can send the turns as they are:
//
//   - role is system, user, assistant or tool.
//   - A system turn may only open messages: (and only when text: is not
//     set); it becomes the prompt's system prompt, so it cannot be combined
//     with system_prompt:.
//   - The conversation starts with a user turn: text: or the first turn.
//   - A user turn has non-empty content.
//   - An assistant turn has content, tool_calls, or both. Each call has a
//     name among the prompt's tools: (Anthropic and Bedrock reject tool_use
//     blocks without tool definitions), arguments (a mapping, or a string
//     holding a JSON object; {} when left out) and an optional id; calls
//     without one get call_1, call_2, … (ids are unique within the prompt).
//   - Every call is answered by a tool turn right after its assistant turn,
//     before any other turn: OpenAI rejects "An assistant message with
//     'tool_calls' must be followed by tool messages responding to each
//     'tool_call_id'" (https://platform.openai.com/docs/api-reference/chat/create).
//     A tool turn names the call with tool_call_id, or answers the next
//     unanswered call when it has none; its content (a string, or a
//     mapping or list sent as JSON) is the tool's result.
//   - The last turn is a user or a tool turn: the model answers it. An
//     assistant turn last would leave nothing to answer.
var (
	messageKeys  = []string{"role", "content", "tool_calls", "tool_call_id"}
	toolCallKeys = []string{"id", "name", "arguments"}
	roles        = []string{promptcanary.RoleSystem, promptcanary.RoleUser, promptcanary.RoleAssistant, promptcanary.RoleTool}
)

const (
	messagesHint = "write one turn per line, each like - {role: user, content: \"…\"}"
	lastTurnHint = "end with the turn the model answers: a user turn or a tool result"
)

// convState follows a conversation being validated.
type convState struct {
	turns int // turns so far, text: included
	// pending are the calls of the last assistant turn still unanswered,
	// in order; answered maps every answered call id to its line.
	pending  []promptcanary.ToolCall
	answered map[string]int
	// callNodes maps every explicit call id of the prompt to the node
	// that first gives it; automatic ids map to nil.
	callNodes map[string]*yaml.Node
	// claimed maps the explicit ids met so far to where they were.
	claimed map[string]*yaml.Node
	autoID  int
	// broken is set when an assistant turn's calls had problems, so that
	// the tool turns are not checked against them.
	broken bool
	// started is set once the first user, assistant or tool turn is seen.
	started   bool
	lastRole  string
	lastNode  *yaml.Node
	lastField string
}

// messages validates a prompt's messages: list. text tells whether the
// prompt has a text: (its first user turn); tools are the prompt's tools.
// It returns the turns and the system prompt of a leading system turn.
func (p *parser) messages(n *yaml.Node, field string, text bool, tools []string) ([]promptcanary.Message, string, *yaml.Node) {
	items := p.Items(n, field, "a list of turns", messagesHint)
	if len(items) == 0 {
		if n.Kind == yaml.SequenceNode || yamlwalk.IsNull(n) {
			p.add(n, field, "must not be empty", "list the conversation's turns, or remove the messages key")
		}
		return nil, "", nil
	}
	st := &convState{answered: map[string]int{}, callNodes: map[string]*yaml.Node{}, claimed: map[string]*yaml.Node{}}
	if text {
		st.turns, st.lastRole, st.started = 1, promptcanary.RoleUser, true
	}
	explicitCallIDs(items, st)
	var out []promptcanary.Message
	var system string
	var systemNode *yaml.Node
	ok := true
	for i, item := range items {
		f := fmt.Sprintf("%s[%d]", field, i)
		m, mok := p.message(item, f, tools, st)
		switch {
		case !mok:
			ok = false
		case m.Role == promptcanary.RoleSystem:
			system, systemNode = m.Content, item
		default:
			out = append(out, m)
		}
	}
	if ok {
		p.conversationEnd(st)
	}
	return out, system, systemNode
}

// explicitCallIDs records the ids the file gives its calls, so that
// automatic ids skip them. It reads the nodes without reporting anything:
// message reports their problems.
func explicitCallIDs(items []*yaml.Node, st *convState) {
	for _, item := range items {
		calls := rawValue(item, "tool_calls")
		if calls == nil || calls.Kind != yaml.SequenceNode {
			continue
		}
		for _, c := range calls.Content {
			id := rawValue(deref(c), "id")
			if id == nil || !yamlwalk.IsString(id) || id.Value == "" {
				continue
			}
			if _, dup := st.callNodes[id.Value]; !dup {
				st.callNodes[id.Value] = id
			}
		}
	}
}

// rawValue returns the value of key in mapping n, nil when n is not a
// mapping or has no such key.
func rawValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return deref(n.Content[i+1])
		}
	}
	return nil
}

// message validates one turn and moves the conversation state on. ok is
// false when the turn has a problem.
func (p *parser) message(n *yaml.Node, field string, tools []string, st *convState) (promptcanary.Message, bool) {
	var m promptcanary.Message
	if !p.isMapping(n, field, "a mapping with role: and content:") {
		return m, false
	}
	var roleNode, contentNode, callsNode, idNode *yaml.Node
	p.fields(n, field, messageKeys, map[string]**yaml.Node{"role": &roleNode, "content": &contentNode, "tool_calls": &callsNode, "tool_call_id": &idNode})
	if roleNode == nil {
		p.add(n, field, "missing role", "turns need a role: system, user, assistant or tool")
		return m, false
	}
	role, ok := p.str(roleNode, field+".role")
	if !ok {
		if yamlwalk.IsNull(roleNode) {
			p.add(roleNode, field+".role", "must not be empty", "use one of: "+strings.Join(roles, ", "))
		}
		return m, false
	}
	if !slices.Contains(roles, role) {
		hint := "use one of: " + strings.Join(roles, ", ")
		if c := suggest.Closest(role, roles); c != "" {
			hint = "did you mean " + c + "? " + hint
		}
		p.add(roleNode, field+".role", fmt.Sprintf("unknown role %q", role), hint)
		return m, false
	}
	m.Role = role
	ok = p.firstTurn(n, field, role, st) && ok
	ok = p.onlyFor(callsNode, field+".tool_calls", role, promptcanary.RoleAssistant) && ok
	ok = p.onlyFor(idNode, field+".tool_call_id", role, promptcanary.RoleTool) && ok
	switch role {
	case promptcanary.RoleSystem:
		ok = p.systemTurn(n, contentNode, field, st, &m) && ok
	case promptcanary.RoleUser:
		ok = p.userTurn(n, contentNode, field, st, &m) && ok
	case promptcanary.RoleAssistant:
		ok = p.assistantTurn(n, contentNode, callsNode, field, tools, st, &m) && ok
	case promptcanary.RoleTool:
		ok = p.toolTurn(n, contentNode, idNode, field, st, &m) && ok
	}
	st.turns++
	st.lastRole, st.lastNode, st.lastField = role, n, field
	return m, ok
}

// onlyFor reports a field (n, when set) that only turns of role want have.
func (p *parser) onlyFor(n *yaml.Node, field, role, want string) bool {
	if n == nil || role == want {
		return true
	}
	key := field[strings.LastIndexByte(field, '.')+1:]
	p.add(n, field, fmt.Sprintf("a %s turn has no %s", role, key), fmt.Sprintf("remove %s from this turn: only %s turns have it", key, want))
	return false
}

// systemTurn checks a system turn: first, and the only system prompt.
func (p *parser) systemTurn(n, content *yaml.Node, field string, st *convState, m *promptcanary.Message) bool {
	if st.turns > 0 {
		p.add(n, field, "a system turn must open the conversation", "use system_prompt instead, or make it the first turn of a prompt without text")
		return false
	}
	var ok bool
	m.Content, ok = p.turnText(n, content, field)
	return ok
}

// userTurn checks a user turn: text, and no call left unanswered before it.
func (p *parser) userTurn(n, content *yaml.Node, field string, st *convState, m *promptcanary.Message) bool {
	ok := p.noPending(n, field, st)
	text, tok := p.turnText(n, content, field)
	m.Content = text
	return ok && tok
}

// turnText reads the required, non-empty content of a user or system turn.
func (p *parser) turnText(n, content *yaml.Node, field string) (string, bool) {
	if content == nil {
		p.add(n, field, "missing content", "give the turn its text, for example content: Hello")
		return "", false
	}
	text, ok := p.str(content, field+".content")
	if !ok && !yamlwalk.IsNull(content) {
		return "", false
	}
	if strings.TrimSpace(text) == "" {
		p.add(content, field+".content", "must not be empty", "give the turn its text, for example content: Hello")
		return "", false
	}
	return text, true
}

// noPending reports a turn that comes while calls are unanswered.
func (p *parser) noPending(n *yaml.Node, field string, st *convState) bool {
	if len(st.pending) == 0 {
		return true
	}
	p.add(n, field, "tool call "+strconv.Quote(st.pending[0].ID)+" is not answered", "add a role: tool turn with its result right after the assistant turn that made the call")
	st.pending = nil
	return false
}

// firstTurn reports a conversation that does not start with a user turn.
func (p *parser) firstTurn(n *yaml.Node, field, role string, st *convState) bool {
	if st.started || role == promptcanary.RoleSystem {
		return true
	}
	st.started = true
	if role == promptcanary.RoleUser {
		return true
	}
	p.add(n, field, "the conversation must start with a user turn, got "+article(role)+" turn", "start messages: with role: user, or set text: for the first user turn")
	return false
}

// article prefixes a role with "a" or "an".
func article(role string) string {
	if role == promptcanary.RoleAssistant {
		return "an " + role
	}
	return "a " + role
}

// assistantTurn checks an assistant turn and opens its calls.
func (p *parser) assistantTurn(n, content, calls *yaml.Node, field string, tools []string, st *convState, m *promptcanary.Message) bool {
	ok := p.noPending(n, field, st)
	if content != nil {
		text, sok := p.str(content, field+".content")
		ok = ok && (sok || yamlwalk.IsNull(content))
		m.Content = text
	}
	if calls != nil {
		m.ToolCalls = p.toolCalls(calls, field+".tool_calls", tools, st)
		if m.ToolCalls == nil {
			// Which tool turns answer what is unknown now: say nothing
			// about them.
			st.broken = true
			return false
		}
	}
	if strings.TrimSpace(m.Content) == "" && len(m.ToolCalls) == 0 {
		p.add(n, field, "an assistant turn needs content or tool_calls", "give what the model said (content) or the calls it made (tool_calls), or both")
		return false
	}
	st.pending, st.broken = slices.Clone(m.ToolCalls), false
	return ok
}

// toolCalls validates an assistant turn's tool_calls: list, assigning the
// ids left out. It returns nil when a call has a problem.
func (p *parser) toolCalls(n *yaml.Node, field string, tools []string, st *convState) []promptcanary.ToolCall {
	items := p.Items(n, field, "a list of tool calls", "write one call per line, each like - {name: get_weather, arguments: {city: Paris}}")
	if len(items) == 0 {
		if n.Kind == yaml.SequenceNode || yamlwalk.IsNull(n) {
			p.add(n, field, "must not be empty", "list the calls the model made, or remove tool_calls:")
		}
		return nil
	}
	out := make([]promptcanary.ToolCall, 0, len(items))
	ok := true
	for i, c := range items {
		call, cok := p.toolCall(c, fmt.Sprintf("%s[%d]", field, i), tools, st)
		out = append(out, call)
		ok = ok && cok
	}
	if !ok {
		return nil
	}
	return out
}

// toolCall validates one call of an assistant turn.
func (p *parser) toolCall(n *yaml.Node, field string, tools []string, st *convState) (promptcanary.ToolCall, bool) {
	var call promptcanary.ToolCall
	if !p.isMapping(n, field, "a mapping with name: and arguments:") {
		return call, false
	}
	var nameNode, argsNode, idNode *yaml.Node
	p.fields(n, field, toolCallKeys, map[string]**yaml.Node{"name": &nameNode, "arguments": &argsNode, "id": &idNode})
	ok := p.callName(n, nameNode, field, tools, &call)
	call.Arguments = json.RawMessage("{}")
	if argsNode != nil && !yamlwalk.IsNull(argsNode) {
		args, aok := p.callArguments(argsNode, field+".arguments")
		call.Arguments, ok = args, ok && aok
	}
	switch {
	case idNode == nil || yamlwalk.IsNull(idNode):
		call.ID = st.nextID()
	default:
		id, sok := p.str(idNode, field+".id")
		switch {
		case !sok:
			ok = false
		case id == "":
			p.add(idNode, field+".id", "must not be empty", "leave id: out to get one")
			ok = false
		default:
			call.ID = id
			ok = st.claim(p, idNode, field+".id", id) && ok
		}
	}
	return call, ok
}

// callName checks a call's tool name against the prompt's tools.
func (p *parser) callName(n, nameNode *yaml.Node, field string, tools []string, call *promptcanary.ToolCall) bool {
	if nameNode == nil {
		p.add(n, field, "missing name", "name the tool the model called, one of the prompt's tools")
		return false
	}
	name, ok := p.str(nameNode, field+".name")
	if !ok {
		return false
	}
	if !slices.Contains(tools, name) {
		hint := "add the tool to the prompt's tools: (the APIs want every called tool defined)"
		if c := suggest.Closest(name, tools); c != "" {
			hint = "did you mean " + c + "? " + hint
		}
		p.add(nameNode, field+".name", fmt.Sprintf("unknown tool %q", name), hint)
		return false
	}
	call.Name = name
	return true
}

// callArguments returns a call's arguments as a JSON object: a mapping, or
// a string that holds one.
func (p *parser) callArguments(n *yaml.Node, field string) (json.RawMessage, bool) {
	const hint = "write the arguments as a mapping, for example arguments: {city: Paris}, or as a JSON object string"
	if yamlwalk.IsString(n) {
		var obj map[string]any
		if err := json.Unmarshal([]byte(n.Value), &obj); err != nil || obj == nil {
			p.add(n, field, "must be a JSON object", hint)
			return nil, false
		}
		b, _ := json.Marshal(obj) // decoded JSON always encodes
		return b, true
	}
	if n.Kind != yaml.MappingNode {
		p.WrongType(n, field, "a mapping", hint)
		return nil, false
	}
	v, ok := p.value(n, field)
	if !ok {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		p.add(n, field, "cannot be sent as JSON: "+err.Error(), hint)
		return nil, false
	}
	return b, true
}

// claim records an explicit call id, reporting one used before (an id
// given twice, or a turn repeated through a YAML alias).
func (st *convState) claim(p *parser, n *yaml.Node, field, id string) bool {
	if first, dup := st.claimed[id]; dup {
		msg := fmt.Sprintf("duplicate tool call id %q (also at line %d)", id, first.Line)
		if first == n {
			msg = fmt.Sprintf("tool call %q is made twice: a YAML alias repeats its turn", id)
		}
		p.add(n, field, msg, "give each call an id of its own, or leave id: out to get one")
		return false
	}
	st.claimed[id] = n
	if _, seen := st.callNodes[id]; !seen {
		st.callNodes[id] = n
	}
	return true
}

// nextID returns the first automatic call id that the prompt does not use.
func (st *convState) nextID() string {
	for {
		st.autoID++
		id := "call_" + strconv.Itoa(st.autoID)
		if _, taken := st.callNodes[id]; !taken {
			st.callNodes[id] = nil
			return id
		}
	}
}

// toolTurn checks a tool result against the calls waiting for one.
func (p *parser) toolTurn(n, content, idNode *yaml.Node, field string, st *convState, m *promptcanary.Message) bool {
	ok := true
	switch {
	case content == nil:
		p.add(n, field, "missing content", "write the tool's result under content: (a text, or a mapping sent as JSON)")
		ok = false
	case yamlwalk.IsNull(content):
	case yamlwalk.IsString(content):
		m.Content = content.Value
	case content.Kind == yaml.MappingNode || content.Kind == yaml.SequenceNode:
		v, vok := p.value(content, field+".content")
		b, err := json.Marshal(v)
		ok = vok && err == nil
		m.Content = string(b)
	default:
		p.wrongType(content, field+".content", "a string")
		ok = false
	}
	call, cok := p.answer(n, idNode, field, st)
	m.ToolCallID, m.Name = call.ID, call.Name
	return ok && cok
}

// answer finds the call a tool turn answers and marks it answered.
func (p *parser) answer(n, idNode *yaml.Node, field string, st *convState) (promptcanary.ToolCall, bool) {
	if st.broken {
		return promptcanary.ToolCall{}, false
	}
	if idNode == nil || yamlwalk.IsNull(idNode) {
		if len(st.pending) == 0 {
			p.add(n, field, "this tool turn answers no call", "a tool turn follows an assistant turn with tool_calls:, one turn per call")
			return promptcanary.ToolCall{}, false
		}
		call := st.pending[0]
		st.pending = st.pending[1:]
		st.answered[call.ID] = n.Line
		return call, true
	}
	f := field + ".tool_call_id"
	id, ok := p.str(idNode, f)
	if !ok {
		return promptcanary.ToolCall{}, false
	}
	if i := slices.IndexFunc(st.pending, func(c promptcanary.ToolCall) bool { return c.ID == id }); i >= 0 {
		call := st.pending[i]
		st.pending = slices.Delete(st.pending, i, i+1)
		st.answered[id] = idNode.Line
		return call, true
	}
	if line, done := st.answered[id]; done {
		p.add(idNode, f, fmt.Sprintf("tool call %q is answered already (line %d)", id, line), "give each call one tool turn")
		return promptcanary.ToolCall{}, false
	}
	var open []string
	for _, c := range st.pending {
		open = append(open, c.ID)
	}
	hint := "a tool turn answers a call of the assistant turn right before it"
	if len(open) > 0 {
		hint = "use one of: " + strings.Join(open, ", ")
		if c := suggest.Closest(id, open); c != "" {
			hint = "did you mean " + c + "? " + hint
		}
	}
	p.add(idNode, f, fmt.Sprintf("unknown tool_call_id %q: no unanswered call has it", id), hint)
	return promptcanary.ToolCall{}, false
}

// conversationEnd checks the last turn: calls answered, not an assistant's.
func (p *parser) conversationEnd(st *convState) {
	field := st.lastField
	switch {
	case len(st.pending) > 0:
		p.add(st.lastNode, field, "tool call "+strconv.Quote(st.pending[0].ID)+" is not answered", "add a role: tool turn with its result after the assistant turn")
	case st.lastRole == promptcanary.RoleAssistant:
		p.add(st.lastNode, field, "the conversation ends with an assistant turn: nothing for the model to answer", lastTurnHint)
	case st.lastRole == promptcanary.RoleSystem:
		p.add(st.lastNode, field, "the conversation has no user turn", "add a role: user turn after the system turn")
	}
}

// fields reads the pairs of mapping n: the value of each key named in into
// goes to its node, and any other key is reported as unknown, with known
// as the keys to suggest.
func (p *parser) fields(n *yaml.Node, field string, known []string, into map[string]**yaml.Node) {
	for _, e := range p.Pairs(n, field) {
		if dst, ok := into[e.Key.Value]; ok {
			*dst = e.Val
		} else {
			p.UnknownKey(e.Key, field, known)
		}
	}
}
