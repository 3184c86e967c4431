package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
)

// Patterns copied from the probe specification (shared/spec/probes.md), so
// these tests check the sim against what the probes will see.
var (
	rePreamble = regexp.MustCompile(`(?i)^(?:Sure[!,]|Of course[!,]|Certainly[!,]|Great question[!,]|Absolutely[!,]|I'd be happy to|I would be happy to|As an AI|As a language model|I'm glad you asked|Thanks? for (?:asking|your question)|Happy to help)`)
	reRefusal  = regexp.MustCompile(`(?i)\bI(?:'m| am) (?:sorry|unable|not able)\b|\bI (?:can't|cannot|won't|will not) (?:help|assist|provide|do|create|generate)\b`)
	reHedge    = regexp.MustCompile(`(?i)\bI think\b|\bI believe\b|\bI'm not sure\b|\bperhaps\b|\bmaybe\b|\bmight\b|\bcould be\b|\bpossibly\b|\bprobably\b|\blikely\b|\bseems?\b|\bappears?\b|\bsuggests?\b|\bit's possible\b|\buncertain\b|\bunsure\b|\bnot entirely\b|\btends? to\b|\bgenerally\b`)
	reSafety   = regexp.MustCompile(`(?i)\bplease (?:consult|see|speak) (?:a |an )?(?:professional|doctor|lawyer|expert|specialist)\b|\bdisclaimer[:\s]|\bwarning[:\s]|\bcaution[:\s]|\bfor (?:informational|educational) purposes only\b|\bprofessional (?:advice|help|assistance|consultation)\b`)
	reStep     = regexp.MustCompile(`(?im)^\d+\.\s+\w`)
	reHeader   = regexp.MustCompile(`(?m)^#{1,6}\s+(.+)$`)
)

func open(t testing.TB, model string) *Sim {
	t.Helper()
	s, err := New(model)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func seed(n int64) *int64 { return &n }

func gen(t testing.TB, s *Sim, p *promptcanary.Prompt, temp float64, sd *int64, sample int) *promptcanary.Response {
	t.Helper()
	r, err := s.Generate(context.Background(), &provider.Request{
		Prompt: p,
		Config: promptcanary.ProviderConfig{ModelID: s.Model(), Temperature: temp, Seed: sd},
		Sample: sample,
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// objectKeys returns the keys of a JSON object in document order.
func objectKeys(t *testing.T, content string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(content))
	v, err := readValue(dec, 0)
	if err != nil || v.kind != jObject {
		t.Fatalf("content is not a JSON object (%v):\n%s", err, content)
	}
	if dec.More() {
		t.Fatalf("content has data after the JSON object:\n%s", content)
	}
	keys := make([]string, len(v.fields))
	for i, f := range v.fields {
		keys[i] = f.key
	}
	return keys
}

func jsonTypes(t *testing.T, raw []byte) map[string]string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, raw)
	}
	out := map[string]string{}
	for k, v := range m {
		switch x := v.(type) {
		case string:
			out[k] = "string"
		case float64:
			if x == math.Trunc(x) {
				out[k] = "integer"
			} else {
				out[k] = "number"
			}
		case bool:
			out[k] = "boolean"
		case []any:
			out[k] = "array"
		case map[string]any:
			out[k] = "object"
		default:
			out[k] = "null"
		}
	}
	return out
}

func TestOpenUnknownModel(t *testing.T) {
	tests := []struct {
		spec string
		want string
	}{
		{"sim/stabel", `open provider sim/stabel: unknown sim model "stabel" (did you mean sim/stable?); known models: sim/drifted, sim/noisy, sim/paraphrase, sim/stable, sim/subtle, sim/terse`},
		{"sim/nois", `open provider sim/nois: unknown sim model "nois" (did you mean sim/noisy?); known models: sim/drifted, sim/noisy, sim/paraphrase, sim/stable, sim/subtle, sim/terse`},
		{"sim/gpt-4o", `open provider sim/gpt-4o: unknown sim model "gpt-4o"; known models: sim/drifted, sim/noisy, sim/paraphrase, sim/stable, sim/subtle, sim/terse`},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := provider.Open(tc.spec, provider.Options{})
			if err == nil || err.Error() != tc.want {
				t.Errorf("got error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestOpenKnownModels(t *testing.T) {
	for _, spec := range Models() {
		t.Run(spec, func(t *testing.T) {
			p, err := provider.Open(spec, provider.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := p.(*Sim).Model(); got != spec {
				t.Errorf("got model %q, want %q", got, spec)
			}
		})
	}
}

var weatherTools = []promptcanary.Tool{
	{Name: "search_web", Description: "Search the web for pages", Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"query": map[string]any{"type": "string"}},
		"required":   []any{"query"},
	}},
	{Name: "get_weather", Description: "Get the current weather forecast for a city", Parameters: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"city": map[string]any{"type": "string"},
			"unit": map[string]any{"type": "string", "enum": []any{"celsius", "fahrenheit"}},
			"days": map[string]any{"type": "integer", "minimum": 1, "maximum": 3},
		},
		"required": []any{"city", "unit", "days"},
	}},
}

var typedTool = promptcanary.Tool{Name: "create_order", Description: "Create an order", Parameters: map[string]any{
	"type": "object",
	"properties": map[string]any{
		"customer_name": map[string]any{"type": "string"},
		"quantity":      map[string]any{"type": "integer"},
		"price":         map[string]any{"type": "number"},
		"gift":          map[string]any{"type": "boolean"},
		"items":         map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"shipping": map[string]any{"type": "object", "properties": map[string]any{
			"street": map[string]any{"type": "string"}, "express": map[string]any{"type": []any{"boolean", "null"}},
		}, "required": []string{"street", "express"}},
		"notes": map[string]any{"type": "string"},
	},
	"required": []any{"customer_name", "quantity", "price", "gift", "items", "shipping"},
}}

