package tooluse

import (
	"bytes"
	"slices"
	"strings"
	"sync"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/jsonscan"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// Where tool calls were read from, recorded as metadata "source".
const (
	sourceStructured = "structured" // the provider's structured tool calls
	sourceJSON       = "json"       // the response content parsed as JSON
	sourceText       = "text"       // a text pattern in the response content
	sourceNone       = "none"       // nothing found
)

// argContainers are the keys whose values hold a call's arguments, in the
// order they are looked up.
var argContainers = [...]string{"arguments", "parameters", "args", "input"}

var (
	// presencePatterns detect a tool call in free text.
	presencePatterns = text.Compile("(?i)",
		`"function"\s*:\s*"`,
		`"tool_calls"\s*:\s*\[`,
		`"name"\s*:\s*"\w+"\s*,\s*"arguments"`,
		`<tool_call>`,
		`<function_calls>`,
		`\bfunctions?\.\w+\(`,
	)
	// namePatterns capture function names in free text; all matches of the
	// first pattern come before those of the second.
	namePatterns = text.Compile("(?i)",
		`"(?:function|name)"\s*:\s*"([^"]+)"`,
		`<function_calls>\s*<invoke>\s*<tool_name>([^<]+)</tool_name>`,
	)
)

// scanHasCall is jsonHasCall on the trimmed content, decided while
// validating it instead of building its tree: an object with a function,
// tool_calls or name key, or a list holding an object with a function or
// name key.
func scanHasCall(s string) bool {
	if s == "" || (s[0] != '{' && s[0] != '[') {
		return false
	}
	top := s[0]
	found := false
	kind, ok := text.ScanJSON(s, func(depth int, lit string) {
		if found {
			return
		}
		switch {
		case top == '{' && depth == 1:
			k := text.JSONUnquote(lit)
			found = k == "function" || k == "tool_calls" || k == "name"
		case top == '[' && depth == 2:
			k := text.JSONUnquote(lit)
			found = k == "function" || k == "name"
		}
	})
	return ok && found && (kind == jsonscan.Object || kind == jsonscan.Array)
}

// structuralKeys are the keys the text fallback for argument keys ignores.
var structuralKeys = map[string]bool{
	"function": true, "name": true, "arguments": true, "tool_calls": true,
	"type": true, "id": true, "role": true, "content": true,
}

// input is one response as the tool-use probes read it: its structured tool
// calls, which take precedence, or else its content, parsed as JSON at most
// once. What the probes ask of it is worked out once and kept: the probes
// of one response, evaluated one after the other, share one input (see
// getInput), so the four tool-use probes of a suite parse a response once.
// The slices it returns are its own: a result gets a copy.
type input struct {
	calls   []promptcanary.ToolCall // a copy of the response's, arguments in args
	args    []byte
	content string
	valid   bool

	jsonDone bool
	isJSON   bool
	facts    jsonFacts // what the JSON document holds
	a        arena
	parsed   bool
	root     node

	detected  [3]int8 // by strategy (strategyIndex): 0 not known yet, 1 no, 2 yes
	detectSrc [3]string

	nameList found // by names
	keyList  found // by argKeys

	objDone bool
	obj     node
	objSt   argsState
}

// found is a list of an input worked out once, and where it was found.
type found struct {
	done bool
	list []string
	src  string
}

// get returns the list, worked out by find on the first call, which
// appends to the list's emptied backing array.
func (f *found) get(find func(list []string) ([]string, string)) ([]string, string) {
	if !f.done {
		f.done = true
		f.list, f.src = find(f.list[:0])
	}
	return f.list, f.src
}

// inputs keeps inputs for reuse, as text.Analyze keeps analyses: the next
// probe that judges the same response, most often on the same P, finds
// the work done. An input is used for a response only when its content
// and tool calls are equal, so any other interleaving costs only the work.
var inputs = sync.Pool{New: func() any { return new(input) }}

// getInput returns the input of r, reusing a kept one made for the same
// response. Give it back with release.
func getInput(r *promptcanary.Response) *input {
	in := inputs.Get().(*input)
	if in.valid && in.content == r.Content && sameCalls(in.calls, r.ToolCalls) {
		return in
	}
	in.a.reset()
	*in = input{content: r.Content, valid: true, a: in.a, calls: in.calls[:0], args: in.args[:0],
		nameList: found{list: in.nameList.list[:0]}, keyList: found{list: in.keyList.list[:0]}, facts: jsonFacts{textKeys: in.facts.textKeys[:0]}}
	in.copyCalls(r.ToolCalls)
	return in
}

// copyCalls keeps a copy of calls, their arguments included: a caller
// may reuse the buffer of a response's arguments for the next one, and an
// input that only pointed at it would take the new arguments for the ones
// it worked out.
func (in *input) copyCalls(calls []promptcanary.ToolCall) {
	for _, c := range calls {
		in.args = append(in.args, c.Arguments...)
	}
	end := 0
	for _, c := range calls {
		start := end
		end += len(c.Arguments)
		c.Arguments = in.args[start:end:end]
		in.calls = append(in.calls, c)
	}
}

// release gives in back for reuse; in and the slices it returned must not
// be used after.
func (in *input) release() {
	if cap(in.nameList.list) > maxArena || cap(in.keyList.list) > maxArena || cap(in.facts.textKeys) > maxArena ||
		cap(in.calls) > maxArena || cap(in.args) > maxArenaBytes {
		return
	}
	inputs.Put(in)
}

// sameCalls reports whether two lists of tool calls are equal.
func sameCalls(a, b []promptcanary.ToolCall) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Name != b[i].Name || !bytes.Equal(a[i].Arguments, b[i].Arguments) {
			return false
		}
	}
	return true
}

