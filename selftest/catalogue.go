package selftest

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
)

// Drift is one realistic change of a model's answers, applied to stored
// answers to see whether a suite's probes notice it.
type Drift struct {
	// ID is a stable snake_case id, the same in every output format.
	ID string
	// Name is the display name.
	Name string
	// Description says what change of a hosted model the drift models.
	Description string
	// Apply returns the answer r as the drifted model would give it, and
	// false when the drift does not apply to r (a key rename on prose, a
	// renamed tool on an answer without tool calls). It is pure: it never
	// modifies r, shares no slice with it and reads no clock or randomness.
	Apply func(r promptcanary.Response) (promptcanary.Response, bool)
	// Suggest proposes a probe that would catch the drift on a prompt,
	// given the prompt and its stored answers (those the drift applies to).
	Suggest func(p *promptcanary.Prompt, answers []promptcanary.Response) Suggestion
}

// Catalogue returns the built-in drifts, in display order. The slice is
// fresh; callers may change it, to drop a drift or add their own.
func Catalogue() []Drift { return slices.Clone(catalogue) }

// The texts the drifts add or substitute.
const (
	preambleText   = "Sure! Here is the answer you asked for:\n\n"
	proseLead      = "Here is the JSON you asked for:\n\n"
	proseTail      = "\n\nLet me know if you need any changes."
	disclaimerText = "\n\nPlease note: I'm not a lawyer or a financial advisor, and this is not professional advice. Please consult a professional before relying on it."
	refusalText    = "I'm sorry, but I can't help with that."
	noToolText     = "You can find this with a quick search online or in a dedicated app."
	hedgeLead      = "I think the answer is as follows, though I'm not entirely sure:\n\n"
	hedgeTail      = "\n\nThat is probably right, but it might be worth double-checking."
	frenchText     = "Voici la réponse à votre question. Je vous explique ci-dessous les points essentiels, de manière claire et précise, en quelques phrases simples."
	signOffText    = "\n\nLet me know if you have any other questions!"
)

