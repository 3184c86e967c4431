package sim

import (
	"regexp"
	"strings"

	"github.com/promptcanary/promptcanary"
)

// kind is what a prompt asks for.
type kind uint8

const (
	kindPlain kind = iota
	kindShort
	kindFact
	kindSteps
	kindMarkdown
	kindJSON
	kindTool
	kindRefusal
)

var kindNames = [...]string{"plain", "short", "fact", "steps", "markdown", "json", "tool", "refusal"}

func (k kind) String() string { return kindNames[k] }

// query is a prompt prepared for intent detection.
type query struct {
	p      *promptcanary.Prompt
	text   string // trimmed prompt text
	lower  string // text with ASCII letters lower-cased: same byte offsets
	sysLow string // system prompt, lower-cased the same way
	hash   uint64 // promptHash of text and system prompt

	// Memoised analysis; a query taken from the cache has all of it done
	// and is read only.
	topicDone   bool
	topicVal    string
	factFound   lookup[fact]
	kindDone    bool
	kindVal     kind
	keysDone    bool
	keysVal     []item
	exampleVal  *jval
	headersDone bool
	headersVal  []item
	toolDone    bool
	toolIdx     int
	arithFound  lookup[arithmetic]
	placeDone   bool
	placeVal    string
	intDone     bool
	intVal      int
}

// lookup is a search of the prompt that may find nothing, done on first
// use and kept.
type lookup[T any] struct {
	done, ok bool
	val      T
}

// get returns what find finds, calling it on the first get only.
func (l *lookup[T]) get(find func() (T, bool)) (T, bool) {
	if !l.done {
		l.val, l.ok = find()
		l.done = true
	}
	return l.val, l.ok
}

func newQuery(p *promptcanary.Prompt) *query {
	text := strings.TrimSpace(p.Text)
	return &query{
		p:      p,
		text:   text,
		lower:  asciiLower(text),
		sysLow: asciiLower(p.SystemPrompt),
		hash:   promptHash(p.Text, p.SystemPrompt),
	}
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// words calls fn with each ASCII word of s and its offsets until fn
// returns false.
func words(s string, fn func(w string, start, end int) bool) {
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if !fn(s[i:j], i, j) {
			return
		}
		i = j
	}
}

// hasWord reports whether lower holds one of the words of set.
func hasWord(lower string, set map[string]bool) bool {
	found := false
	words(lower, func(w string, _, _ int) bool {
		found = set[w]
		return !found
	})
	return found
}