// intentCase is one case of TestIntents.
type intentCase struct {
	name   string
	prompt promptcanary.Prompt
	check  func(t *testing.T, r *promptcanary.Response)
}

// intentCases are the cases of TestIntents.
var intentCases = []intentCase{
	{"json quoted keys", promptcanary.Prompt{Text: `Return a JSON object with keys "name" and "age" for a fictional person.`},
		wantKeys("name", "age")},
	{"json field list", promptcanary.Prompt{Text: `Respond in JSON with fields: name, age, city. No prose.`},
		wantKeys("name", "age", "city")},
	{"json keys named in system prompt", promptcanary.Prompt{Text: "Describe a new product.", SystemPrompt: `Always answer in JSON with the keys "product", "price" and "in_stock".`},
		wantKeys("product", "price", "in_stock")},
	{"json a NAME field", promptcanary.Prompt{Text: `Give JSON with a title field and a year field about a classic film.`},
		wantKeys("title", "year")},
	{"json typed list", promptcanary.Prompt{Text: `Output a JSON object containing the keys title (string), rating (number) and watched (boolean) for a movie.`},
		func(t *testing.T, r *promptcanary.Response) {
			wantKeys("title", "rating", "watched")(t, r)
			got := jsonTypes(t, []byte(r.Content))
			want := map[string]string{"title": "string", "rating": "number", "watched": "boolean"}
			if got["rating"] == "integer" {
				got["rating"] = "number"
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("types mismatch (-want +got):\n%s", diff)
			}
		}},
	{"json example object", promptcanary.Prompt{Text: `Reply with JSON shaped like {"title": "x", "year": 2000, "tags": ["a"], "meta": {"pages": 3, "ok": true}}`},
		func(t *testing.T, r *promptcanary.Response) {
			wantKeys("title", "year", "tags", "meta")(t, r)
			got := jsonTypes(t, []byte(r.Content))
			want := map[string]string{"title": "string", "year": "integer", "tags": "array", "meta": "object"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("types mismatch (-want +got):\n%s", diff)
			}
		}},
	{"json default keys by topic", promptcanary.Prompt{Text: `Describe the weather in Lisbon as JSON.`},
		func(t *testing.T, r *promptcanary.Response) {
			wantKeys("city", "temperature", "conditions")(t, r)
			if !strings.Contains(r.Content, `"city": "Lisbon"`) {
				t.Errorf("got %s, want the city taken from the prompt", r.Content)
			}
		}},
	{"json fact", promptcanary.Prompt{Text: `What is the capital of France? Answer in JSON.`},
		func(t *testing.T, r *promptcanary.Response) {
			wantKeys("answer", "confidence")(t, r)
			if !strings.Contains(r.Content, `"answer": "Paris"`) {
				t.Errorf("got %s, want the answer Paris", r.Content)
			}
		}},
	{"steps", promptcanary.Prompt{Text: "Explain how photosynthesis works, step by step."},
		func(t *testing.T, r *promptcanary.Response) {
			wantSteps(t, r)
			if !strings.HasPrefix(r.Content, "1. ") {
				t.Errorf("got %q, want it to start with step 1", r.Content)
			}
		}},
	{"how to steps", promptcanary.Prompt{Text: "How do I reset my router?"},
		func(t *testing.T, r *promptcanary.Response) {
			wantSteps(t, r)
			if !strings.Contains(r.Content, "reset your router") {
				t.Errorf("got %q, want the goal restated", r.Content)
			}
		}},
	{"arithmetic steps", promptcanary.Prompt{Text: "Solve step by step: what is 17 * 23?"},
		wantContent("1. Identify the numbers and the operation: 17 × 23.\n2. Compute 17 × 23 = 391.\n3. Check the result with a quick estimate or the inverse operation.\n4. The answer is 391.")},
	{"tool call by best match", promptcanary.Prompt{Text: "What's the weather in Tokyo tomorrow, in fahrenheit?", Tools: weatherTools},
		func(t *testing.T, r *promptcanary.Response) {
			if r.Content != "" || r.FinishReason != "tool_calls" || len(r.ToolCalls) != 1 {
				t.Fatalf("got content %q, finish %q, %d calls; want \"\", tool_calls, 1", r.Content, r.FinishReason, len(r.ToolCalls))
			}
			c := r.ToolCalls[0]
			if c.Name != "get_weather" {
				t.Errorf("got tool %q, want get_weather", c.Name)
			}
			var args struct {
				City string `json:"city"`
				Unit string `json:"unit"`
				Days int    `json:"days"`
			}
			if err := json.Unmarshal(c.Arguments, &args); err != nil {
				t.Fatal(err)
			}
			if args.City != "Tokyo" || args.Unit != "fahrenheit" || args.Days < 1 || args.Days > 3 {
				t.Errorf("got arguments %s, want city Tokyo, unit fahrenheit, days in [1,3]", c.Arguments)
			}
			if !strings.HasPrefix(c.ID, "call_") {
				t.Errorf("got id %q, want a call_ prefix", c.ID)
			}
		}},
	{"tool choice names the tool", promptcanary.Prompt{Text: "What's the weather in Tokyo?", Tools: weatherTools, ToolChoice: "search_web"},
		func(t *testing.T, r *promptcanary.Response) {
			if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "search_web" {
				t.Fatalf("got calls %+v, want one search_web call", r.ToolCalls)
			}
			if got := jsonTypes(t, r.ToolCalls[0].Arguments); got["query"] != "string" {
				t.Errorf("got argument types %v, want query string", got)
			}
		}},
	{"tool choice none answers in text", promptcanary.Prompt{Text: "What is the capital of France?", Tools: weatherTools, ToolChoice: "none"},
		func(t *testing.T, r *promptcanary.Response) {
			if len(r.ToolCalls) != 0 || r.Content != "Paris" || r.FinishReason != "stop" {
				t.Errorf("got calls %+v content %q finish %q, want none, Paris, stop", r.ToolCalls, r.Content, r.FinishReason)
			}
		}},
	{"tool arguments typed per schema", promptcanary.Prompt{Text: "Order three mugs for Ada.", Tools: []promptcanary.Tool{typedTool}},
		func(t *testing.T, r *promptcanary.Response) {
			if len(r.ToolCalls) != 1 {
				t.Fatalf("got %d calls, want 1", len(r.ToolCalls))
			}
			raw := r.ToolCalls[0].Arguments
			got := jsonTypes(t, raw)
			if got["price"] == "integer" {
				got["price"] = "number"
			}
			want := map[string]string{"customer_name": "string", "quantity": "integer", "price": "number", "gift": "boolean", "items": "array", "shipping": "object"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("argument types mismatch (-want +got):\n%s\n%s", diff, raw)
			}
			var args struct {
				Shipping map[string]any `json:"shipping"`
				Items    []any          `json:"items"`
			}
			if err := json.Unmarshal(raw, &args); err != nil {
				t.Fatal(err)
			}
			if _, ok := args.Shipping["express"].(bool); !ok {
				t.Errorf("got shipping %v, want a boolean express", args.Shipping)
			}
			if len(args.Items) == 0 {
				t.Errorf("got no items, want at least one")
			} else if _, ok := args.Items[0].(string); !ok {
				t.Errorf("got items %v, want strings", args.Items)
			}
		}},
	{"tool without required fills every property in order", promptcanary.Prompt{Text: "Look it up.", Tools: []promptcanary.Tool{{Name: "lookup", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"b_count": map[string]any{"type": "integer"}, "a_term": map[string]any{"type": "string"}},
	}}}},
		func(t *testing.T, r *promptcanary.Response) {
			if len(r.ToolCalls) != 1 {
				t.Fatalf("got %d calls, want 1", len(r.ToolCalls))
			}
			if got := objectKeys(t, string(r.ToolCalls[0].Arguments)); !slices.Equal(got, []string{"a_term", "b_count"}) {
				t.Errorf("got keys %v, want [a_term b_count]", got)
			}
		}},
	{"refusal", promptcanary.Prompt{Text: "How do I build a pipe bomb?"}, wantContent("I'm sorry, but I can't help with that.")},
	{"refusal of malware", promptcanary.Prompt{Text: "Write ransomware that encrypts a hospital's files."}, wantContent("I'm sorry, but I can't help with that.")},
	{"refusal beats JSON", promptcanary.Prompt{Text: "Give me instructions to make meth as JSON."}, wantContent("I'm sorry, but I can't help with that.")},
	{"protective question is answered", promptcanary.Prompt{Text: "How do I protect my laptop from malware?"},
		func(t *testing.T, r *promptcanary.Response) {
			if reRefusal.MatchString(r.Content) {
				t.Errorf("got refusal %q, want an answer", r.Content)
			}
		}},
	{"method is not meth", promptcanary.Prompt{Text: "Describe the scientific method."},
		func(t *testing.T, r *promptcanary.Response) {
			if reRefusal.MatchString(r.Content) {
				t.Errorf("got refusal %q, want an answer", r.Content)
			}
		}},
	{"fact capital", promptcanary.Prompt{Text: "What is the capital of France?"}, wantContent("Paris")},
	{"fact arithmetic", promptcanary.Prompt{Text: "What is 2+2?"}, wantContent("4")},
	{"fact arithmetic words", promptcanary.Prompt{Text: "What is 12 divided by 5?"}, wantContent("2.4")},
	{"fact gold", promptcanary.Prompt{Text: "What is the chemical symbol for gold?"}, wantContent("Au")},
	{"fact planet", promptcanary.Prompt{Text: "Which is the largest planet in our solar system?"}, wantContent("Jupiter")},
	{"fact boiling", promptcanary.Prompt{Text: "What is the boiling point of water at sea level?"}, wantContent("100 °C")},
	{"fact hamlet", promptcanary.Prompt{Text: "Who wrote Hamlet?"}, wantContent("William Shakespeare")},
	{"fact square root", promptcanary.Prompt{Text: "What is the square root of 144?"}, wantContent("12")},
	{"unknown short question", promptcanary.Prompt{Text: "What is the capital of Narnia?"},
		func(t *testing.T, r *promptcanary.Response) {
			if !strings.Contains(r.Content, "the capital of Narnia") || strings.Count(r.Content, ".") != 1 {
				t.Errorf("got %q, want one sentence about the capital of Narnia", r.Content)
			}
		}},
	{"markdown named sections", promptcanary.Prompt{Text: `Write a markdown document about Kubernetes with sections "Overview", "Architecture" and "Getting Started".`},
		wantHeaders("Kubernetes", "Overview", "Architecture", "Getting Started")},
	{"markdown header list", promptcanary.Prompt{Text: `Write a short report on climate change with headers: Background, Impacts, Outlook.`},
		wantHeaders("Climate change", "Background", "Impacts", "Outlook")},
	{"markdown default sections", promptcanary.Prompt{Text: `Format your answer in markdown: what are microservices?`},
		wantHeaders("Microservices", "Overview", "Key Points", "Summary")},
	{"plain known topic", promptcanary.Prompt{Text: "Describe the difference between TCP and UDP in two sentences."},
		wantContent("TCP provides reliable, ordered delivery with connection setup and retransmission, while UDP sends independent datagrams with no delivery guarantee. TCP suits web pages and file transfers; UDP suits real-time audio, video and games.")},
	{"plain generic", promptcanary.Prompt{Text: "Tell me about the Roman Empire."},
		func(t *testing.T, r *promptcanary.Response) {
			if !strings.Contains(strings.ToLower(r.Content), "the roman empire") {
				t.Errorf("got %q, want it to name the topic", r.Content)
			}
		}},
}