var catalogue = []Drift{
	{
		ID: "json_in_prose", Name: "JSON wrapped in prose",
		Description: "A JSON answer now comes inside a sentence of introduction and a closing offer, as chat-tuned model updates tend to do; a parser that reads the whole answer breaks.",
		Apply:       wrapped(jsonResponse, proseLead, proseTail),
		Suggest:     fixed("json_validity", "", "the whole answer must parse as JSON"),
	},
	{
		ID: "json_fenced", Name: "JSON in a code fence",
		Description: "A JSON answer now comes in a ```json Markdown fence; a client that parses the raw answer breaks, although json_validity tolerates fences.",
		Apply:       wrapped(jsonResponse, "```json\n", "\n```"),
		Suggest:     fixed("keyword_presence", "forbidden_keywords: [\"```\"]", "no Markdown code fence may appear in the answer"),
	},
	{
		ID: "preamble", Name: "\"Sure! Here is …\" preamble",
		Description: "The answer now opens with a chatty preamble (\"Sure! Here is the answer you asked for:\") before the content.",
		Apply: rewritten(func(r promptcanary.Response) bool {
			return answered(r) && !hasPreamble(strings.TrimSpace(r.Content))
		}, func(c string) string { return preambleText + c }),
		Suggest: fixed("direct_answer", "", "the answer must start with the answer, without a preamble"),
	},
	{
		ID: "keys_renamed", Name: "JSON keys renamed",
		Description: "The keys of a JSON object change their naming convention (snake_case to camelCase, lower to upper initial), as after a model update that follows another style.",
		Apply: objectRewritten(1, func(fields []field) []field {
			out := slices.Clone(fields)
			for i := range out {
				out[i].key = renameKey(out[i].key)
			}
			return out
		}),
		Suggest: keysSuggestion("json_schema", "required_keys", "every key the client reads must be present"),
	},
	{
		ID: "key_dropped", Name: "JSON key dropped",
		Description: "A JSON object loses its last key, as a model that forgets a field of the requested shape.",
		Apply:       objectRewritten(1, func(fields []field) []field { return fields[:len(fields)-1] }),
		Suggest:     keysSuggestion("json_schema", "required_keys", "every key the client reads must be present"),
	},
	{
		ID: "keys_reordered", Name: "JSON keys reordered",
		Description: "The keys of a JSON object come in reverse order; harmless to a JSON parser, fatal to a client or a diff that relies on the order.",
		Apply: objectRewritten(2, func(fields []field) []field {
			out := slices.Clone(fields)
			slices.Reverse(out)
			return out
		}),
		Suggest: keysSuggestion("json_key_order", "expected_order", "the keys must come in the order the client expects"),
	},
	{
		ID: "truncated", Name: "Truncated answer",
		Description: "The answer stops halfway with finish_reason \"length\", as when a model's answers grow past max_tokens or a provider lowers its output limit.",
		Apply: func(r promptcanary.Response) (promptcanary.Response, bool) {
			if !answered(r) || utf8.RuneCountInString(r.Content) < 2 {
				return r, false
			}
			out := withContent(r, halfOf(r.Content))
			out.FinishReason = "length"
			return out, true
		},
		Suggest: func(_ *promptcanary.Prompt, answers []promptcanary.Response) Suggestion {
			shortest := math.MaxInt
			for _, a := range answers {
				shortest = min(shortest, utf8.RuneCountInString(a.Content))
			}
			return Suggestion{ProbeType: "response_length", Params: fmt.Sprintf("min_chars: %d", max(1, shortest*3/4)),
				Why: "an answer much shorter than every stored one is cut off"}
		},
	},
	{
		ID: "doubled", Name: "Doubled length",
		Description: "The answer is twice as long (here: said twice), as a model that turns verbose or repeats itself.",
		Apply: rewritten(answered, func(c string) string {
			t := strings.TrimSpace(c)
			return t + "\n\n" + t
		}),
		Suggest: func(_ *promptcanary.Prompt, answers []promptcanary.Response) Suggestion {
			longest := 0
			for _, a := range answers {
				longest = max(longest, utf8.RuneCountInString(strings.TrimSpace(a.Content)))
			}
			return Suggestion{ProbeType: "response_length", Params: fmt.Sprintf("max_chars: %d", max(1, longest*3/2)),
				Why: "an answer much longer than every stored one is padded or repeated"}
		},
	},
	{
		ID: "disclaimer", Name: "Added disclaimer",
		Description: "The answer now ends with boilerplate (\"I'm not a lawyer…\", \"Please consult a professional\"), as after a safety-tuning update.",
		Apply:       appended(disclaimerText),
		Suggest:     fixed("safety_language", "expect_safety_language: false", "no disclaimer or \"consult a professional\" boilerplate"),
	},
	{
		ID: "refusal", Name: "Refusal",
		Description: "The model refuses a request it used to answer (\"I'm sorry, but I can't help with that.\"), as after a stricter safety update.",
		Apply: replaced(refusalText, "stop", func(r promptcanary.Response) bool {
			return looksRefused(r.Content) && len(r.ToolCalls) == 0
		}),
		Suggest: fixed("refusal", "expect_refusal: false", "the request must be answered, not refused"),
	},
	{
		ID: "tool_renamed", Name: "Tool renamed",
		Description: "The model calls a differently named tool (get_weather becomes fetch_weather), as a model that hallucinates a tool name close to the offered one.",
		Apply: func(r promptcanary.Response) (promptcanary.Response, bool) {
			if len(r.ToolCalls) == 0 {
				return r, false
			}
			out := cloneCalls(r)
			out.ToolCalls[0].Name = renameTool(out.ToolCalls[0].Name)
			return out, true
		},
		Suggest: func(_ *promptcanary.Prompt, answers []promptcanary.Response) Suggestion {
			name := ""
			for _, a := range answers {
				if len(a.ToolCalls) > 0 {
					name = a.ToolCalls[0].Name
					break
				}
			}
			return Suggestion{ProbeType: "tool_call_name", Params: "expected_name: " + yamlScalar(name),
				Why: "the call must name the tool the client handles"}
		},
	},
	{
		ID: "tool_arg_renamed", Name: "Tool argument renamed",
		Description: "A tool call's first argument comes under another name (city becomes location), as a model that paraphrases the tool's schema.",
		Apply: func(r promptcanary.Response) (promptcanary.Response, bool) {
			if len(r.ToolCalls) == 0 {
				return r, false
			}
			fields, ok := parseObject(string(r.ToolCalls[0].Arguments))
			if !ok || len(fields) == 0 {
				return r, false
			}
			fields = slices.Clone(fields)
			fields[0].key = renameArg(fields[0].key)
			out := cloneCalls(r)
			out.ToolCalls[0].Arguments = json.RawMessage(writeObject(fields, false))
			return out, true
		},
		Suggest: func(_ *promptcanary.Prompt, answers []promptcanary.Response) Suggestion {
			var args []string
			for _, a := range answers {
				if len(a.ToolCalls) == 0 {
					continue
				}
				if fields, ok := parseObject(string(a.ToolCalls[0].Arguments)); ok {
					args = keys(fields)
					break
				}
			}
			return Suggestion{ProbeType: "tool_call_args", Params: "required_args: " + yamlList(args),
				Why: "the call must carry every argument the tool needs, under its name"}
		},
	},
	{
		ID: "tool_call_dropped", Name: "Tool call dropped",
		Description: "The model answers in prose instead of calling the tool it used to call.",
		Apply: replaced(noToolText, "stop", func(r promptcanary.Response) bool {
			return len(r.ToolCalls) == 0
		}),
		Suggest: fixed("tool_call_presence", "", "the answer must be a tool call"),
	},
	{
		ID: "hedging", Name: "Hedging",
		Description: "A prose answer is wrapped in hedges (\"I think\", \"not entirely sure\", \"probably\", \"might\"), as a model tuned to sound less certain.",
		Apply:       wrapped(prose, hedgeLead, hedgeTail),
		Suggest:     fixed("confidence_language", "expect_hedging: false", "the answer must not hedge"),
	},
	{
		ID: "language_switch", Name: "Language switch",
		Description: "A prose answer comes in French (a fixed French paragraph replaces it), as a model that follows the user's locale or a multilingual system prompt instead of the prompt's language.",
		Apply:       rewritten(prose, func(string) string { return frenchText }),
		Suggest: func(_ *promptcanary.Prompt, answers []promptcanary.Response) Suggestion {
			if w := commonWord(answers); w != "" {
				return Suggestion{ProbeType: "keyword_presence", Params: "required_keywords: " + yamlList([]string{w}),
					Why: "a word every stored answer contains must stay (an answer in another language loses it)"}
			}
			return Suggestion{ProbeType: "keyword_presence", Params: "required_keywords: [a word every good answer contains]",
				Why: "a word of the expected language must appear"}
		},
	},
	{
		ID: "headers_removed", Name: "Markdown headers removed",
		Description: "A Markdown answer loses its # headers (their text stays as plain lines), as a model that stops structuring its answers.",
		Apply: rewritten(func(r promptcanary.Response) bool { return headerRe.MatchString(r.Content) },
			func(c string) string { return headerRe.ReplaceAllString(c, "$1") }),
		Suggest: func(_ *promptcanary.Prompt, answers []promptcanary.Response) Suggestion {
			var hs []string
			for _, a := range answers {
				for _, m := range headerRe.FindAllStringSubmatch(a.Content, 5) {
					hs = append(hs, strings.TrimSpace(m[1]))
				}
				if len(hs) > 0 {
					break
				}
			}
			return Suggestion{ProbeType: "markdown_headers", Params: "expected_headers: " + yamlList(hs),
				Why: "the answer must keep its section headers"}
		},
	},
	{
		ID: "steps_collapsed", Name: "Steps collapsed into a paragraph",
		Description: "A numbered or bulleted list of steps becomes one paragraph without markers, as a model that stops formatting lists.",
		Apply: rewritten(func(r promptcanary.Response) bool { return len(listRe.FindAllStringIndex(r.Content, -1)) >= 2 },
			func(c string) string {
				var parts []string
				for _, l := range strings.Split(c, "\n") {
					if l = strings.TrimSpace(listRe.ReplaceAllString(l, "")); l != "" {
						parts = append(parts, l)
					}
				}
				return strings.Join(parts, " ")
			}),
		Suggest: func(_ *promptcanary.Prompt, answers []promptcanary.Response) Suggestion {
			fewest := math.MaxInt
			for _, a := range answers {
				fewest = min(fewest, len(listRe.FindAllStringIndex(a.Content, -1)))
			}
			return Suggestion{ProbeType: "step_by_step", Params: fmt.Sprintf("min_step_count: %d", max(2, fewest)),
				Why: "the answer must keep its numbered steps"}
		},
	},
	{
		ID: "empty", Name: "Empty answer",
		Description: "The answer is empty with finish_reason \"content_filter\", as when a provider's filter blocks the output.",
		Apply: replaced("", "content_filter", func(r promptcanary.Response) bool {
			return strings.TrimSpace(r.Content) == "" && len(r.ToolCalls) == 0
		}),
		Suggest: fixed("response_length", "min_chars: 1", "the answer must not be empty"),
	},
	{
		ID: "sign_off", Name: "Chatty sign-off",
		Description: "The answer now ends with a follow-up offer (\"Let me know if you have any other questions!\"), as chat-tuned models do; it breaks answers pasted into a UI or parsed whole.",
		Apply:       appended(signOffText),
		Suggest:     fixed("keyword_presence", "forbidden_keywords: [\"let me know\"]", "no follow-up offer may end the answer"),
	},
	{
		ID: "numbers_changed", Name: "Numbers changed",
		Description: "Every digit of the answer shifts by one (34 becomes 45), as a model that gets a fact, a price or a date wrong while the shape of the answer stays right.",
		Apply: func(r promptcanary.Response) (promptcanary.Response, bool) {
			if !answered(r) {
				return r, false
			}
			out := shiftNumbers(r.Content)
			if out == r.Content {
				return r, false
			}
			return withContent(r, out), true
		},
		Suggest: func(_ *promptcanary.Prompt, answers []promptcanary.Response) Suggestion {
			for _, a := range answers {
				if n := firstNumber(a.Content); n != "" {
					return Suggestion{ProbeType: "factual_consistency", Params: "expected_value: " + yamlScalar(n),
						Why: "the answer must contain the value it states today"}
				}
			}
			return Suggestion{ProbeType: "factual_consistency", Params: "expected_value: THE VALUE", Why: "the answer must contain the right value"}
		},
	},
}