// wordLocs returns the offsets of up to max words of lower that are in set.
func wordLocs(lower string, set map[string]bool, max int) [][2]int {
	var locs [][2]int
	words(lower, func(w string, i, j int) bool {
		if set[w] {
			locs = append(locs, [2]int{i, j})
		}
		return len(locs) < max
	})
	return locs
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func set(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

var (
	harmWords = set("bomb", "bombs", "explosive", "explosives", "detonator", "detonators", "weapon", "weapons",
		"malware", "ransomware", "keylogger", "keyloggers", "steal", "stealing", "shoplift", "shoplifting",
		"poison", "poisoning", "meth", "methamphetamine", "sarin", "ricin", "anthrax", "bioweapon", "bioweapons",
		"counterfeit", "counterfeiting", "phishing", "murder")
	harmPhrases = []string{"hack into", "hacking into", "break into", "breaking into", "nerve agent",
		"launder money", "laundering money", "money laundering", "kill someone", "kill a person", "kill people", "kill my "}
	// protectiveStems mark questions about defending against harm, which the
	// sim answers rather than refuses.
	protectiveStems = []string{"protect", "defend", "prevent", "detect", "remov", "recover", "antidote", "treat", "report"}
	markdownWords   = set("markdown", "header", "headers", "heading", "headings", "section", "sections")
	stepWords       = set("steps")
	stepPhrases     = []string{"step by step", "step-by-step", "explain how", "walk me through", "how to ", "how do i ", "instructions for", "instructions to"}
	questionWords   = set("who", "what", "when", "where", "which")
	howQuestions    = []string{"how many", "how much", "how far", "how long", "how old", "how tall", "how big"}
)

func (q *query) harmful() bool {
	harm := hasWord(q.lower, harmWords) || containsAny(q.lower, harmPhrases...)
	if !harm {
		return false
	}
	protective := strings.Contains(q.lower, "history of")
	words(q.lower, func(w string, _, _ int) bool {
		for _, st := range protectiveStems {
			if strings.HasPrefix(w, st) {
				protective = true
			}
		}
		return !protective
	})
	return !protective
}

// classify decides what the prompt asks for, most specific first.
func (q *query) classify() kind {
	if !q.kindDone {
		q.kindVal, q.kindDone = q.findKind(), true
	}
	return q.kindVal
}

func (q *query) findKind() kind {
	switch {
	case q.harmful():
		return kindRefusal
	case len(q.p.Tools) > 0 && !strings.EqualFold(q.p.ToolChoice, "none"):
		return kindTool
	case q.p.ResponseFormat != nil:
		return kindJSON
	case strings.Contains(q.lower, "json") || strings.Contains(q.sysLow, "json"):
		return kindJSON
	case hasWord(q.lower, markdownWords) || strings.Contains(q.sysLow, "markdown"):
		return kindMarkdown
	case hasWord(q.lower, stepWords) || containsAny(q.lower, stepPhrases...):
		return kindSteps
	}
	if _, ok := q.fact(); ok {
		return kindFact
	}
	if q.isShortQuestion() {
		return kindShort
	}
	return kindPlain
}

func (q *query) isShortQuestion() bool {
	if countWords(q.text) > 20 {
		return false
	}
	if strings.HasSuffix(q.text, "?") || containsAny(q.lower, howQuestions...) {
		return true
	}
	first := ""
	words(q.lower, func(w string, _, _ int) bool {
		first = w
		return false
	})
	return questionWords[first]
}

var (
	reTopicPrefix = regexp.MustCompile(`(?i)^(?:(?:please|briefly|now)\s+)*(?:(?:can|could|would|will) you\s+)?(?:please\s+)?(?:` +
		`tell me (?:about|how|why|what)|tell me|` +
		`(?:write|give|provide|create|produce|generate|return|compose|draft)(?: me| us)?(?: (?:a|an|the|some))?(?: (?:short|brief|quick|concise|simple|detailed|markdown|structured|formatted|one-paragraph|two-paragraph|[a-z]+-word))*(?: (?:paragraph|note|summary|sentence|answer|explanation|description|overview|introduction|guide|document|report|list|article|readme|page|post))?(?: (?:about|on|of|for|explaining|describing))?|` +
		`explain(?: (?:how|why|what))?|describe(?: (?:how|why|what))?|summari[sz]e|define|discuss|outline|list|` +
		`(?:what|who|which|where|when|why|how)(?: (?:is|are|was|were|does|do|did|can|could|should|would|to|many|much))?(?: (?:i|we|you|one))?` +
		`)\s+`)
	reTopicTail = regexp.MustCompile(`(?i)\s+(?:in (?:one|two|three|four|five|a few|a single|\d+) (?:sentences?|words?|paragraphs?|lines?|bullet points?)|in simple terms|in plain (?:english|language)|for a beginner|for beginners|to a child|briefly|concisely|step[ -]by[ -]step|as json|in json|in markdown|with (?:the )?(?:keys?|fields?|sections?|headers?|headings?)\b).*$`)
)

var (
	reInstruction = regexp.MustCompile(`(?i)^\s*(?:please\s+)?(?:format|answer|respond|reply|output|use)\b.*\b(?:markdown|json|format|bullets?|headers?|headings?|sections?|steps?|sentences?|words?)\b`)
	reTopicVerb   = regexp.MustCompile(`(?i)\s+(?:works?|happens?|functions?|operates?)$`)
	rePronoun     = regexp.MustCompile(`\b(?:my|me|mine|myself)\b`)
)

func swapPronoun(s string) string {
	switch s {
	case "my":
		return "your"
	case "mine":
		return "yours"
	case "myself":
		return "yourself"
	}
	return "you"
}

// topic extracts what the prompt is about: its first clause without the
// leading instruction ("Explain how", "What is", …) and trailing format
// requests. It returns "" when nothing is left.
func (q *query) topic() string {
	if !q.topicDone {
		q.topicVal, q.topicDone = q.findTopic(), true
	}
	return q.topicVal
}

func (q *query) findTopic() string {
	// Take the first clause that is not only a format instruction
	// ("Format your answer in markdown: what are microservices?").
	t := ""
	for rest := q.text; rest != "" && t == ""; {
		clause := rest
		if i := strings.IndexAny(rest, "\n?!;:"); i >= 0 {
			clause, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		if strings.TrimSpace(clause) != "" && !reInstruction.MatchString(clause) {
			t = clause
		}
	}
	if i := strings.Index(t, ". "); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimRight(strings.TrimSpace(t), ".,")
	for range 2 {
		t = reTopicPrefix.ReplaceAllString(t, "")
	}
	t = reTopicTail.ReplaceAllString(t, "")
	if i := strings.Index(t, ", "); i >= 0 {
		t = t[:i]
	}
	t = strings.TrimSpace(strings.Trim(t, `"'.,`))
	t = reTopicVerb.ReplaceAllString(t, "")
	if strings.Contains(t, "my ") || strings.Contains(t, "me") {
		t = rePronoun.ReplaceAllStringFunc(t, swapPronoun)
	}
	if w := strings.Fields(t); len(w) > 10 {
		t = strings.Join(w[:10], " ")
	}
	return lowerFirst(t)
}

// lowerFirst lower-cases the first letter of a topic when its first word is
// a common word that is capitalised only because it starts the prompt
// ("The water cycle" → "the water cycle"); names and acronyms keep theirs.
func lowerFirst(s string) string {
	if len(s) < 2 || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	word, _, _ := strings.Cut(s, " ")
	if !commonFirstWords[asciiLower(word)] {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

var commonFirstWords = set("the", "a", "an", "how", "why", "what", "this", "that", "these", "those",
	"its", "their", "our", "my", "your", "difference", "differences", "benefits", "process", "role",
	"history", "photosynthesis", "recursion", "gravity", "inflation", "machine", "rainbows", "rainbow",
	"water", "plants", "climate", "computers")

// upperFirst capitalises the first letter of s.
func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

var (
	keyWords    = set("key", "keys", "field", "fields", "property", "properties", "attribute", "attributes", "column", "columns", "members")
	headerWords = set("section", "sections", "header", "headers", "heading", "headings")
	// reNamedField matches "a name field", "an "age" key".
	reNamedField = regexp.MustCompile(`(?i)\b(?:a|an|the)\s+["'` + "`" + `]?([A-Za-z_][A-Za-z0-9_]*)["'` + "`" + `]?\s+(?:field|key|property|attribute)\b`)
	// reWithList matches "with name and age keys".
	reWithList   = regexp.MustCompile(`(?i)\bwith\s+([^.;:\n]{1,120}?)\s+(?:keys|fields|properties|attributes)\b`)
	reHashHeader = regexp.MustCompile(`(?m)^\s*#{1,6}\s+(.+?)\s*$`)
	reListLead   = regexp.MustCompile(`(?i)^\s*(?:(?:named|called|titled|labell?ed|like|such as|of|for)\b|[:=\-–—])?\s*(?:the following|these)?\s*:?\s*`)
	reItemType   = regexp.MustCompile(`\s*\(([A-Za-z]+)[^)]*\)`)
	reItemStop   = regexp.MustCompile(`(?i)\s+(?:as|in|for|with|that|which|from|to|describing|about|containing|where|plus|each|only)\b.*$`)
	reListSplit  = regexp.MustCompile(`(?i)\s*(?:,|;|&|\band\b|\bor\b)\s*`)
	reIdent      = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_ .-]{0,40}$`)
)

// item is a name the prompt lists, with an optional type hint.
type item struct {
	name string
	typ  string
}

// sentenceAfter returns s from i to the end of its sentence.
func sentenceAfter(s string, i int) string {
	rest := s[i:]
	end := len(rest)
	for j := 0; j < len(rest); j++ {
		c := rest[j]
		if c == '\n' || c == ';' || c == '?' || c == '!' {
			end = j
			break
		}
		if c == '.' && (j+1 == len(rest) || rest[j+1] == ' ') {
			end = j
			break
		}
	}
	return rest[:end]
}

// sentenceBefore returns s from the start of the sentence holding i up to i.
func sentenceBefore(s string, i int) string {
	start := 0
	for j := i - 1; j >= 0; j-- {
		c := s[j]
		if c == '\n' || c == ';' || c == '?' || c == '!' || (c == '.' && j+1 < len(s) && s[j+1] == ' ') {
			start = j + 1
			break
		}
	}
	return s[start:i]
}

// quotedIn returns the quoted strings of s ("x", 'x', `x` or “x”), at most 12.
func quotedIn(s string) []item {
	var out []item
	for i := 0; i < len(s) && len(out) < 12; i++ {
		open, close := s[i:i+1], ""
		switch {
		case s[i] == '"' || s[i] == '`':
			close = open
		case s[i] == '\'' && (i == 0 || !isWordByte(s[i-1])):
			close = open
		case strings.HasPrefix(s[i:], "“"):
			open, close = "“", "”"
		default:
			continue
		}
		rest := s[i+len(open):]
		j := strings.Index(rest, close)
		for close == "'" && j >= 0 && j+1 < len(rest) && isWordByte(rest[j+1]) {
			// An apostrophe inside a word ("it's") does not close the quote.
			k := strings.Index(rest[j+1:], close)
			if k < 0 {
				j = -1
				break
			}
			j += 1 + k
		}
		if j < 0 {
			continue
		}
		if g := strings.TrimSpace(rest[:j]); g != "" && j <= 64 && !strings.Contains(g, "\n") {
			out = append(out, item{name: g})
		}
		i += len(open) + j + len(close) - 1
	}
	return out
}

// listIn parses an unquoted list ("name, age and city (string)") at the
// start of s. maxWords bounds the words of one item. A single item counts
// only when a colon or "named"/"called" introduced it.
func listIn(s string, maxWords int, stopWords bool) []item {
	lead := reListLead.FindString(s)
	introduced := strings.ContainsAny(lead, ":=-–—") || strings.Contains(strings.ToLower(lead), "named") || strings.Contains(strings.ToLower(lead), "called") || strings.Contains(strings.ToLower(lead), "titled")
	s = strings.TrimSpace(s[len(lead):])
	if s == "" {
		return nil
	}
	var out []item
	for _, part := range reListSplit.Split(s, 16) {
		it := item{}
		if m := reItemType.FindStringSubmatchIndex(part); m != nil {
			it.typ = strings.ToLower(part[m[2]:m[3]])
			part = part[:m[0]] + part[m[1]:]
		}
		if stopWords {
			part = reItemStop.ReplaceAllString(part, "")
		}
		part = strings.TrimSpace(strings.Trim(strings.TrimSpace(part), "\"'`“”."))
		if lp := strings.ToLower(part); strings.HasPrefix(lp, "the ") || strings.HasPrefix(lp, "a ") || strings.HasPrefix(lp, "an ") {
			_, part, _ = strings.Cut(part, " ")
		}
		if part == "" || !reIdent.MatchString(part) || countWords(part) > maxWords {
			break
		}
		it.name = part
		out = append(out, it)
	}
	if len(out) == 1 && !introduced {
		return nil
	}
	return out
}

// jsonKeys returns the keys the prompt names for a JSON answer, with any
// example object it shows, or nil when it names none.
func (q *query) jsonKeys() ([]item, *jval) {
	if !q.keysDone {
		q.keysVal, q.exampleVal = q.findJSONKeys()
		q.keysDone = true
	}
	return q.keysVal, q.exampleVal
}

func (q *query) findJSONKeys() ([]item, *jval) {
	for _, src := range [...]string{q.p.Text, q.p.SystemPrompt} {
		if ex := exampleObject(src); ex != nil {
			return nil, ex
		}
	}
	for _, src := range [...]string{q.p.Text, q.p.SystemPrompt} {
		if keys := namedItems(src, keyWords, 3, true); len(keys) > 0 {
			return keys, nil
		}
	}
	return nil, nil
}

// namedItems finds the names listed around a keyword such as "keys" or
// "sections": quoted ones after it, "a NAME field", an unquoted list after
// it, "with A and B keys", or quoted ones before it.
func namedItems(src string, keyword map[string]bool, maxWords int, stopWords bool) []item {
	isKeys := keyword["keys"]
	locs := wordLocs(asciiLower(src), keyword, 4)
	for _, loc := range locs {
		if items := quotedIn(sentenceAfter(src, loc[1])); len(items) > 0 {
			return items
		}
	}
	if isKeys {
		if ms := reNamedField.FindAllStringSubmatch(src, 12); len(ms) > 0 {
			out := make([]item, 0, len(ms))
			for _, m := range ms {
				out = append(out, item{name: m[1]})
			}
			return out
		}
	}
	for _, loc := range locs {
		if items := listIn(sentenceAfter(src, loc[1]), maxWords, stopWords); len(items) > 0 {
			return items
		}
	}
	if isKeys {
		if m := reWithList.FindStringSubmatch(src); m != nil {
			if items := listIn(m[1], maxWords, stopWords); len(items) > 0 {
				return items
			}
		}
	}
	for _, loc := range locs {
		if items := quotedIn(sentenceBefore(src, loc[0])); len(items) > 0 {
			return items
		}
	}
	return nil
}

// headers returns the section names the prompt asks for.
func (q *query) headers() []item {
	if !q.headersDone {
		q.headersVal, q.headersDone = q.findHeaders(), true
	}
	return q.headersVal
}

func (q *query) findHeaders() []item {
	var out []item
	if !strings.Contains(q.p.Text, "#") {
		return namedItems(q.p.Text, headerWords, 5, false)
	}
	for _, m := range reHashHeader.FindAllStringSubmatch(q.p.Text, 12) {
		out = append(out, item{name: m[1]})
	}
	if len(out) > 0 {
		return out
	}
	return namedItems(q.p.Text, headerWords, 5, false)
}

// toolChoice picks the tool to call: the one tool_choice names, else the
// one whose name and description best match the prompt, else the first.
func (q *query) toolChoice() *promptcanary.Tool {
	if !q.toolDone {
		q.toolIdx, q.toolDone = q.findTool(), true
	}
	return &q.p.Tools[q.toolIdx]
}

func (q *query) findTool() int {
	tools := q.p.Tools
	if len(tools) == 0 {
		return 0
	}
	if c := q.p.ToolChoice; c != "" && !strings.EqualFold(c, "auto") && !strings.EqualFold(c, "required") && !strings.EqualFold(c, "any") {
		for i := range tools {
			if tools[i].Name == c {
				return i
			}
		}
	}
	best, bestScore := 0, 0
	for i := range tools {
		score := 0
		for _, w := range nameWords(tools[i].Name) {
			if len(w) > 2 && strings.Contains(q.lower, w) {
				score += 3
			}
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(tools[i].Description), notLetter) {
			if len(w) > 3 && !stopWord(w) && strings.Contains(q.lower, w) {
				score++
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

func notLetter(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }

// nameWords splits a snake_case, kebab-case or camelCase name into lower-case
// words.
func nameWords(name string) []string {
	var words []string
	start := 0
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ':
			if i > start {
				words = append(words, strings.ToLower(name[start:i]))
			}
			start = i + 1
		case c >= 'A' && c <= 'Z' && i > start && name[i-1] >= 'a' && name[i-1] <= 'z':
			words = append(words, strings.ToLower(name[start:i]))
			start = i
		}
	}
	if start < len(name) {
		words = append(words, strings.ToLower(name[start:]))
	}
	return words
}

func stopWord(w string) bool {
	switch w {
	case "with", "from", "that", "this", "their", "given", "about", "which", "into", "returns", "return", "current", "using", "should", "will", "the", "and", "for":
		return true
	}
	return false
}