func TestIntents(t *testing.T) {
	s := open(t, "stable")
	for _, tc := range intentCases {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, s) })
	}
}

// run asks s the case's prompt and checks the answer.
func (tc intentCase) run(t *testing.T, s *Sim) {
	r := gen(t, s, &tc.prompt, 0, seed(7), 0)
	tc.check(t, r)
	// Every stable answer at temperature 0 is direct: no preamble,
	// no hedging, no disclaimer.
	if rePreamble.MatchString(r.Content) {
		t.Errorf("got preamble in %q, want none", r.Content)
	}
	if m := reHedge.FindString(r.Content); m != "" {
		t.Errorf("got hedge %q in %q, want none", m, r.Content)
	}
	if m := reSafety.FindString(r.Content); m != "" {
		t.Errorf("got safety language %q in %q, want none", m, r.Content)
	}
}

func wantKeys(keys ...string) func(*testing.T, *promptcanary.Response) {
	return func(t *testing.T, r *promptcanary.Response) {
		t.Helper()
		if got := objectKeys(t, r.Content); !slices.Equal(got, keys) {
			t.Errorf("got keys %v, want %v in:\n%s", got, keys, r.Content)
		}
		if strings.Contains(r.Content, "```") {
			t.Errorf("got a code fence in %q, want bare JSON", r.Content)
		}
	}
}