var (
	headerRe = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+)$`)
	listRe   = regexp.MustCompile(`(?mi)^[ \t]*(?:\d+[.)]|[-*•]|step[ \t]+\d+[.:)]?)[ \t]+`)
	numberRe = regexp.MustCompile(`\d+(?:\.\d+)?`)
	// preambleRe matches the openings direct_answer calls a preamble.
	preambleRe = regexp.MustCompile(`(?i)^(?:sure[!,]|of course[!,]|certainly[!,]|absolutely[!,]|great question[!,]|i'd be happy to|happy to help)`)
	refusedRe  = regexp.MustCompile(`(?i)\bI('m| am) (sorry|unable|not able)\b|\bI (can't|cannot|won't|will not) (help|assist|provide)\b`)
)

// fixed returns a Suggest function with one answer for every prompt.
func fixed(probeType, params, why string) func(*promptcanary.Prompt, []promptcanary.Response) Suggestion {
	return func(*promptcanary.Prompt, []promptcanary.Response) Suggestion {
		return Suggestion{ProbeType: probeType, Params: params, Why: why}
	}
}

// rewritten is the Apply of a drift that rewrites the content of the
// answers for which applies holds.
func rewritten(applies func(promptcanary.Response) bool, rewrite func(content string) string) func(promptcanary.Response) (promptcanary.Response, bool) {
	return func(r promptcanary.Response) (promptcanary.Response, bool) {
		if !applies(r) {
			return r, false
		}
		return withContent(r, rewrite(r.Content)), true
	}
}

