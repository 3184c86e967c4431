package benchmark_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	// The families of the 19 original built-ins, not probe/builtin: the
	// benchmark and the golden results cover exactly those.
	_ "github.com/promptcanary/promptcanary/probe/factual"
	_ "github.com/promptcanary/promptcanary/probe/format"
	_ "github.com/promptcanary/promptcanary/probe/reasoning"
	_ "github.com/promptcanary/promptcanary/probe/safety"
	_ "github.com/promptcanary/promptcanary/probe/tooluse"
)

// sample is one response of the corpus, named for messages.
type sample struct {
	name    string
	content string
}

// corpus loads testdata/corpus, sorted by file name.
func corpus(tb testing.TB) []sample {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "corpus", "*"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("corpus: %v (%d files)", err, len(files))
	}
	slices.Sort(files)
	out := make([]sample, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, sample{name: filepath.Base(f), content: string(b)})
	}
	return out
}

// config is one configured probe: a type and its parameters.
type config struct {
	name string
	id   string
	raw  map[string]any
}

// benchConfigs are the 19 built-in probe types, each once with realistic
// parameters: the suite the mix benchmark evaluates on every response.
var benchConfigs = []config{
	{"json_validity", "json_validity", nil},
	{"json_schema", "json_schema", map[string]any{"required_keys": []any{"name", "born", "city"}, "forbidden_keys": []any{"password"}}},
	{"json_key_order", "json_key_order", map[string]any{"expected_order": []any{"name", "born", "field", "city"}}},
	{"response_length", "response_length", map[string]any{"min_chars": 20, "max_chars": 4000, "baseline_chars": 600}},
	{"markdown_headers", "markdown_headers", map[string]any{"expected_headers": []any{"Summary", "Root cause", "Action items"}}},
	{"keyword_presence", "keyword_presence", map[string]any{"required_keywords": []any{"oslo", "Go"}, "forbidden_keywords": []any{"password", "As an AI"}}},
	{"expected_keywords", "expected_keywords", nil},
	{"step_by_step", "step_by_step", nil},
	{"verbosity", "verbosity", map[string]any{"expected_words": 120, "max_words": 600}},
	{"confidence_language", "confidence_language", nil},
	{"direct_answer", "direct_answer", nil},
	{"sentiment", "sentiment", map[string]any{"expect_positive": true}},
	{"refusal", "refusal", nil},
	{"safety_language", "safety_language", nil},
	{"factual_consistency", "factual_consistency", map[string]any{"expected_value": "Oslo"}},
	{"tool_call_presence", "tool_call_presence", nil},
	{"tool_call_name", "tool_call_name", map[string]any{"expected_name": "get_weather", "allow_aliases": []any{"weather"}}},
	{"tool_call_args", "tool_call_args", map[string]any{"required_args": []any{"city"}, "forbidden_args": []any{"api_key"}}},
	{"tool_call_schema", "tool_call_schema", map[string]any{"schema": map[string]any{
		"name": "get_weather", "required_args": []any{"city"}, "optional_args": []any{"unit"},
		"arg_types": map[string]any{"city": "string", "unit": "string"}}}},
}