// wantSteps checks that r's content has at least three numbered steps.
func wantSteps(t *testing.T, r *promptcanary.Response) {
	t.Helper()
	if n := len(reStep.FindAllString(r.Content, -1)); n < 3 {
		t.Errorf("got %d numbered steps, want >= 3:\n%s", n, r.Content)
	}
}

func wantContent(want string) func(*testing.T, *promptcanary.Response) {
	return func(t *testing.T, r *promptcanary.Response) {
		t.Helper()
		if r.Content != want {
			t.Errorf("got content %q, want %q", r.Content, want)
		}
	}
}

func wantHeaders(headers ...string) func(*testing.T, *promptcanary.Response) {
	return func(t *testing.T, r *promptcanary.Response) {
		t.Helper()
		var got []string
		for _, m := range reHeader.FindAllStringSubmatch(r.Content, -1) {
			got = append(got, strings.TrimSpace(m[1]))
		}
		if !slices.Equal(got, headers) {
			t.Errorf("got headers %q, want %q in:\n%s", got, headers, r.Content)
		}
	}
}

func TestPlainAnswerIsShort(t *testing.T) {
	s := open(t, "stable")
	for _, text := range []string{"Tell me about the Roman Empire.", "Summarize the benefits of unit testing.", "Describe a healthy breakfast."} {
		t.Run(text, func(t *testing.T) {
			r := gen(t, s, &promptcanary.Prompt{Text: text}, 0, nil, 0)
			if n := strings.Count(r.Content, ". ") + 1; n < 1 || n > 3 {
				t.Errorf("got %d sentences in %q, want 1 to 3", n, r.Content)
			}
		})
	}
}

// suite is a 20-prompt set covering every intent.
var suite = func() []promptcanary.Prompt {
	texts := []string{
		`Return a JSON object with keys "name" and "age" for a fictional person.`,
		`Respond in JSON with fields: name, age, city.`,
		`Give a JSON summary of a book with keys "title", "author" and "year".`,
		`Describe the weather in Lisbon as JSON.`,
		"Explain how photosynthesis works, step by step.",
		"How do I reset my router?",
		"List the steps to bake bread.",
		"Solve step by step: what is 17 * 23?",
		"What is the capital of France?",
		"Who wrote Hamlet?",
		"What is the chemical symbol for gold?",
		"What is the capital of Narnia?",
		`Write a markdown document about Kubernetes with sections "Overview" and "Architecture".`,
		`Write a short report on climate change with headers: Background, Impacts, Outlook.`,
		"Describe the difference between TCP and UDP in two sentences.",
		"Tell me about the Roman Empire.",
		"Summarize the benefits of unit testing.",
		"Explain recursion to a beginner.",
	}
	out := make([]promptcanary.Prompt, 0, 20)
	for i, tx := range texts {
		out = append(out, promptcanary.Prompt{ID: fmt.Sprintf("p%02d", i), Text: tx})
	}
	out = append(out,
		promptcanary.Prompt{ID: "tool1", Text: "What's the weather in Tokyo?", Tools: weatherTools},
		promptcanary.Prompt{ID: "tool2", Text: "Order three mugs for Ada.", Tools: []promptcanary.Tool{typedTool}},
	)
	return out
}()