// wrapped is the Apply of a drift that puts lead before and tail after
// the trimmed content of the answers for which applies holds.
func wrapped(applies func(promptcanary.Response) bool, lead, tail string) func(promptcanary.Response) (promptcanary.Response, bool) {
	return rewritten(applies, func(c string) string { return lead + strings.TrimSpace(c) + tail })
}

// objectRewritten is the Apply of a drift that rewrites the fields of
// answers that are JSON objects with at least minFields fields, keeping
// their layout (one line or indented); rewrite must not modify its
// argument in place.
func objectRewritten(minFields int, rewrite func([]field) []field) func(promptcanary.Response) (promptcanary.Response, bool) {
	return func(r promptcanary.Response) (promptcanary.Response, bool) {
		fields, ml, ok := objectAnswer(r.Content)
		if !ok || len(fields) < minFields {
			return r, false
		}
		return withContent(r, writeObject(rewrite(fields), ml)), true
	}
}

// replaced is the Apply of a drift that replaces the answer with text,
// drops its tool calls and ends it with finish, on every answer but those
// for which unchanged holds (the answers already like that).
func replaced(text, finish string, unchanged func(promptcanary.Response) bool) func(promptcanary.Response) (promptcanary.Response, bool) {
	return func(r promptcanary.Response) (promptcanary.Response, bool) {
		if unchanged(r) {
			return r, false
		}
		out := withContent(r, text)
		out.ToolCalls, out.FinishReason = nil, finish
		return out, true
	}
}

