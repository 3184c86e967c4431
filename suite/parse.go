package suite

import (
	"fmt"
	"iter"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/internal/yamlwalk"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
)

// The keys each kind of mapping accepts.
var (
	topKeys    = []string{"name", "description", "tags", "default_system_prompt", "provider", "temperature", "max_tokens", "seed", "samples", "max_answer_bytes", "base_url", "providers", "judges", "prices", "store", "probes", "prompts"}
	promptKeys = []string{"id", "text", "messages", "response_format", "tags", "description", "system_prompt", "expected_keywords", "probes", "tools", "tool_choice"}
	toolKeys   = []string{"name", "description", "parameters"}
)

// idRE is the charset of explicit prompt and probe ids.
var idRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// toolNameRE is the charset and length of a tool name that every model API
// accepts.
var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

const (
	idHint       = "use only letters, digits, '_', '.' and '-'"
	probesHint   = "run `promptcanary probes` to list them"
	quoteHint    = "quote the value to make it a string"
	textHint     = "prompts need a text: field (or messages:, a conversation)"
	tagHint      = "remove the empty tag"
	probeTypeTip = "probes need a type: field, for example type: json_validity"
)

// parser walks canary.yaml with a yamlwalk.Walker, collecting problems.
type parser struct {
	yamlwalk.Walker
	file     string
	problems []*Problem
}

// newParser returns a parser of the named file.
func newParser(file string) *parser {
	p := &parser{file: file}
	p.Report = p.add
	return p
}

// kv is one key/value pair of a mapping, both resolved.
type kv = yamlwalk.KV

// probeSpec is a probe entry being validated.
type probeSpec struct {
	inst     probe.Instance
	node     *yaml.Node // the entry
	idNode   *yaml.Node // the id: value, nil when the id is automatic
	field    string     // "probes[2] (refusal)" once the type is known
	explicit bool
}

// promptSpec is a prompt entry being validated.
type promptSpec struct {
	prompt     promptcanary.Prompt
	node       *yaml.Node
	idNode     *yaml.Node
	field      string
	idOK       bool
	probes     []*probeSpec
	probeCount int
}

func (p *parser) add(n *yaml.Node, field, msg, hint string) {
	if p.Overrun {
		return
	}
	line, col := 0, 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	p.problems = append(p.problems, NewProblem(p.file, line, col, field, msg, hint))
}