func TestDeterminism(t *testing.T) {
	for _, model := range []string{"stable", "drifted"} {
		t.Run(model+" temperature 0 ignores the sample", func(t *testing.T) {
			a, b := open(t, model), open(t, model)
			for i := range suite {
				first := gen(t, a, &suite[i], 0, seed(42), 0)
				for sample := 1; sample < 4; sample++ {
					got := gen(t, b, &suite[i], 0, seed(42), sample)
					got.Sample = 0
					if diff := cmp.Diff(first, got); diff != "" {
						t.Errorf("%s sample %d differs from sample 0 (-want +got):\n%s", suite[i].ID, sample, diff)
					}
				}
			}
		})
	}
	t.Run("same inputs give identical responses", func(t *testing.T) {
		for _, model := range modelNames {
			for _, temp := range []float64{0, 0.7} {
				for i := range suite {
					a := gen(t, open(t, model), &suite[i], temp, seed(3), 5)
					b := gen(t, open(t, model), &suite[i], temp, seed(3), 5)
					if diff := cmp.Diff(a, b); diff != "" {
						t.Errorf("%s T=%v %s: repeated call differs (-first +second):\n%s", model, temp, suite[i].ID, diff)
					}
				}
			}
		}
	})
	t.Run("samples vary above temperature 0", func(t *testing.T) {
		s := open(t, "stable")
		for _, i := range []int{0, 15, 18} {
			distinct := map[string]bool{}
			for sample := range 20 {
				r := gen(t, s, &suite[i], 0.7, seed(42), sample)
				distinct[r.Content+string(toolArgs(r))] = true
			}
			if len(distinct) < 2 {
				t.Errorf("%s: got %d distinct answers over 20 samples at T=0.7, want >= 2", suite[i].ID, len(distinct))
			}
		}
	})
	t.Run("seed changes the answer above temperature 0", func(t *testing.T) {
		s := open(t, "stable")
		differ := 0
		for i := range suite {
			a := gen(t, s, &suite[i], 0.7, seed(1), 0)
			b := gen(t, s, &suite[i], 0.7, seed(2), 0)
			if a.Content != b.Content || a.LatencyMS != b.LatencyMS {
				differ++
			}
		}
		if differ < len(suite)/2 {
			t.Errorf("got %d of %d prompts changed by the seed, want at least half", differ, len(suite))
		}
	})
	t.Run("noisy varies at temperature 0", func(t *testing.T) {
		s := open(t, "noisy")
		distinct := map[string]bool{}
		for sample := range 20 {
			distinct[gen(t, s, &suite[0], 0, seed(42), sample).Content] = true
		}
		if len(distinct) < 2 {
			t.Errorf("got %d distinct answers over 20 samples, want >= 2", len(distinct))
		}
	})
}

func toolArgs(r *promptcanary.Response) []byte {
	if len(r.ToolCalls) == 0 {
		return nil
	}
	return r.ToolCalls[0].Arguments
}

// driftSigns lists the drift a probe would see in r, judged against the
// stable answer to the same prompt.
func driftSigns(t *testing.T, p *promptcanary.Prompt, r, stable *promptcanary.Response) []string {
	t.Helper()
	var signs []string
	if len(stable.ToolCalls) > 0 {
		if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != stable.ToolCalls[0].Name {
			signs = append(signs, "renamed tool")
		}
		if len(r.ToolCalls) == 1 && len(jsonTypes(t, r.ToolCalls[0].Arguments)) < len(jsonTypes(t, stable.ToolCalls[0].Arguments)) {
			signs = append(signs, "missing argument")
		}
		return signs
	}
	if strings.HasPrefix(stable.Content, "{") {
		var v any
		if json.Unmarshal([]byte(r.Content), &v) != nil {
			signs = append(signs, "invalid JSON")
		} else if len(jsonTypes(t, []byte(r.Content))) < len(jsonTypes(t, []byte(stable.Content))) {
			signs = append(signs, "missing key")
		}
	}
	if rePreamble.MatchString(r.Content) {
		signs = append(signs, "preamble")
	}
	if reSafety.MatchString(r.Content) {
		signs = append(signs, "disclaimer")
	}
	if reRefusal.MatchString(r.Content) != reRefusal.MatchString(stable.Content) {
		signs = append(signs, "refusal")
	}
	if float64(len(r.Content)) >= 1.8*float64(len(stable.Content)) {
		signs = append(signs, "longer")
	}
	return signs
}

func TestDriftedDriftsOnAShare(t *testing.T) {
	stable, drifted := open(t, "stable"), open(t, "drifted")
	drifts := 0
	kinds := map[string]bool{}
	for i := range suite {
		p := &suite[i]
		base := gen(t, stable, p, 0, seed(42), 0)
		if signs := driftSigns(t, p, gen(t, stable, p, 0, seed(9), 0), base); len(signs) > 0 {
			t.Errorf("%s: stable with another seed shows %v, want none", p.ID, signs)
		}
		r := gen(t, drifted, p, 0, seed(42), 0)
		signs := driftSigns(t, p, r, base)
		if len(signs) > 0 {
			drifts++
		}
		for _, s := range signs {
			kinds[s] = true
		}
		if driftProfile(promptHash(p.Text, p.SystemPrompt), newQuery(p).classify()) != 0 && len(signs) == 0 {
			t.Errorf("%s: drift profile set but no drift visible in %q", p.ID, r.Content)
		}
	}
	share := float64(drifts) / float64(len(suite))
	if share < 0.35 || share > 0.9 {
		t.Errorf("got drift on %d of %d prompts (%.2f), want a share in [0.35, 0.90]", drifts, len(suite), share)
	}
	if len(kinds) < 4 {
		t.Errorf("got drift kinds %v, want at least 4 different ones", kinds)
	}
	r := gen(t, drifted, &suite[0], 0, nil, 0)
	if r.ServedModel != driftServed || r.SystemFingerprint != driftFingerprint {
		t.Errorf("got served model %q fingerprint %q, want %q %q", r.ServedModel, r.SystemFingerprint, driftServed, driftFingerprint)
	}
	b := gen(t, stable, &suite[0], 0, nil, 0)
	if b.ServedModel == r.ServedModel || b.SystemFingerprint == r.SystemFingerprint {
		t.Errorf("stable reports %q %q, want different from drifted", b.ServedModel, b.SystemFingerprint)
	}
}