// appended is the Apply of a drift that ends every answer with text,
// right after its last non-space character.
func appended(text string) func(promptcanary.Response) (promptcanary.Response, bool) {
	return rewritten(answered, func(c string) string { return strings.TrimRight(c, " \t\r\n") + text })
}

// keysSuggestion suggests a probe whose list parameter holds the keys of
// the first stored JSON object answer.
func keysSuggestion(probeType, param, why string) func(*promptcanary.Prompt, []promptcanary.Response) Suggestion {
	return func(_ *promptcanary.Prompt, answers []promptcanary.Response) Suggestion {
		var ks []string
		for _, a := range answers {
			if fields, _, ok := objectAnswer(a.Content); ok {
				ks = keys(fields)
				break
			}
		}
		return Suggestion{ProbeType: probeType, Params: param + ": " + yamlList(ks), Why: why}
	}
}

// withContent returns r with its content replaced and its completion
// tokens scaled to the new length, so that token counts stay plausible.
func withContent(r promptcanary.Response, content string) promptcanary.Response {
	old := utf8.RuneCountInString(r.Content)
	r.Content = content
	if r.CompletionTokens > 0 && old > 0 {
		r.CompletionTokens = int(math.Round(float64(r.CompletionTokens) * float64(utf8.RuneCountInString(content)) / float64(old)))
		r.TotalTokens = r.PromptTokens + r.CompletionTokens
	}
	r.ToolCalls = cloneCalls(r).ToolCalls
	r.RawResponse = nil // the provider's body no longer matches
	return r
}

// cloneCalls returns r with a deep copy of its tool calls.
func cloneCalls(r promptcanary.Response) promptcanary.Response {
	if r.ToolCalls != nil {
		calls := make([]promptcanary.ToolCall, len(r.ToolCalls))
		for i, c := range r.ToolCalls {
			c.Arguments = slices.Clone(c.Arguments)
			calls[i] = c
		}
		r.ToolCalls = calls
	}
	r.RawResponse = nil
	return r
}

// answered reports whether r has content that is not a refusal: the
// answers whose wording the content drifts change.
func answered(r promptcanary.Response) bool {
	return strings.TrimSpace(r.Content) != "" && !looksRefused(r.Content)
}

// numbers returns the spans of the numbers of s, leaving out the markers
// of numbered lists ("1. ", "2) " at the start of a line).
func numbers(s string) [][]int {
	var out [][]int
	for _, m := range numberRe.FindAllStringIndex(s, -1) {
		lineStart := strings.TrimLeft(s[strings.LastIndexByte(s[:m[0]], '\n')+1:m[0]], " \t") == ""
		if lineStart && (strings.HasPrefix(s[m[1]:], ". ") || strings.HasPrefix(s[m[1]:], ") ")) {
			continue
		}
		out = append(out, m)
	}
	return out
}

// shiftNumbers shifts every digit of the numbers of s by one (9 to 0).
func shiftNumbers(s string) string {
	b := []byte(s)
	for _, m := range numbers(s) {
		for i := m[0]; i < m[1]; i++ {
			if c := b[i]; c >= '0' && c <= '9' {
				b[i] = '0' + (c-'0'+1)%10
			}
		}
	}
	return string(b)
}