// fresh returns a copy of s for a result, never nil.
func fresh(s []string) []string {
	return append(make([]string, 0, len(s)), s...)
}

// structured reports whether the provider returned structured tool calls.
func (in *input) structured() bool { return len(in.calls) > 0 }

// The kinds of object keys the JSON rules look for, as bits of
// input.keysHeld.
const (
	heldNames      = 1 << iota // function, name, tool_calls
	heldContainers             // argContainers
)

// keyKinds is a set of the kinds of keys (heldNames, heldContainers).
type keyKinds uint8

// jsonFacts is what input.json notes of a JSON document while it
// validates it, as a text.ValueVisitor: the kinds of keys it holds, and
// what the text patterns would find in it. In a valid document every
// unescaped '"' delimits a string, so those patterns can only match at
// a key: `"(\w+)"\s*:\s*(?:"[^"]*"|\d+|true|false|\[|\{)` (argKeyPattern)
// exactly at a key of word characters whose value starts with '"', a
// digit, 't', 'f', '[' or '{', and the first of namePatterns at a key that
// is "name" or "function" up to case. A key with an escape could hold
// an escaped '"' that starts a match inside it: such a document is read
// with the text patterns themselves.
type jsonFacts struct {
	held     keyKinds
	nameKey  bool     // a key equal to "name" or "function" up to case
	escKey   bool     // a key with an escape
	pending  string   // the key whose value comes next, when it may be an argument key
	textKeys []string // what appendTextKeys finds, some repeated
}

// maxDedup is how many distinct text keys jsonFacts keeps distinct as it
// goes; beyond, it appends them all and sortedSet removes the repeats.
const maxDedup = 16

// Key notes key lit.
func (f *jsonFacts) Key(_ int, lit string) {
	f.pending = ""
	switch lit {
	case "function", "name":
		f.held |= heldNames
		f.nameKey = true
		return // structural
	case "tool_calls":
		f.held |= heldNames
		return // structural
	case "arguments":
		f.held |= heldContainers
		return // structural
	case "parameters", "args", "input":
		f.held |= heldContainers
	case "type", "id", "role", "content":
		return // structural
	}
	if lit == "" || wordEnd(lit, 0) != len(lit) {
		if strings.IndexByte(lit, '\\') >= 0 {
			f.held |= heldNames | heldContainers // an escaped key may be any of them
			f.escKey = true
		} else if !f.nameKey && (len(lit) == len("name") || len(lit) == len("function") || !isASCII(lit)) {
			f.nameKey = strings.EqualFold(lit, "name") || strings.EqualFold(lit, "function")
		}
		return
	}
	if !f.nameKey && (len(lit) == len("name") || len(lit) == len("function")) {
		f.nameKey = strings.EqualFold(lit, "name") || strings.EqualFold(lit, "function")
	}
	f.pending = lit // a key of word characters, not structural (structuralKeys)
}