// goldenConfigs are benchConfigs plus the other settings of each probe
// whose code paths differ: the verdict-equivalence test judges every text
// with each of them.
var goldenConfigs = append(slices.Clone(benchConfigs), []config{
	{"json_schema/all_or_nothing", "json_schema", map[string]any{"required_keys": []any{"name", "id", "results"}, "score_per_key": false}},
	{"response_length/defaults", "response_length", nil},
	{"markdown_headers/case", "markdown_headers", map[string]any{"expected_headers": []any{"Timeline", "impact"}, "case_sensitive": true}},
	{"keyword_presence/case", "keyword_presence", map[string]any{"required_keywords": []any{"Step", "JSON"}, "forbidden_keywords": []any{"sorry"}, "case_sensitive": true}},
	{"step_by_step/direct", "step_by_step", map[string]any{"expect_steps": false, "min_step_count": 3}},
	{"step_by_step/min0", "step_by_step", map[string]any{"min_step_count": 0}},
	{"verbosity/defaults", "verbosity", nil},
	{"verbosity/bounds", "verbosity", map[string]any{"expected_words": 10, "tolerance": 0.2, "min_words": 5, "max_words": 50}},
	{"confidence_language/expect", "confidence_language", map[string]any{"expect_hedging": true, "threshold": 0.01}},
	{"direct_answer/expect_preamble", "direct_answer", map[string]any{"expect_direct": false, "max_preamble_chars": 20}},
	{"direct_answer/zero", "direct_answer", map[string]any{"max_preamble_chars": 0}},
	{"sentiment/none", "sentiment", nil},
	{"sentiment/negative", "sentiment", map[string]any{"expect_positive": false, "threshold": -0.01}},
	{"refusal/expect", "refusal", map[string]any{"expect_refusal": true}},
	{"safety_language/expect", "safety_language", map[string]any{"expect_safety_language": true, "threshold": 2}},
	{"factual_consistency/exact", "factual_consistency", map[string]any{"expected_value": "42", "match_mode": "exact"}},
	{"factual_consistency/startswith", "factual_consistency", map[string]any{"expected_value": "Sure", "match_mode": "startswith", "case_sensitive": true}},
	{"tool_call_presence/text", "tool_call_presence", map[string]any{"expect_tool_call": false, "strategy": "text"}},
	{"tool_call_presence/json", "tool_call_presence", map[string]any{"strategy": "json"}},
}...)

// prompt is the prompt every text is judged for; expected_keywords judges
// its keywords.
var prompt = &promptcanary.Prompt{ID: "p", Text: "Answer the question.",
	ExpectedKeywords: []string{"Oslo", "step", "json", "error"}}

// build returns the probes of configs.
func build(tb testing.TB, configs []config) []probe.Probe {
	tb.Helper()
	out := make([]probe.Probe, len(configs))
	for i, c := range configs {
		p, _, err := probe.New(c.id, c.raw)
		if err != nil {
			tb.Fatalf("probe.New(%s): %v", c.name, err)
		}
		out[i] = p
	}
	return out
}

// mutations are the realistic drifts and edge cases applied to every corpus
// text by the verdict-equivalence test.
var mutations = []struct {
	name string
	fn   func(string) string
}{
	{"upper", strings.ToUpper},
	{"lower", strings.ToLower},
	{"fenced", func(s string) string { return "```json\n" + s + "\n```" }},
	{"preamble", func(s string) string { return "Sure! " + s }},
	{"hedged", func(s string) string {
		return s + " I think this might be wrong, perhaps. Please consult a doctor. Warning: not medical advice."
	}},
	{"refusal", func(s string) string { return "I'm sorry, I can't help with that.\n" + s }},
	{"crlf", func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }},
	{"newlines", func(s string) string { return strings.ReplaceAll(s, " ", "\n") }},
	{"nbsp", func(s string) string { return strings.ReplaceAll(s, " ", "\u00a0") }},
	{"tabs", func(s string) string { return strings.ReplaceAll(s, " ", "\t ") }},
	{"half", func(s string) string { return s[:len(s)/2] }},
	{"doubled", func(s string) string { return s + "\n" + s }},
	{"folds", func(s string) string {
		// ſ and the Kelvin sign fold to s and k in case-insensitive matching.
		return strings.NewReplacer("s", "ſ", "k", "\u212a", "S", "ſ").Replace(s)
	}},
	{"numbered", func(s string) string {
		lines := strings.Split(s, "\n")
		for i := range lines {
			lines[i] = "1. " + lines[i]
		}
		return strings.Join(lines, "\n")
	}},
	{"trimmed", strings.TrimSpace},
	{"punct", func(s string) string { return strings.NewReplacer(" ", ", ", ".", ":").Replace(s) }},
}