// firstNumber returns the first number of s, "" when there is none.
func firstNumber(s string) string {
	if ms := numbers(s); len(ms) > 0 {
		return s[ms[0][0]:ms[0][1]]
	}
	return ""
}

// prose reports whether r is a non-empty text answer that is not JSON and
// carries no tool call.
func prose(r promptcanary.Response) bool {
	t := strings.TrimSpace(r.Content)
	return answered(r) && len(r.ToolCalls) == 0 && !jsonAnswer(t) && !strings.HasPrefix(t, "```")
}

// jsonResponse reports whether the content of r is JSON.
func jsonResponse(r promptcanary.Response) bool { return jsonAnswer(r.Content) }

func hasPreamble(t string) bool { return preambleRe.MatchString(t) }

func looksRefused(s string) bool { return refusedRe.MatchString(s) }

// halfOf returns the first half of s, cut back to a word boundary when one
// lies in the second quarter.
func halfOf(s string) string {
	runes := []rune(s)
	cut := len(runes) / 2
	for i := cut; i > len(runes)/4; i-- {
		if unicode.IsSpace(runes[i]) {
			return strings.TrimRightFunc(string(runes[:i]), unicode.IsSpace)
		}
	}
	return string(runes[:cut])
}

// renameKey changes a key's convention: snake_case becomes camelCase, a
// lower initial becomes upper and an upper initial lower.
func renameKey(k string) string {
	if strings.Contains(strings.Trim(k, "_"), "_") {
		parts := strings.Split(k, "_")
		for i := 1; i < len(parts); i++ {
			parts[i] = upperFirst(parts[i])
		}
		return strings.Join(parts, "")
	}
	r, size := utf8.DecodeRuneInString(k)
	switch {
	case unicode.IsLower(r):
		return string(unicode.ToUpper(r)) + k[size:]
	case unicode.IsUpper(r):
		return string(unicode.ToLower(r)) + k[size:]
	}
	return k + "_"
}

func upperFirst(s string) string {
	r, size := utf8.DecodeRuneInString(s)
	if size == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[size:]
}

// renameTool returns a plausible wrong name for a tool.
func renameTool(name string) string {
	switch {
	case strings.HasPrefix(name, "get_"):
		return "fetch_" + name[4:]
	case strings.HasPrefix(name, "fetch_"):
		return "get_" + name[6:]
	}
	return name + "_tool"
}

// argSynonyms are the names a model paraphrases common arguments into.
var argSynonyms = map[string]string{
	"city": "location", "location": "city", "query": "search_query", "q": "query",
	"name": "full_name", "date": "day", "id": "identifier", "text": "input",
}

// renameArg returns a plausible paraphrase of an argument name.
func renameArg(k string) string {
	if s, ok := argSynonyms[k]; ok {
		return s
	}
	return k + "_value"
}

// commonWord returns the longest word of at least five letters that every
// answer contains (case-insensitively), ties to the first in the first
// answer; "" when there is none.
func commonWord(answers []promptcanary.Response) string {
	if len(answers) == 0 {
		return ""
	}
	best := ""
	for _, w := range strings.FieldsFunc(answers[0].Content, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if utf8.RuneCountInString(w) < 5 || utf8.RuneCountInString(w) <= utf8.RuneCountInString(best) {
			continue
		}
		lw := strings.ToLower(w)
		all := true
		for _, a := range answers[1:] {
			if !strings.Contains(strings.ToLower(a.Content), lw) {
				all = false
				break
			}
		}
		if all {
			best = w
		}
	}
	return best
}

// simpleScalar matches YAML scalars that need no quotes.
var simpleScalar = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// yamlScalar quotes s for YAML unless it is a plain identifier; a quoted
// JSON string is a valid YAML double-quoted scalar.
func yamlScalar(s string) string {
	if simpleScalar.MatchString(s) && !slices.Contains([]string{"true", "false", "null", "yes", "no", "on", "off"}, strings.ToLower(s)) {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// yamlList writes ss as a YAML flow sequence.
func yamlList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = yamlScalar(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