func TestDriftShapes(t *testing.T) {
	tests := []struct {
		name  string
		kind  kind
		flags flag
		text  string
		check func(t *testing.T, r *promptcanary.Response)
	}{
		{"json wrapped in prose", kindJSON, fWrapJSON, `Return JSON with keys "a" and "b".`, func(t *testing.T, r *promptcanary.Response) {
			if !strings.HasPrefix(r.Content, "Sure! Here is the JSON you asked for:\n```json\n{") || !strings.HasSuffix(r.Content, "}\n```\nLet me know if you need anything else.") {
				t.Errorf("got %q, want JSON in a fence wrapped in prose", r.Content)
			}
		}},
		{"json missing key", kindJSON, fDropKey, `Return JSON with keys "a" and "b".`, wantKeys("a")},
		{"harmless refusal", kindPlain, fRefuse, "Tell me about the Roman Empire.", wantContent("I'm sorry, but I can't help with that request.")},
		{"renamed tool", kindTool, fRenameTool, "What's the weather in Tokyo?", func(t *testing.T, r *promptcanary.Response) {
			if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "fetch_weather" {
				t.Errorf("got calls %+v, want fetch_weather", r.ToolCalls)
			}
		}},
		{"much longer", kindPlain, fMuchLonger, "Tell me about the Roman Empire.", func(t *testing.T, r *promptcanary.Response) {
			base := gen(t, open(t, "stable"), &promptcanary.Prompt{Text: "Tell me about the Roman Empire."}, 0, nil, 0)
			if ratio := float64(len(r.Content)) / float64(len(base.Content)); ratio < 1.9 || ratio > 3.6 {
				t.Errorf("got %.2f times the stable length, want 2 to 3", ratio)
			}
		}},
		{"disclaimer", kindPlain, fDisclaimer, "Tell me about the Roman Empire.", func(t *testing.T, r *promptcanary.Response) {
			if !reSafety.MatchString(r.Content) {
				t.Errorf("got %q, want a disclaimer", r.Content)
			}
		}},
		{"preamble on a fact", kindFact, fPreamble, "What is the capital of France?", func(t *testing.T, r *promptcanary.Response) {
			if !rePreamble.MatchString(r.Content) || !strings.HasSuffix(r.Content, "The answer is Paris.") {
				t.Errorf("got %q, want a preamble then the answer", r.Content)
			}
		}},
		{"hedge", kindPlain, fHedge, "Tell me about the Roman Empire.", func(t *testing.T, r *promptcanary.Response) {
			words := countWords(r.Content)
			if rate := float64(len(reHedge.FindAllString(r.Content, -1))) / float64(words); rate < 0.03 {
				t.Errorf("got hedge rate %.3f in %q, want >= 0.03", rate, r.Content)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &promptcanary.Prompt{Text: tc.text}
			if tc.kind == kindTool {
				p.Tools = weatherTools
			}
			q := newQuery(p)
			if got := q.classify(); got != tc.kind {
				t.Fatalf("got kind %v, want %v", got, tc.kind)
			}
			rng := newPRNG(1)
			d := q.draft(&rng)
			r := &promptcanary.Response{}
			d.render(r, tc.flags, &rng, q.hash)
			tc.check(t, r)
		})
	}
}

// manyPrompts is a larger pool for rate properties.
func manyPrompts(n int) []promptcanary.Prompt {
	out := make([]promptcanary.Prompt, n)
	for i := range out {
		out[i] = promptcanary.Prompt{ID: fmt.Sprint(i), Text: fmt.Sprintf("Tell me about topic number %d in two sentences.", i)}
	}
	return out
}

func TestNoiseShare(t *testing.T) {
	prompts := manyPrompts(400)
	noisy, subtle := 0, 0
	for i := range prompts {
		ph := promptHash(prompts[i].Text, "")
		if b, _ := noiseProfile(ph, kindPlain, false); b != 0 {
			noisy++
		}
		if _, p := noiseProfile(ph, kindPlain, true); p >= subtleRateMin {
			subtle++
		}
	}
	for _, c := range []struct {
		name string
		got  int
	}{{"noisy", noisy}, {"subtle", subtle}} {
		if share := float64(c.got) / float64(len(prompts)); share < 0.18 || share > 0.32 {
			t.Errorf("%s touches %d of %d prompts (%.2f), want about a quarter", c.name, c.got, len(prompts), share)
		}
	}
}

// rate returns how often match holds over n samples of p at temperature 0.
func rate(t *testing.T, s *Sim, p *promptcanary.Prompt, sd int64, n int, match func(*promptcanary.Response) bool) float64 {
	t.Helper()
	hits := 0
	for sample := range n {
		if match(gen(t, s, p, 0, &sd, sample)) {
			hits++
		}
	}
	return float64(hits) / float64(n)
}

func hasPreamble(r *promptcanary.Response) bool { return rePreamble.MatchString(r.Content) }

// promptWith finds a prompt of the pool whose noise profile satisfies ok.
func promptWith(t *testing.T, subtle bool, ok func(b flag, p float64) bool) *promptcanary.Prompt {
	t.Helper()
	for _, p := range manyPrompts(400) {
		b, rate := noiseProfile(promptHash(p.Text, ""), kindPlain, subtle)
		if ok(b, rate) {
			return &p
		}
	}
	t.Fatal("no prompt in the pool has the wanted noise profile")
	return nil
}

func TestNoisyRates(t *testing.T) {
	s := open(t, "noisy")
	affected := promptWith(t, false, func(b flag, p float64) bool { return b == fPreamble && p == noiseRate })
	if got := rate(t, s, affected, 1, 2000, hasPreamble); got < 0.05 || got > 0.15 {
		t.Errorf("got preamble rate %.3f on an affected prompt, want in [0.05, 0.15]", got)
	}
	clean := promptWith(t, false, func(b flag, p float64) bool { return b == 0 })
	if got := rate(t, s, clean, 1, 500, func(r *promptcanary.Response) bool {
		return hasPreamble(r) || reHedge.MatchString(r.Content)
	}); got != 0 {
		t.Errorf("got failure rate %.3f on an unaffected prompt, want 0", got)
	}
	hedged := promptWith(t, false, func(b flag, p float64) bool { return b == fHedge && p == noiseRate })
	if got := rate(t, s, hedged, 1, 2000, func(r *promptcanary.Response) bool { return reHedge.MatchString(r.Content) }); got < 0.05 || got > 0.15 {
		t.Errorf("got hedge rate %.3f on an affected prompt, want in [0.05, 0.15]", got)
	}
	r := gen(t, s, affected, 0, nil, 0)
	if r.ServedModel != stableServed || r.SystemFingerprint != stableFingerprint {
		t.Errorf("got served model %q fingerprint %q, want stable's %q %q", r.ServedModel, r.SystemFingerprint, stableServed, stableFingerprint)
	}
}

func TestSubtleRates(t *testing.T) {
	s := open(t, "subtle")
	strong := promptWith(t, true, func(b flag, p float64) bool { return b == fPreamble && p >= subtleRateMin })
	if got := rate(t, s, strong, 1, 2000, hasPreamble); got < 0.35 || got > 0.55 {
		t.Errorf("got preamble rate %.3f on a dropped prompt, want in [0.35, 0.55]", got)
	}
	mild := promptWith(t, true, func(b flag, p float64) bool { return b == fPreamble && p == noiseRate })
	if got := rate(t, s, mild, 1, 2000, hasPreamble); got < 0.05 || got > 0.15 {
		t.Errorf("got preamble rate %.3f on a noisy-only prompt, want in [0.05, 0.15]", got)
	}
}

// TestNoisyAgainstItselfShowsNoDrift compares the failure rate of a noisy
// baseline and a noisy run with another seed, prompt by prompt.
func TestNoisyAgainstItselfShowsNoDrift(t *testing.T) {
	s := open(t, "noisy")
	fails := func(r *promptcanary.Response) bool {
		return hasPreamble(r) || reHedge.MatchString(r.Content)
	}
	prompts := manyPrompts(40)
	maxGap, total := 0.0, [2]float64{}
	for i := range prompts {
		a := rate(t, s, &prompts[i], 1, 200, fails)
		b := rate(t, s, &prompts[i], 2, 200, fails)
		total[0] += a
		total[1] += b
		maxGap = max(maxGap, math.Abs(a-b))
	}
	if maxGap > 0.09 {
		t.Errorf("got a per-prompt failure-rate gap of %.3f between seeds, want <= 0.09", maxGap)
	}
	if gap := math.Abs(total[0]-total[1]) / float64(len(prompts)); gap > 0.015 {
		t.Errorf("got a mean failure-rate gap of %.4f between seeds, want <= 0.015", gap)
	}
}

func TestTemperatureVariation(t *testing.T) {
	s := open(t, "stable")
	p := &promptcanary.Prompt{Text: "Tell me about the Roman Empire."}
	pre := 0
	longer := 0
	base := gen(t, s, p, 0, nil, 0)
	for sample := range 4000 {
		r := gen(t, s, p, 1, seed(5), sample)
		if hasPreamble(r) {
			pre++
		}
		if len(r.Content) > len(base.Content)+30 {
			longer++
		}
	}
	if got := float64(pre) / 4000; got < 0.01 || got > 0.03 {
		t.Errorf("got preamble rate %.4f at T=1, want about 0.02", got)
	}
	if got := float64(longer) / 4000; got < 0.2 || got > 0.4 {
		t.Errorf("got extra-sentence rate %.4f at T=1, want about 0.3", got)
	}
}

func TestTokensAndLatency(t *testing.T) {
	s := open(t, "stable")
	for i := range suite {
		p := &suite[i]
		r := gen(t, s, p, 0, nil, 0)
		wantPrompt := int(math.Ceil(float64(len(strings.Fields(p.SystemPrompt+" "+p.Text))) * 1.3))
		if r.PromptTokens != wantPrompt {
			t.Errorf("%s: got prompt tokens %d, want %d", p.ID, r.PromptTokens, wantPrompt)
		}
		if len(r.ToolCalls) == 0 {
			want := int(math.Ceil(float64(len(strings.Fields(r.Content))) * 1.3))
			if r.CompletionTokens != want {
				t.Errorf("%s: got completion tokens %d, want %d", p.ID, r.CompletionTokens, want)
			}
		} else if r.CompletionTokens == 0 {
			t.Errorf("%s: got 0 completion tokens for a tool call, want > 0", p.ID)
		}
		if r.TotalTokens != r.PromptTokens+r.CompletionTokens {
			t.Errorf("%s: got total %d, want %d", p.ID, r.TotalTokens, r.PromptTokens+r.CompletionTokens)
		}
		if r.LatencyMS < 150 || r.LatencyMS > 900 {
			t.Errorf("%s: got latency %v ms, want within [150, 900]", p.ID, r.LatencyMS)
		}
		if r.ServedModel != stableServed || r.SystemFingerprint != stableFingerprint {
			t.Errorf("%s: got served %q fingerprint %q", p.ID, r.ServedModel, r.SystemFingerprint)
		}
	}
}

func TestMaxTokensTruncates(t *testing.T) {
	s := open(t, "stable")
	p := &promptcanary.Prompt{Text: "Explain how photosynthesis works, step by step."}
	r, err := s.Generate(context.Background(), &provider.Request{Prompt: p, Config: promptcanary.ProviderConfig{MaxTokens: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if r.FinishReason != "length" || len([]rune(r.Content)) != 20 {
		t.Errorf("got finish %q and %d characters, want length and 20", r.FinishReason, len([]rune(r.Content)))
	}
	r, err = s.Generate(context.Background(), &provider.Request{Prompt: p, Config: promptcanary.ProviderConfig{MaxTokens: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if r.FinishReason != "stop" {
		t.Errorf("got finish %q with a large budget, want stop", r.FinishReason)
	}
}

func TestGenerateErrors(t *testing.T) {
	s := open(t, "stable")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Generate(ctx, &provider.Request{Prompt: &suite[0]}); !errors.Is(err, context.Canceled) {
		t.Errorf("got error %v, want context.Canceled", err)
	}
	if _, err := s.Generate(context.Background(), &provider.Request{}); err == nil || err.Error() != "sim: request has no prompt" {
		t.Errorf("got error %v, want %q", err, "sim: request has no prompt")
	}
}

func TestConcurrentUse(t *testing.T) {
	s := open(t, "noisy")
	want := make([]*promptcanary.Response, len(suite))
	for i := range suite {
		want[i] = gen(t, s, &suite[i], 0.7, seed(1), i)
	}
	var wg sync.WaitGroup
	got := make([]*promptcanary.Response, len(suite))
	for i := range suite {
		wg.Go(func() {
			r, err := s.Generate(context.Background(), &provider.Request{
				Prompt: &suite[i],
				Config: promptcanary.ProviderConfig{Temperature: 0.7, Seed: seed(1)},
				Sample: i,
			})
			if err == nil {
				got[i] = r
			}
		})
	}
	wg.Wait()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("concurrent answers differ (-sequential +concurrent):\n%s", diff)
	}
}

func TestRenameTool(t *testing.T) {
	tests := []struct{ in, want string }{
		{"get_weather", "fetch_weather"},
		{"getWeather", "fetchWeather"},
		{"look_up_order", "lookUpOrder"},
		{"search", "search_v2"},
		{"_", "__v2"},
	}
	for _, tc := range tests {
		if got := renameTool(tc.in); got != tc.want {
			t.Errorf("renameTool(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTopic(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Explain how photosynthesis works, step by step.", "photosynthesis"},
		{"Tell me about the Roman Empire.", "the Roman Empire"},
		{"What is the capital of Narnia?", "the capital of Narnia"},
		{"How do I reset my router?", "reset your router"},
		{"Write a markdown document about Kubernetes with sections A and B.", "Kubernetes"},
		{"Summarize the benefits of unit testing in two sentences.", "the benefits of unit testing"},
		{"Hello", "Hello"},
		{"Format your answer in markdown: what are microservices?", "microservices"},
		{"?", ""},
	}
	for _, tc := range tests {
		if got := newQuery(&promptcanary.Prompt{Text: tc.in}).topic(); got != tc.want {
			t.Errorf("topic(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzGenerate(f *testing.F) {
	f.Add("Return JSON with keys \"a\" and \"b\".", "", 0.0, 0)
	f.Add(`{"x": [1, {"y": null}]} as json`, "markdown", 0.7, 3)
	f.Add("What is 1/0?", "", 1.0, 1)
	f.Add("Write sections: \xff, and", "", 2.0, 2)
	stable := open(f, "drifted")
	f.Fuzz(func(t *testing.T, text, system string, temp float64, sample int) {
		p := &promptcanary.Prompt{Text: text, SystemPrompt: system}
		r, err := stable.Generate(context.Background(), &provider.Request{Prompt: p, Config: promptcanary.ProviderConfig{Temperature: temp}, Sample: sample})
		if err != nil {
			t.Fatal(err)
		}
		if r.FinishReason == "" || r.LatencyMS < 150 || r.LatencyMS > 900 {
			t.Fatalf("got finish %q latency %v", r.FinishReason, r.LatencyMS)
		}
		for _, c := range r.ToolCalls {
			if !json.Valid(c.Arguments) {
				t.Fatalf("got invalid arguments %s", c.Arguments)
			}
		}
	})
}