// vocabulary holds the words and separators generated texts are made of:
// every word of the probes' patterns and the characters at their edges.
var vocabulary = strings.Fields(`
excellent great wonderful amazing happy please pleased delighted fantastic good
beneficial positive successful effective impressive outstanding bad terrible
awful worse worst fail failed failure failures problem error wrong incorrect
unfortunate negative dangerous harmful goodness
i I'm I am think believe not sure perhaps maybe might could be possibly probably
likely seem seems appear appears suggest suggests it's possible uncertain unsure
entirely tend tends to generally it
step Step STEP 1 2 12 first firstly second secondly third thirdly finally next
then let's let us start begin consider solve <thinking> <thinking thinking> me work break
sorry unable able can't cannot won't will help assist provide do create generate
comfortable allowed this This request prompt question violates goes against is
outside need must decline Against my guidelines principles values policies
Not appropriate something can as an AI language model assistant system cant wont
responsibly refuse seems harmful dangerous inappropriate unethical
consult see speak a an professional doctor lawyer expert specialist should used
for educational informational entertainment only financial advisor always check
with seek advice assistance consultation medical legal warning caution important
disclaimer purposes Sure Of course Certainly Great question Absolutely I'd be happy
I would As Thanks Thank for asking your Happy to help glad you asked
{"name": "get_weather", "arguments": {"city": "Oslo"}} functions.get_weather( # ## Summary
`)

// separators join generated words.
var separators = []string{" ", " ", " ", "  ", "\n", "\n\n", ", ", ",", ":", ": ", ". ", ".", "'", "\t",
	"\r\n", "_", "x", "9", "<", ">", "ſ", "\u212a", "é", "\xff", "\u00a0", "-", "!", "\v", "\f", "'s "}

// generated returns n texts of random words and separators, the same on
// every run.
func generated(n int) []sample {
	rng := rand.New(rand.NewPCG(11, 2025))
	out := make([]sample, n)
	for i := range out {
		var b strings.Builder
		words := 1 + rng.IntN(60)
		for range words {
			w := vocabulary[rng.IntN(len(vocabulary))]
			switch rng.IntN(6) {
			case 0:
				w = strings.ToUpper(w)
			case 1:
				w = strings.ToLower(w)
			}
			b.WriteString(w)
			b.WriteString(separators[rng.IntN(len(separators))])
		}
		out[i] = sample{name: "generated", content: b.String()}
	}
	return out
}

// fixtures returns the probe families' own testdata texts and their fuzz
// seeds, so the equivalence test covers what the probe tests look at.
func fixtures(tb testing.TB) []sample {
	tb.Helper()
	var out []sample
	for _, dir := range []string{"format", "reasoning", "safety", "tooluse", "factual"} {
		files, _ := filepath.Glob(filepath.Join("..", dir, "testdata", "*"))
		slices.Sort(files)
		for _, f := range files {
			if strings.HasSuffix(f, ".yaml") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				continue // a directory
			}
			out = append(out, sample{name: dir + "/" + filepath.Base(f), content: string(b)})
		}
	}
	for _, s := range []string{"", " ", "\xff\xfe", "Sure!", "1. a\n2. b", "maybe maybe", "\u00a0\u3000Sure!",
		"1.\n2. x", "Step 1 Step 2", "<THINKING>", "ſtep 1", "x\u017ftep 1", "as an AI assistant,\n\n I cant",
		"I'm not sure", "I\u2019m not sure", "Sure thing: 4", "   Certainly! 4", "# A\n## B\n#C\n####### D\n#\tE  \n",
		"```\n{\"a\": 1}\n```", "```json\n[1, 2]", "{\"a\": 1, \"a\": 2}", "{\"b\":1,\"a\":{\"c\":[1,{\"d\":2}]}}",
		"Warning\vx", "caution\ffoo", "disclaimer\r", "important disclaimer:", "mightn't", "tend  to", "it's  possible"} {
		out = append(out, sample{name: "seed", content: s})
	}
	return out
}

// texts returns every text the verdict-equivalence test judges: the corpus,
// each corpus text under each mutation, the fixtures and generated texts.
func texts(tb testing.TB) []sample {
	tb.Helper()
	base := corpus(tb)
	out := slices.Clone(base)
	for _, m := range mutations {
		for _, s := range base {
			out = append(out, sample{name: s.name + "/" + m.name, content: m.fn(s.content)})
		}
	}
	out = append(out, fixtures(tb)...)
	return append(out, generated(400)...)
}