func (p *parser) sortProblems() {
	slices.SortStableFunc(p.problems, func(a, b *Problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
}

// decode parses data into its single document's root node.
func (p *parser) decode(data []byte) *yaml.Node {
	return p.Decode(data, "a suite needs a prompts: list and a probes: list", nil)
}

func (p *parser) wrongType(n *yaml.Node, field, want string) {
	p.WrongType(n, field, want, typeHint(n, want))
}

// typeHint shows how to write a value of the wanted type.
func typeHint(n *yaml.Node, want string) string {
	switch want {
	case "a string":
		if n.Kind == yaml.ScalarNode {
			return quoteHint
		}
		return "write a single text value, quoted if it contains ': '"
	case "a list of strings":
		if n.Kind == yaml.ScalarNode && !yamlwalk.IsNull(n) {
			return "write a list: [" + n.Value + "]"
		}
		return "write a list of texts, for example [a, b]"
	case "a number":
		return "write a number, for example 0.5"
	case "an integer":
		return "write a whole number, for example 3"
	case "a list of probes", "a list of prompts", "a list of tools":
		return "write one entry per line, each starting with '- '"
	}
	return "write key: value lines indented under it"
}

// str returns the value of a string field. Null yields ok false without a
// problem; any other non-string is a problem.
func (p *parser) str(n *yaml.Node, field string) (string, bool) {
	if yamlwalk.IsString(n) {
		return n.Value, true
	}
	if !yamlwalk.IsNull(n) {
		p.wrongType(n, field, "a string")
	}
	return "", false
}

// strList returns the value of a list-of-strings field; null yields nil.
func (p *parser) strList(n *yaml.Node, field string) []string {
	if yamlwalk.IsNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.wrongType(n, field, "a list of strings")
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, item := range n.Content {
		item = p.Resolve(item)
		f := fmt.Sprintf("%s[%d]", field, i)
		if yamlwalk.IsString(item) {
			out = append(out, item.Value)
		} else {
			p.wrongType(item, f, "a string")
		}
	}
	return out
}

// noEmptyItems reports the empty strings of a list of strings.
func (p *parser) noEmptyItems(n *yaml.Node, field, hint string) {
	if n.Kind != yaml.SequenceNode {
		return
	}
	for i, item := range n.Content {
		item = deref(item)
		if yamlwalk.IsString(item) && item.Value == "" {
			p.add(item, fmt.Sprintf("%s[%d]", field, i), "must not be empty", hint)
		}
	}
}

// items returns the resolved items of a list field; null yields nil.
func (p *parser) items(n *yaml.Node, field, what string) []*yaml.Node {
	return p.Items(n, field, what, typeHint(n, what))
}

// isMapping reports whether n is a mapping, and otherwise reports it as
// not want.
func (p *parser) isMapping(n *yaml.Node, field, want string) bool {
	if n.Kind != yaml.MappingNode {
		p.wrongType(n, field, want)
		return false
	}
	return true
}

// mappings yields the field path and the node of each item of the list
// field (what) that is a mapping, and reports the other items as not
// want.
func (p *parser) mappings(n *yaml.Node, field, what, want string) iter.Seq2[string, *yaml.Node] {
	return func(yield func(string, *yaml.Node) bool) {
		for i, item := range p.items(n, field, what) {
			f := fmt.Sprintf("%s[%d]", field, i)
			if p.isMapping(item, f, want) && !yield(f, item) {
				return
			}
		}
	}
}

// value converts a node to a plain Go value: string, int (int64 or uint64
// when large), float64, bool, []any, map[string]any or nil.
func (p *parser) value(n *yaml.Node, field string) (any, bool) {
	if !p.Enter(n, field) {
		return nil, false
	}
	defer p.Leave()
	n = p.Resolve(n)
	switch n.Kind {
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		ok := true
		for i, c := range n.Content {
			v, cok := p.value(c, fmt.Sprintf("%s[%d]", field, i))
			out[i], ok = v, ok && cok
		}
		return out, ok
	case yaml.MappingNode:
		ps := p.Pairs(n, field)
		out := make(map[string]any, len(ps))
		ok := true
		for _, e := range ps {
			v, cok := p.value(e.Val, yamlwalk.Join(field, e.Key.Value))
			out[e.Key.Value], ok = v, ok && cok
		}
		return out, ok
	case yaml.ScalarNode:
		switch t := n.ShortTag(); t {
		case "!!null":
			return nil, true
		case "!!str", "!!timestamp", "!!binary":
			return n.Value, true
		case "!!bool", "!!int", "!!float":
			var v any
			if err := n.Decode(&v); err != nil {
				p.add(n, field, fmt.Sprintf("invalid %s %q", strings.TrimPrefix(strings.TrimPrefix(yamlwalk.Describe(n), "an "), "a "), n.Value), quoteHint)
				return nil, false
			}
			if f, isF := v.(float64); isF && (math.IsNaN(f) || math.IsInf(f, 0)) {
				p.add(n, field, "must be a finite number, got "+n.Value, "write a number, for example 0.5")
				return nil, false
			}
			return v, true
		default:
			p.add(n, field, "unsupported YAML tag "+t, "remove the tag")
			return nil, false
		}
	}
	p.add(n, field, "unsupported YAML node", "check the YAML syntax")
	return nil, false
}

// parse walks the document and builds the suite; problems accumulate in p.
func (p *parser) parse(data []byte) *Suite {
	root := p.decode(data)
	if root == nil {
		return nil
	}
	doc := p.Resolve(root)
	if doc.Kind != yaml.MappingNode {
		p.add(doc, "", "top level must be a mapping, got "+yamlwalk.Describe(doc), "a suite has name:, probes: and prompts: keys")
		return nil
	}
	s := &Suite{Name: DefaultName, PromptProbes: map[string][]probe.Instance{}}
	var probesKey, probesVal, promptsKey, promptsVal *yaml.Node
	for _, e := range p.Pairs(doc, "") {
		k, v := e.Key, e.Val
		switch k.Value {
		case "probes":
			probesKey, probesVal = k, v
		case "prompts":
			promptsKey, promptsVal = k, v
		default:
			p.suiteKey(s, k, v)
		}
	}

	suiteProbes, probeCount := p.probeList(probesVal, "probes")
	suiteIDs := p.assignProbeIDs(suiteProbes, nil)
	for _, ps := range suiteProbes {
		s.Probes = append(s.Probes, ps.inst)
	}

	prompts, promptItems := p.promptList(doc, promptsKey, promptsVal, s.DefaultSystemPrompt)
	for _, ps := range prompts {
		probeCount += ps.probeCount
		p.assignProbeIDs(ps.probes, suiteIDs)
	}
	p.addPrompts(s, prompts)
	p.checkSkips(s, suiteProbes, prompts, len(s.Prompts) == promptItems)
	p.checkJudges(s)
	if probeCount == 0 {
		where := probesKey
		if where == nil {
			where = doc
		}
		p.add(where, "probes", "at least one probe is required", "add a probes: list, or probes: under a prompt")
	}
	return s
}

// suiteKey decodes one top-level key of the suite other than probes: and
// prompts: into s.
func (p *parser) suiteKey(s *Suite, k, v *yaml.Node) {
	switch k.Value {
	case "name":
		if name, ok := p.str(v, "name"); ok && name != "" {
			s.Name = name
		}
	case "description":
		s.Description, _ = p.str(v, "description")
	case "tags":
		s.Tags = p.strList(v, "tags")
		p.noEmptyItems(v, "tags", tagHint)
	case "default_system_prompt":
		s.DefaultSystemPrompt, _ = p.str(v, "default_system_prompt")
	case "provider":
		if spec, ok := p.str(v, "provider"); ok {
			if _, _, err := provider.Split(spec); err != nil {
				p.add(v, "provider", fmt.Sprintf("must be NAME/MODEL, got %q", spec), specHint(spec, "for example sim/stable or openai/gpt-4o"))
			} else {
				s.Defaults.Provider = spec
				s.Defaults.ProviderLine = v.Line
			}
		}
	case "temperature":
		s.Defaults.Temperature = p.temperature(v)
	case "max_tokens":
		s.Defaults.MaxTokens = p.boundedInt(v, "max_tokens", 1, promptcanary.MaxMaxTokens)
	case "samples":
		s.Defaults.Samples = p.boundedInt(v, "samples", 1, promptcanary.MaxSamples)
	case "max_answer_bytes":
		s.Defaults.MaxAnswerBytes = p.boundedInt(v, "max_answer_bytes", promptcanary.MinMaxAnswerBytes, promptcanary.MaxMaxAnswerBytes)
	case "seed":
		s.Defaults.Seed = p.seed(v)
	case "base_url":
		s.Defaults.BaseURL, _ = p.str(v, "base_url")
	case "providers":
		s.Providers = p.providers(v, "providers")
	case "judges":
		s.Judges = p.providers(v, "judges")
	case "store":
		s.Defaults.Store, _ = p.str(v, "store")
	case "prices":
		s.Prices = p.prices(v)
	default:
		p.UnknownKey(k, "", topKeys)
	}
}

// promptList validates the prompts: list (promptsKey, promptsVal; both nil
// when doc has none) and returns the valid prompts and how many items the
// list had. A missing or empty list is a problem.
func (p *parser) promptList(doc, promptsKey, promptsVal *yaml.Node, system string) ([]*promptSpec, int) {
	var prompts []*promptSpec
	promptItems := 0
	if promptsVal != nil {
		for i, n := range p.items(promptsVal, "prompts", "a list of prompts") {
			promptItems++
			if ps := p.prompt(n, fmt.Sprintf("prompts[%d]", i), system); ps != nil {
				prompts = append(prompts, ps)
			}
		}
	}
	if promptsVal == nil || (yamlwalk.IsNull(promptsVal) || promptsVal.Kind == yaml.SequenceNode) && len(promptsVal.Content) == 0 {
		where := promptsKey
		if where == nil {
			where = doc
		}
		p.add(where, "prompts", "at least one prompt is required", "add a prompts: list, for example prompts: [\"What is the capital of France?\"]")
	}
	return prompts, promptItems
}

// probeList validates a list of probes (suite-wide or a prompt's own). It
// returns the valid entries and how many entries there were, counting a
// value of the wrong type as one so that "no probes" is not reported on top.
func (p *parser) probeList(n *yaml.Node, field string) ([]*probeSpec, int) {
	if n == nil {
		return nil, 0
	}
	count := 0
	if !yamlwalk.IsNull(n) && n.Kind != yaml.SequenceNode {
		count++
	}
	var specs []*probeSpec
	for i, c := range p.items(n, field, "a list of probes") {
		count++
		if ps := p.probe(c, fmt.Sprintf("%s[%d]", field, i)); ps != nil {
			specs = append(specs, ps)
		}
	}
	return specs, count
}

// checkSkips reports probes that would skip every prompt they judge (see
// probe.Skipper): a prompt's own probe that skips its prompt, and a
// suite-wide one that skips every prompt. The suite-wide check needs every
// prompt, so it is left out when some prompt is invalid.
func (p *parser) checkSkips(s *Suite, suiteProbes []*probeSpec, prompts []*promptSpec, allPrompts bool) {
	for _, ps := range prompts {
		for _, pp := range ps.probes {
			sk, ok := pp.inst.Probe.(probe.Skipper)
			if !ok || !ps.idOK {
				continue
			}
			if reason, hint := sk.Skips(&ps.prompt); reason != "" {
				p.add(pp.node, pp.field, "nothing to check on this prompt: "+reason, hint)
			}
		}
	}
	if !allPrompts || len(s.Prompts) == 0 {
		return
	}
	for _, pp := range suiteProbes {
		sk, ok := pp.inst.Probe.(probe.Skipper)
		if !ok {
			continue
		}
		var reason, hint string
		for i := range s.Prompts {
			r, h := sk.Skips(&s.Prompts[i])
			if r == "" {
				reason = ""
				break
			}
			if reason == "" {
				reason, hint = r, h
			}
		}
		if reason != "" {
			p.add(pp.node, pp.field, "nothing to check on any prompt: "+reason, hint)
		}
	}
}

// addPrompts adds the valid prompts to s in file order, reporting duplicate
// ids, and binds each prompt's own probes to its id.
func (p *parser) addPrompts(s *Suite, prompts []*promptSpec) {
	promptLines := map[string]int{}
	for _, ps := range prompts {
		if !ps.idOK {
			continue
		}
		id := ps.prompt.ID
		if line, dup := promptLines[id]; dup {
			field, at, hint := ps.field, ps.node, "give the prompts distinct texts or id: fields"
			if ps.idNode != nil {
				field, at, hint = ps.field+".id", ps.idNode, "give each prompt an id: of its own"
			}
			p.add(at, field, fmt.Sprintf("duplicate prompt id %q (also at line %d)", id, line), hint)
			continue
		}
		promptLines[id] = ps.node.Line
		if ps.idNode != nil {
			promptLines[id] = ps.idNode.Line
		}
		s.Prompts = append(s.Prompts, ps.prompt)
		if len(ps.probes) > 0 {
			own := make([]probe.Instance, len(ps.probes))
			for i, pp := range ps.probes {
				own[i] = pp.inst
			}
			s.PromptProbes[id] = own
		}
	}
}

// probeKeys sorts the keys of a probe mapping: type: (or probe_id:) is
// returned with its field path, id: goes to ps.idNode and the others are
// parameters. It returns a nil node, with the problem reported, when the
// mapping names no type.
func (p *parser) probeKeys(n *yaml.Node, field string, ps *probeSpec, params map[string]kv) (typeNode *yaml.Node, typeField string) {
	typeField = field
	var probeIDNode *yaml.Node
	var others []string
	for _, e := range p.Pairs(n, field) {
		switch e.Key.Value {
		case "type":
			typeNode = e.Val
		case "probe_id":
			probeIDNode = e.Val
		case "id":
			ps.idNode = e.Val
		default:
			others = append(others, e.Key.Value)
			params[e.Key.Value] = e
		}
	}
	if typeNode != nil && probeIDNode != nil {
		p.add(probeIDNode, field+".probe_id", "type: and probe_id: both set", "use either type: or probe_id:, not both")
	} else if typeNode == nil {
		typeNode, typeField = probeIDNode, field+".probe_id"
	}
	if typeNode != nil && typeField == field {
		typeField = field + ".type"
	}
	if typeNode == nil {
		hint := probeTypeTip
		for _, o := range others {
			if suggest.Closest(o, []string{"type"}) != "" {
				hint = "did you mean type: instead of " + o + ":?"
				break
			}
		}
		p.add(n, field, "missing type", hint)
		return nil, ""
	}
	return typeNode, typeField
}

// probeID validates the id: of a probe entry, if any, into ps. It reports
// false when the id is set but invalid; a null id counts as none.
func (p *parser) probeID(ps *probeSpec, label string) bool {
	if ps.idNode == nil {
		return true
	}
	id, isStr := p.str(ps.idNode, label+".id")
	switch {
	case !isStr && yamlwalk.IsNull(ps.idNode):
		ps.idNode = nil
	case !isStr:
		return false
	case !idRE.MatchString(id):
		p.add(ps.idNode, label+".id", fmt.Sprintf("invalid probe id %q", id), idHint)
		return false
	default:
		ps.inst.ID, ps.explicit = id, true
	}
	return true
}

// probe validates one probe entry, a bare type id or a mapping with type:
// (or probe_id:), an optional id: and the parameters inline. It returns nil
// when the entry cannot become an instance.
func (p *parser) probe(n *yaml.Node, field string) *probeSpec {
	ps := &probeSpec{node: n, field: field}
	var typeNode *yaml.Node
	typeField := field
	raw := map[string]any{}
	params := map[string]kv{}
	switch {
	case yamlwalk.IsString(n):
		typeNode = n
	case n.Kind == yaml.MappingNode:
		if typeNode, typeField = p.probeKeys(n, field, ps, params); typeNode == nil {
			return nil
		}
	default:
		p.add(n, field, "must be a probe type id or a mapping with type:, got "+yamlwalk.Describe(n), probeTypeTip)
		return nil
	}

	typeID, isStr := p.str(typeNode, typeField)
	if !isStr || typeID == "" {
		if isStr || yamlwalk.IsNull(typeNode) {
			p.add(typeNode, typeField, "probe type must not be empty", probeTypeTip)
		}
		return nil
	}
	t, err := probe.Lookup(typeID)
	if err != nil {
		hint := probesHint
		if c := suggest.Closest(typeID, probe.IDs()); c != "" {
			hint = "did you mean " + c + "? " + probesHint
		}
		p.add(typeNode, typeField, fmt.Sprintf("unknown probe type %q", typeID), hint)
		return nil
	}
	label := fmt.Sprintf("%s (%s)", field, typeID)
	ps.field = label
	ps.inst.Type, ps.inst.Name, ps.inst.Category = typeID, t.Name, t.Category
	ok := p.probeID(ps, label)

	// A value that is not plain data was reported already; the others are
	// still checked, so that every problem shows at once.
	failed := map[string]bool{}
	for name, e := range params {
		v, vok := p.value(e.Val, label+"."+name)
		if !vok {
			failed[name] = true
			continue
		}
		raw[name] = v
	}
	checked, err := t.Check(raw)
	if err == nil && len(failed) == 0 {
		var pr probe.Probe
		pr, err = t.Build(checked, probe.Env{Dir: (&Suite{Path: p.file}).Dir()})
		if err == nil && pr == nil {
			err = fmt.Errorf("probe type %s built no probe", typeID)
		}
		ps.inst.Params, ps.inst.Probe = checked, pr
	}
	if err != nil {
		p.paramProblems(err, n, label, &t, params, failed)
		return nil
	}
	if !ok || len(failed) > 0 {
		return nil
	}
	return ps
}

// paramProblems maps the errors of Check or New to problems at the line of
// the parameter they name.
// Problems with the parameters in skip, whose values were reported already,
// are left out.
func (p *parser) paramProblems(err error, n *yaml.Node, label string, t *probe.Type, params map[string]kv, skip map[string]bool) {
	problems, other := probe.ParamErrors(err)
	problems = slices.DeleteFunc(problems, func(pe *probe.ParamError) bool {
		name, _, _ := strings.Cut(pe.Param, ".")
		name, _, _ = strings.Cut(name, "[")
		return skip[name]
	})
	for _, e := range other {
		p.add(n, label, e.Error(), probesHint+" and their parameters")
	}
	for _, pe := range problems {
		field := label
		if pe.Param != "" {
			field = label + "." + pe.Param
		}
		hint := pe.Hint
		if hint == "" {
			hint = paramHint(t, pe)
		}
		p.add(paramNode(n, params, pe.Param), field, pe.Msg, hint)
	}
}

// paramHint makes a hint for a parameter problem that came without one.
func paramHint(t *probe.Type, pe *probe.ParamError) string {
	param, known := t.Param(pe.Param)
	switch {
	case known && pe.Msg == "required parameter is missing":
		return "add " + pe.Param + ": to this probe"
	case known && strings.HasPrefix(pe.Msg, "must be a"):
		return "for example " + pe.Param + ": " + kindExample[param.Kind]
	}
	return probesHint + " and their parameters"
}

// kindExample is a sample YAML value of each parameter kind.
var kindExample = map[probe.Kind]string{
	probe.String:     `"text"`,
	probe.Int:        "3",
	probe.Float:      "0.5",
	probe.Bool:       "true",
	probe.StringList: "[a, b]",
	probe.Map:        "{key: value}",
	probe.Command:    "[python3, check.py]",
}

// paramNode finds the deepest node a parameter path such as "max_chars",
// "schema.arg_types.city" or "required_keywords[1]" points at, falling back
// to the probe entry.
func paramNode(fallback *yaml.Node, params map[string]kv, path string) *yaml.Node {
	end := strings.IndexAny(path, ".[")
	if end < 0 {
		end = len(path)
	}
	e, ok := params[path[:end]]
	if !ok {
		return fallback
	}
	at, cur := e.Key, deref(e.Val)
	rest := path[end:]
	for rest != "" {
		if rest[0] == '[' {
			close := strings.IndexByte(rest, ']')
			if close < 0 {
				break
			}
			i, err := strconv.Atoi(rest[1:close])
			if err != nil || cur.Kind != yaml.SequenceNode || i < 0 || i >= len(cur.Content) {
				break
			}
			cur = deref(cur.Content[i])
			at, rest = cur, rest[close+1:]
			continue
		}
		rest = rest[1:]
		end := strings.IndexAny(rest, ".[")
		if end < 0 {
			end = len(rest)
		}
		name := rest[:end]
		if cur.Kind != yaml.MappingNode {
			break
		}
		found := false
		for i := 0; i+1 < len(cur.Content); i += 2 {
			if cur.Content[i].Value == name {
				at, cur, found = cur.Content[i], deref(cur.Content[i+1]), true
				break
			}
		}
		if !found {
			break
		}
		rest = rest[end:]
	}
	return at
}

func deref(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// assignProbeIDs gives every probe of one scope its instance id: explicit ids
// first (a clash is a problem), then the type id with _2, _3… for automatic
// ones. taken holds the ids already in use in the scope (the suite-wide ids
// for a prompt's own probes) and is not modified; the ids of the scope are
// returned.
func (p *parser) assignProbeIDs(specs []*probeSpec, taken map[string]int) map[string]int {
	ids := make(map[string]int, len(taken)+len(specs))
	for id, line := range taken {
		ids[id] = line
	}
	for _, ps := range specs {
		if !ps.explicit {
			continue
		}
		if line, dup := ids[ps.inst.ID]; dup {
			p.add(ps.idNode, ps.field+".id", fmt.Sprintf("duplicate probe id %q (also at line %d)", ps.inst.ID, line), "give each probe an id: of its own")
			continue
		}
		ids[ps.inst.ID] = ps.idNode.Line
	}
	for _, ps := range specs {
		if ps.explicit {
			continue
		}
		id := ps.inst.Type
		for k := 2; ; k++ {
			if _, used := ids[id]; !used {
				break
			}
			id = ps.inst.Type + "_" + strconv.Itoa(k)
		}
		ps.inst.ID = id
		ids[id] = ps.node.Line
	}
	return ids
}

// promptNodes are the values of a prompt mapping that are read once the
// others are known.
type promptNodes struct {
	text, system, choice, messages, format *yaml.Node
}

// prompt validates one prompt entry, a bare text or a mapping.
func (p *parser) prompt(n *yaml.Node, field, defaultSystem string) *promptSpec {
	ps := &promptSpec{node: n, field: field}
	pr := &ps.prompt
	var nodes promptNodes
	var toolNames []string
	switch {
	case yamlwalk.IsString(n):
		nodes.text = n
	case n.Kind == yaml.MappingNode:
		for _, e := range p.Pairs(n, field) {
			k, v := e.Key, e.Val
			f := yamlwalk.Join(field, k.Value)
			switch k.Value {
			case "id":
				ps.idNode = v
			case "text":
				nodes.text = v
			case "tags":
				pr.Tags = p.strList(v, f)
				p.noEmptyItems(v, f, tagHint)
			case "description":
				pr.Description, _ = p.str(v, f)
			case "system_prompt":
				nodes.system = v
			case "expected_keywords":
				pr.ExpectedKeywords = p.strList(v, f)
				p.noEmptyItems(v, f, "an empty keyword occurs in every response; remove it")
			case "probes":
				ps.probes, ps.probeCount = p.probeList(v, f)
			case "tools":
				pr.Tools, toolNames = p.tools(v, f)
			case "tool_choice":
				nodes.choice = v
			case "messages":
				nodes.messages = v
			case "response_format":
				nodes.format = v
			default:
				p.UnknownKey(k, field, promptKeys)
			}
		}
	default:
		p.add(n, field, "must be a prompt text or a mapping with text:, got "+yamlwalk.Describe(n), textHint)
		return nil
	}
	textOK := p.promptText(n, field, nodes.text, nodes.messages != nil, pr)
	if nodes.system != nil {
		pr.SystemPrompt, _ = p.str(nodes.system, yamlwalk.Join(field, "system_prompt"))
	}
	convOK := true
	if nodes.messages != nil {
		convOK = p.promptMessages(field, nodes, textOK, toolNames, pr)
	}
	if pr.SystemPrompt == "" {
		pr.SystemPrompt = defaultSystem
	}
	if nodes.choice != nil {
		p.toolChoice(nodes.choice, yamlwalk.Join(field, "tool_choice"), pr, toolNames)
	}
	if nodes.format != nil {
		pr.ResponseFormat = p.responseFormat(nodes.format, yamlwalk.Join(field, "response_format"), (&Suite{Path: p.file}).Dir())
		if pr.ResponseFormat != nil && pr.ResponseFormat.Type == promptcanary.FormatJSONObject && convOK && !mentionsJSON(pr) {
			p.add(nodes.format, yamlwalk.Join(field, "response_format"), "type json_object needs the word JSON in the prompt", "ask for JSON in the text, a turn or the system prompt: OpenAI rejects JSON mode otherwise")
		}
	}
	p.promptID(ps, field, textOK || pr.Text == "" && len(pr.Messages) > 0 && convOK)
	return ps
}

// promptText reads a prompt's text:, which is optional when messages: is
// given. It reports whether the prompt has a usable text.
func (p *parser) promptText(n *yaml.Node, field string, textNode *yaml.Node, hasMessages bool, pr *promptcanary.Prompt) bool {
	if textNode == nil {
		if !hasMessages {
			p.add(n, field, "missing text", textHint)
		}
		return false
	}
	textField := yamlwalk.Join(field, "text")
	if textNode == n {
		textField = field
	}
	if text, ok := p.str(textNode, textField); ok && strings.TrimSpace(text) != "" {
		pr.Text = text
		return true
	} else if ok || yamlwalk.IsNull(textNode) {
		msg := "must not be empty"
		if textNode == n {
			msg = "prompt text must not be empty"
		}
		p.add(textNode, textField, msg, "write the prompt to send")
	}
	return false
}

// promptMessages reads a prompt's messages:, taking a leading system turn
// as the system prompt. It reports whether the conversation is valid.
func (p *parser) promptMessages(field string, nodes promptNodes, textOK bool, tools []string, pr *promptcanary.Prompt) bool {
	before := len(p.problems)
	f := yamlwalk.Join(field, "messages")
	msgs, system, systemNode := p.messages(nodes.messages, f, nodes.text != nil, tools)
	ok := len(p.problems) == before && len(msgs) > 0
	if systemNode != nil && nodes.system != nil {
		p.add(systemNode, f+"[0]", "system_prompt: and a system turn both set", "keep either the system turn or system_prompt")
		ok = false
	}
	if !ok {
		return false
	}
	pr.Messages = msgs
	if systemNode != nil {
		pr.SystemPrompt = system
	}
	return true
}

// promptID reads id:, or derives the id from the prompt when derive is set.
func (p *parser) promptID(ps *promptSpec, field string, derive bool) {
	pr := &ps.prompt
	if ps.idNode == nil {
		if derive {
			pr.ID, ps.idOK = derivePromptID(pr), true
		}
		return
	}
	f := yamlwalk.Join(field, "id")
	id, ok := p.str(ps.idNode, f)
	switch {
	case !ok && yamlwalk.IsNull(ps.idNode):
		p.add(ps.idNode, f, "must not be empty", "remove id: to derive one from the text")
	case !ok:
	case id == "":
		p.add(ps.idNode, f, "must not be empty", "remove id: to derive one from the text")
	case !idRE.MatchString(id):
		p.add(ps.idNode, f, fmt.Sprintf("invalid prompt id %q", id), idHint)
	default:
		pr.ID, ps.idOK = id, true
	}
}

// tools validates a prompt's tools: list.
func (p *parser) tools(n *yaml.Node, field string) ([]promptcanary.Tool, []string) {
	var out []promptcanary.Tool
	var names []string
	lines := map[string]int{}
	for f, c := range p.mappings(n, field, "a list of tools", "a mapping with name:") {
		var tool promptcanary.Tool
		var nameNode *yaml.Node
		for _, e := range p.Pairs(c, f) {
			kf := yamlwalk.Join(f, e.Key.Value)
			switch e.Key.Value {
			case "name":
				nameNode = e.Val
				tool.Name, _ = p.str(e.Val, kf)
			case "description":
				tool.Description, _ = p.str(e.Val, kf)
			case "parameters":
				if yamlwalk.IsNull(e.Val) || !p.isMapping(e.Val, kf, "a mapping (a JSON Schema)") {
					continue
				}
				if v, ok := p.value(e.Val, kf); ok {
					tool.Parameters = v.(map[string]any)
					if tool.Parameters["type"] != "object" {
						p.add(e.Val, kf, "must be a JSON Schema with type: object", "for example parameters: {type: object, properties: {city: {type: string}}, required: [city]}")
					}
				}
			default:
				p.UnknownKey(e.Key, f, toolKeys)
			}
		}
		switch {
		case nameNode == nil:
			p.add(c, f, "missing name", "tools need a name: field")
			continue
		case tool.Name == "":
			if yamlwalk.IsString(nameNode) || yamlwalk.IsNull(nameNode) {
				p.add(nameNode, f+".name", "must not be empty", "tools need a name: field")
			}
			continue
		}
		if !toolNameRE.MatchString(tool.Name) {
			p.add(nameNode, f+".name", fmt.Sprintf("invalid tool name %q", tool.Name), "use 1 to 64 letters, digits, '_' or '-', as the model APIs require")
			continue
		}
		if line, dup := lines[tool.Name]; dup {
			p.add(nameNode, f+".name", fmt.Sprintf("duplicate tool name %q (also at line %d)", tool.Name, line), "give each tool a distinct name")
			continue
		}
		lines[tool.Name] = nameNode.Line
		names = append(names, tool.Name)
		out = append(out, tool)
	}
	return out, names
}

// toolChoice validates tool_choice against the prompt's tools.
func (p *parser) toolChoice(n *yaml.Node, field string, pr *promptcanary.Prompt, names []string) {
	choice, ok := p.str(n, field)
	if !ok {
		return
	}
	switch {
	case choice == "auto" || choice == "none" || slices.Contains(names, choice):
	case choice == "required" && len(names) == 0:
		p.add(n, field, `tool_choice "required" needs tools`, "add tools: to this prompt")
		return
	case choice == "required":
	default:
		known := append([]string{"auto", "none", "required"}, names...)
		hint := "use one of: " + strings.Join(known, ", ")
		if len(names) == 0 {
			hint += ", or add tools: and name one of them"
		}
		if c := suggest.Closest(choice, known); c != "" {
			hint = "did you mean " + c + "? " + hint
		}
		p.add(n, field, fmt.Sprintf("invalid tool_choice %q", choice), hint)
		return
	}
	pr.ToolChoice = choice
}