// Value notes the first byte of the value of the last key.
func (f *jsonFacts) Value(c byte) {
	if f.pending == "" {
		return
	}
	switch {
	case c == '"', c == '[', c == '{', c == 't', c == 'f', '0' <= c && c <= '9':
		if len(f.textKeys) >= maxDedup || !slices.Contains(f.textKeys, f.pending) {
			f.textKeys = append(f.textKeys, f.pending)
		}
	}
	f.pending = ""
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// json reports whether the trimmed content is JSON, without parsing it,
// and notes what its keys hold (facts).
func (in *input) json() bool {
	if !in.jsonDone {
		in.jsonDone = true
		in.facts = jsonFacts{textKeys: in.facts.textKeys[:0]}
		_, in.isJSON = text.ScanJSONKeys(strings.TrimSpace(in.content), &in.facts)
	}
	return in.isJSON
}

// doc returns the trimmed content parsed as JSON, and whether it is JSON.
func (in *input) doc() (*node, bool) {
	if !in.json() {
		return &in.root, false
	}
	if !in.parsed {
		in.parsed = true
		in.root, _ = in.a.parse(strings.TrimSpace(in.content))
	}
	return &in.root, true
}

// holds reports whether the JSON document has an object key of kind, a
// heldNames or heldContainers bit: the rules that look for one need no
// tree of a document that has none.
func (in *input) holds(kind keyKinds) bool {
	return in.json() && in.facts.held&kind != 0
}

// strategyIndex numbers the strategies for input.detected.
func strategyIndex(s Strategy) int {
	switch s {
	case StrategyJSON:
		return 1
	case StrategyText:
		return 2
	}
	return 0
}

// detect reports whether the response holds a tool call, and from where.
// Structured calls count whatever the strategy; the strategy chooses how
// the content is read.
func (in *input) detect(s Strategy) (bool, string) {
	k := strategyIndex(s)
	if in.detected[k] == 0 {
		found, src := in.detectOnce(s)
		in.detected[k], in.detectSrc[k] = 1, src
		if found {
			in.detected[k] = 2
		}
	}
	return in.detected[k] == 2, in.detectSrc[k]
}

func (in *input) detectOnce(s Strategy) (bool, string) {
	if in.structured() {
		return true, sourceStructured
	}
	if s != StrategyText {
		if in.parsed {
			if root, ok := in.doc(); ok && jsonHasCall(root) {
				return true, sourceJSON
			}
		} else if scanHasCall(strings.TrimSpace(in.content)) {
			return true, sourceJSON
		}
	}
	if s != StrategyJSON {
		if text.HasFolds(in.content) {
			for _, re := range presencePatterns {
				if re.MatchString(in.content) {
					return true, sourceText
				}
			}
		} else if hasCallPattern(in.content) {
			return true, sourceText
		}
	}
	return false, sourceNone
}

// jsonHasCall reports whether a parsed response looks like a tool call: an
// object with a function, tool_calls or name key, or a list holding an
// object with a function or name key.
func jsonHasCall(n *node) bool {
	switch n.kind {
	case kindObject:
		return n.has("function") || n.has("tool_calls") || n.has("name")
	case kindArray:
		for i := range n.items {
			it := &n.items[i]
			if it.kind == kindObject && (it.has("function") || it.has("name")) {
				return true
			}
		}
	}
	return false
}

// names returns the called function names, deduplicated in order of first
// appearance, and where they were found.
func (in *input) names() ([]string, string) {
	return in.nameList.get(in.namesOnce)
}

func (in *input) namesOnce(names []string) ([]string, string) {
	if in.structured() {
		for _, c := range in.calls {
			if c.Name != "" && !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
		return names, sourceStructured
	}
	if in.holds(heldNames) {
		root, _ := in.doc()
		names = jsonNames(root, names)
		if len(names) > 0 {
			return dedup(names), sourceJSON
		}
	}
	if in.json() && !in.facts.nameKey && !in.facts.escKey && strings.IndexByte(in.content, '<') < 0 {
		return names, sourceNone // the text patterns cannot match (see jsonFacts)
	}
	if text.HasFolds(in.content) {
		for _, re := range namePatterns {
			for _, m := range re.FindAllStringSubmatch(in.content, -1) {
				if n := strings.TrimSpace(m[1]); n != "" {
					names = append(names, n)
				}
			}
		}
	} else {
		names = appendTextNames(names, in.content)
	}
	if len(names) == 0 {
		return names, sourceNone
	}
	return dedup(names), sourceText
}

// jsonNames appends the names of a parsed response: an object's function
// (an object) name, else its own name, then each tool_calls[i].function.name;
// for a list, each item's function.name.
func jsonNames(root *node, names []string) []string {
	switch root.kind {
	case kindObject:
		if f, ok := root.get("function"); ok && f.kind == kindObject {
			names = appendName(names, f)
		} else if n, ok := root.get("name"); ok && n.kind == kindString && n.str != "" {
			names = append(names, n.str)
		}
		if tc, ok := root.get("tool_calls"); ok && tc.kind == kindArray {
			names = appendItemNames(names, tc)
		}
	case kindArray:
		names = appendItemNames(names, root)
	}
	return names
}

// appendItemNames appends function.name of every object item of list.
func appendItemNames(names []string, list *node) []string {
	for i := range list.items {
		it := &list.items[i]
		if it.kind != kindObject {
			continue
		}
		if f, ok := it.get("function"); ok && f.kind == kindObject {
			names = appendName(names, f)
		}
	}
	return names
}

// appendName appends the non-empty string name of a function object.
func appendName(names []string, fn *node) []string {
	if n, ok := fn.get("name"); ok && n.kind == kindString && n.str != "" {
		names = append(names, n.str)
	}
	return names
}

// dedup removes repeated names, keeping the first of each.
func dedup(names []string) []string {
	out := names[:0]
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// argKeys returns the sorted, distinct argument keys of the response's tool
// calls, and where they were found.
func (in *input) argKeys() ([]string, string) {
	return in.keyList.get(in.argKeysOnce)
}

func (in *input) argKeysOnce(keys []string) ([]string, string) {
	if in.structured() {
		for _, c := range in.calls {
			if args, st := in.callArguments(c.Arguments); st == argsObject {
				keys = appendKeys(keys, &args)
			}
		}
		return sortedSet(keys), sourceStructured
	}
	if in.holds(heldContainers) {
		root, _ := in.doc()
		keys = in.collectArgKeys(root, keys)
		if len(keys) > 0 {
			return sortedSet(keys), sourceJSON
		}
	}
	if in.json() && !in.facts.escKey {
		keys = append(keys, in.facts.textKeys...) // what appendTextKeys would find (see jsonFacts)
	} else {
		keys = appendTextKeys(keys, in.content)
	}
	if len(keys) == 0 {
		return keys, sourceNone
	}
	return sortedSet(keys), sourceText
}

// collectArgKeys appends the keys of every object found under an argument
// container anywhere in n; a string value is parsed as JSON first.
func (in *input) collectArgKeys(n *node, keys []string) []string {
	switch n.kind {
	case kindObject:
		for _, k := range argContainers {
			v, ok := n.get(k)
			if !ok {
				continue
			}
			switch v.kind {
			case kindObject:
				keys = appendKeys(keys, v)
			case kindString:
				if obj, ok := in.a.parse(v.str); ok && obj.kind == kindObject {
					keys = appendKeys(keys, &obj)
				}
			}
		}
		for i := range n.members {
			keys = in.collectArgKeys(&n.members[i].val, keys)
		}
	case kindArray:
		for i := range n.items {
			keys = in.collectArgKeys(&n.items[i], keys)
		}
	}
	return keys
}

func appendKeys(keys []string, obj *node) []string {
	for i := range obj.members {
		keys = append(keys, obj.members[i].key)
	}
	return keys
}

func sortedSet(keys []string) []string {
	slices.Sort(keys)
	return slices.Compact(keys)
}

// argsState says what a call's arguments hold.
type argsState int

const (
	argsNone    argsState = iota // absent, empty, or JSON but not a non-empty object
	argsInvalid                  // not JSON
	argsObject                   // a non-empty object
)

// callArguments parses the arguments of a structured tool call: an object,
// or a JSON string holding one (as OpenAI sends them).
func (in *input) callArguments(raw []byte) (node, argsState) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return node{}, argsNone
	}
	n, ok := in.a.parse(string(raw))
	if !ok {
		return node{}, argsInvalid
	}
	if n.kind == kindString {
		if n, ok = in.a.parse(n.str); !ok {
			return node{}, argsInvalid
		}
	}
	if n.kind != kindObject || len(n.members) == 0 {
		return node{}, argsNone
	}
	return n, argsObject
}

// argObject returns the argument object whose values tool_call_schema types:
// the first structured call's arguments, or else the first non-empty object
// under an argument container in the parsed content, depth-first in
// document order.
func (in *input) argObject() (node, argsState) {
	if !in.objDone {
		in.objDone = true
		in.obj, in.objSt = in.argObjectOnce()
	}
	return in.obj, in.objSt
}

func (in *input) argObjectOnce() (node, argsState) {
	if in.structured() {
		return in.callArguments(in.calls[0].Arguments)
	}
	if !in.json() {
		return node{}, argsInvalid
	}
	if !in.holds(heldContainers) {
		return node{}, argsNone
	}
	root, _ := in.doc()
	if obj, ok := in.findArgs(root); ok {
		return obj, argsObject
	}
	return node{}, argsNone
}

// findArgs searches n depth-first: an object's own argument containers
// first (in argContainers order, a string value parsed as JSON), then its
// values in document order.
func (in *input) findArgs(n *node) (node, bool) {
	switch n.kind {
	case kindObject:
		for _, k := range argContainers {
			v, ok := n.get(k)
			if !ok {
				continue
			}
			switch v.kind {
			case kindObject:
				if len(v.members) > 0 {
					return *v, true
				}
			case kindString:
				if obj, ok := in.a.parse(v.str); ok && obj.kind == kindObject && len(obj.members) > 0 {
					return obj, true
				}
			}
		}
		for i := range n.members {
			if obj, ok := in.findArgs(&n.members[i].val); ok {
				return obj, true
			}
		}
	case kindArray:
		for i := range n.items {
			if obj, ok := in.findArgs(&n.items[i]); ok {
				return obj, true
			}
		}
	}
	return node{}, false
}
