package storetest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
)

// LargeRun returns a deterministic run shaped like a statistical baseline
// of a real suite: prompts × probes × samples probe results and prompts ×
// samples responses. As with a hosted model at temperature 0, most samples
// of a prompt give the same answer and a few give one of several variants;
// probe details repeat (some quote a number from the answer), metadata
// holds counts and an opening preview of the answer, every call has its
// own latency, timestamp and response id, a prompt in ten offers a tool
// and gets a tool call, and one call in a hundred failed.
// largeProbes are the probes of LargeRun's results, repeated with a
// numbered id when a run has more.
var largeProbes = []struct{ id, name string }{
	{"json_validity", "JSON Validity"}, {"direct_answer", "Direct Answer (No Preamble)"}, {"refusal", "Refusal Detection"},
	{"response_length", "Response Length"}, {"sentiment", "Sentiment Shift"}, {"verbosity", "Verbosity"},
	{"step_by_step", "Step-by-Step Reasoning"}, {"safety_language", "Safety Language"}, {"confidence_language", "Confidence Language"},
	{"keyword_presence", "Keyword Presence"}, {"markdown_headers", "Markdown Headers"}, {"json_schema", "JSON Schema"},
}

// largeWords are the words of LargeRun's answers.
var largeWords = strings.Fields("the order total is shipped within two business days and the refund policy allows returns for thirty days " +
	"please contact support with your order number if anything is missing from the package we apologise for the delay")

func LargeRun(id string, prompts, probes, samples int, seed uint64) *promptcanary.Run {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	started := time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC)
	r := &promptcanary.Run{
		SchemaVersion: promptcanary.SchemaVersion, RunID: id, SuiteName: "large-suite",
		Provider:   promptcanary.ProviderConfig{ModelID: "openai/gpt-4o-mini", Temperature: 0, MaxTokens: 512, ExtraParams: map[string]any{}},
		StartedAt:  started,
		Samples:    samples,
		ConfigHash: "sha256:5f0c1e", Tool: "promptcanary test", PromptHashes: map[string]string{},
	}
	clock := started
	for p := range prompts {
		promptID := fmt.Sprintf("prompt-%03d", p)
		r.PromptHashes[promptID] = fmt.Sprintf("%064x", rng.Uint64())
		answers := largeAnswers(rng)
		nVariants := len(answers)
		tool := p%10 == 3
		for s := range samples {
			clock = clock.Add(time.Duration(200+rng.IntN(900)) * time.Millisecond).Add(time.Duration(rng.IntN(1000)) * time.Nanosecond)
			if rng.IntN(100) == 0 {
				r.Errors = append(r.Errors, promptcanary.CallError{PromptID: promptID, Sample: s, Provider: r.Provider.ModelID,
					Message: "provider: 503 service unavailable", Attempts: 4})
				continue
			}
			v := 0
			if rng.IntN(10) == 0 {
				v = rng.IntN(nVariants)
			}
			content := answers[v]
			completion := len(strings.Fields(content))*4/3 + v
			resp := promptcanary.Response{
				PromptID: promptID, ProviderModelID: r.Provider.ModelID, Content: content, FinishReason: "stop",
				LatencyMS: float64(200+rng.IntN(2000)) + float64(rng.IntN(10))/10, PromptTokens: 40 + p%17,
				CompletionTokens: completion, TotalTokens: 40 + p%17 + completion, Timestamp: clock, Sample: s,
				ServedModel: "gpt-4o-mini-2024-07-18", SystemFingerprint: "fp_" + []string{"0ba0d124f1", "44132a4de3"}[rng.IntN(2)],
				ResponseID: fmt.Sprintf("chatcmpl-%016x", rng.Uint64()), Attempts: 1 + rng.IntN(50)/49,
			}
			if tool {
				resp.FinishReason = "tool_calls"
				resp.ToolCalls = []promptcanary.ToolCall{{ID: fmt.Sprintf("call_%d", rng.IntN(3)), Name: "get_order",
					Arguments: json.RawMessage(fmt.Sprintf(`{"order_id":"A-%d"}`, 1000+p+v))}}
			}
			r.LLMResponses = append(r.LLMResponses, resp)
			for k := range probes {
				r.ProbeResults = append(r.ProbeResults, largeResult(k, promptID, s, v, content))
			}
		}
	}
	r.FinishedAt = clock.Add(time.Second)
	cost := 1.2345
	r.CostUSD = &cost
	return r
}

// largeAnswers draws a prompt's dominant answer and its variants.
func largeAnswers(rng *rand.Rand) []string {
	answers := make([]string, 1+rng.IntN(4))
	for v := range answers {
		n := 40 + rng.IntN(120)
		var sb strings.Builder
		if v > 0 && rng.IntN(2) == 0 {
			sb.WriteString("Sure! ")
		}
		for i := range n {
			if i > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(largeWords[rng.IntN(len(largeWords))])
		}
		answers[v] = sb.String()
	}
	return answers
}

// largeResult is the k-th probe's result on sample s of a prompt, whose
// answer is content, variant v of the prompt's answers.
func largeResult(k int, promptID string, s, v int, content string) promptcanary.ProbeResult {
	pn := largeProbes[k%len(largeProbes)]
	pid := pn.id
	if k >= len(largeProbes) {
		pid = fmt.Sprintf("%s_%d", pn.id, k/len(largeProbes))
	}
	pr := promptcanary.ProbeResult{ProbeID: pid, ProbeType: pn.id, ProbeName: pn.name,
		Category: promptcanary.Categories[k%4], PromptID: promptID, Sample: s}
	switch k % 4 {
	case 0: // a verdict on the variant, with the answer's opening
		preview := content
		if len(preview) > 80 {
			preview = preview[:80]
		}
		pr.Passed = v == 0
		pr.Score = map[bool]float64{true: 1, false: 0}[pr.Passed]
		pr.Details = map[bool]string{true: "Response starts directly, without preamble.", false: "Preamble found: \"Sure!\""}[pr.Passed]
		pr.Metadata = map[string]any{"opening_preview": preview, "preamble_found": !pr.Passed}
	case 1: // a measure quoted in the details
		n := len(content)
		pr.Passed = n < 900
		pr.Score = min(1, 900/float64(n+1))
		pr.Details = fmt.Sprintf("Response length %d chars (bounds 10–900).", n)
		pr.Metadata = map[string]any{"length": float64(n), "min": 10.0, "max": 900.0}
	case 2: // a rate
		hedges := v % 3
		pr.Score = 1 - float64(hedges)/3
		pr.Passed = hedges < 2
		pr.Details = fmt.Sprintf("%d hedging word(s) per 100 words.", hedges)
		pr.Metadata = map[string]any{"hedges": float64(hedges), "words": float64(len(strings.Fields(content)))}
	default: // a constant verdict
		pr.Passed, pr.Score, pr.Details = true, 1, "Valid JSON (dict)."
		pr.Metadata = map[string]any{}
	}
	return pr
}
