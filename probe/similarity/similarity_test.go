package similarity

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// answers makes reference answers with the given contents, numbered from
// sample 0.
func answers(contents ...string) []promptcanary.Response {
	out := make([]promptcanary.Response, len(contents))
	for i, c := range contents {
		out[i] = promptcanary.Response{PromptID: "p1", Sample: i, Content: c}
	}
	return out
}

func evaluateWith(t *testing.T, raw map[string]any, content string, refs []promptcanary.Response) probe.Result {
	t.Helper()
	p := probetest.New(t, id, raw)
	return probetest.Eval(p, &promptcanary.Prompt{ID: "p1"}, &promptcanary.Response{PromptID: "p1", Content: content}, refs...)
}

func TestEvaluate(t *testing.T) {
	refs := answers("the cat sat on the mat", "a dog ran in the park", "the cat sat")
	tests := []struct {
		name       string
		raw        map[string]any
		content    string
		refs       []promptcanary.Response
		passed     bool
		score      float64
		bestSample int
		details    string
	}{
		{"identical to one reference", map[string]any{"min": 0.9}, "a dog ran in the park", refs, true, 1, 1,
			"chrF similarity 1.000 (closest of 3 reference answers) is at least the minimum 0.900."},
		{"token f1 max", map[string]any{"metric": "token_f1", "min": 0.5}, "the cat ran", refs, true, 2.0 / 3, 2,
			"token F1 similarity 0.667 (closest of 3 reference answers) is at least the minimum 0.500."},
		// the cat ran vs each: 2·2/9, 2·2/9 ("the" once, "ran"), 2·2/6.
		{"token f1 mean", map[string]any{"metric": "token_f1", "min": 0.6, "against": "mean"}, "the cat ran", refs, false,
			(4.0/9 + 4.0/9 + 4.0/6) / 3, 2,
			"token F1 similarity 0.519 (mean over 3 reference answers) is below the minimum 0.600."},
		{"rouge_l one reference", map[string]any{"metric": "rouge_l", "min": 0.8}, "a b c d", answers("a c b d"), false, 0.75, 0,
			"ROUGE-L similarity 0.750 (against the one reference answer) is below the minimum 0.800."},
		{"disjoint", map[string]any{"metric": "token_f1", "min": 0.1}, "xyz", refs, false, 0, 0,
			"token F1 similarity 0.000 (closest of 3 reference answers) is below the minimum 0.100."},
		{"empty answer", map[string]any{"min": 0.1}, "", refs, false, 0, 0,
			"chrF similarity 0.000 (closest of 3 reference answers) is below the minimum 0.100."},
		{"empty answer and reference", map[string]any{"min": 1}, "", answers("", "x"), true, 1, 0,
			"chrF similarity 1.000 (closest of 2 reference answers) is at least the minimum 1.000."},
		{"ties keep the first", map[string]any{"min": 1}, "same", answers("other", "same", "same"), true, 1, 1,
			"chrF similarity 1.000 (closest of 3 reference answers) is at least the minimum 1.000."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := evaluateWith(t, tc.raw, tc.content, tc.refs)
			probetest.CheckVerdict(t, res, tc.passed, tc.score)
			probetest.CheckKeys(t, res.Metadata, "metric", "min", "against", "references", "skipped", "score", "best_sample")
			if res.Details != tc.details {
				t.Errorf("details: got %q, want %q", res.Details, tc.details)
			}
			if got := res.Metadata["best_sample"]; got != tc.refs[tc.bestSample].Sample {
				t.Errorf("best_sample: got %v, want %d", got, tc.refs[tc.bestSample].Sample)
			}
			if got := res.Metadata["references"]; got != len(tc.refs) {
				t.Errorf("references: got %v, want %d", got, len(tc.refs))
			}
			if got := res.Metadata["score"]; got != res.Score {
				t.Errorf("metadata score: got %v, want %v", got, res.Score)
			}
			if res.Metadata["skipped"] != false {
				t.Errorf("skipped: got %v, want false", res.Metadata["skipped"])
			}
		})
	}
}

// TestBestSampleIsTheReferenceSample checks that best_sample names the
// reference's sample index, not its position in refs.
func TestBestSampleIsTheReferenceSample(t *testing.T) {
	refs := answers("far away", "the answer is 4")
	refs[0].Sample, refs[1].Sample = 3, 7
	res := evaluateWith(t, map[string]any{"min": 0.5}, "the answer is 4", refs)
	if got := res.Metadata["best_sample"]; got != 7 {
		t.Errorf("best_sample: got %v, want 7", got)
	}
}

// TestSkipped checks that an answer with nothing to compare with passes
// as skipped: with no references, nil or empty.
func TestSkipped(t *testing.T) {
	const want = "No reference answer to compare with (no baseline answer to this prompt, nor another sample of it in the run), so the check was skipped."
	p := probetest.New(t, id, map[string]any{"min": 0.9, "metric": "rouge_l"})
	for name, res := range map[string]probe.Result{
		"Run":             probetest.Run(t, id, map[string]any{"min": 0.9, "metric": "rouge_l"}, "anything"),
		"references nil":  probetest.EvalIn(context.Background(), p, probe.Input{Prompt: &promptcanary.Prompt{}, Response: &promptcanary.Response{Content: "x"}}),
		"references none": probetest.Eval(p, &promptcanary.Prompt{}, &promptcanary.Response{Content: "x"}, []promptcanary.Response{}...),
	} {
		t.Run(name, func(t *testing.T) {
			probetest.CheckVerdict(t, res, true, 1)
			probetest.CheckKeys(t, res.Metadata, "metric", "min", "against", "references", "skipped")
			if res.Metadata["skipped"] != true || res.Metadata["references"] != 0 || res.Metadata["metric"] != "rouge_l" {
				t.Errorf("metadata: got %v, want skipped with 0 references and metric rouge_l", res.Metadata)
			}
			if res.Details != want {
				t.Errorf("details: got %q, want %q", res.Details, want)
			}
		})
	}
}

// TestDefaults checks the defaults a YAML probe gets: chrF and max.
func TestDefaults(t *testing.T) {
	p := probetest.New(t, id, map[string]any{"min": 1})
	s, ok := p.(*Similarity)
	if !ok {
		t.Fatalf("got %T, want *Similarity", p)
	}
	if s.Metric != ChrF || s.Against != Max || s.Min != 1 {
		t.Errorf("got %+v, want chrf, max and min 1", *s)
	}
}

// TestGoValues checks a probe built in Go: zero values mean the defaults,
// and an unknown metric is an error result, not a pass.
func TestGoValues(t *testing.T) {
	refs := answers("abc")
	res := (&Similarity{Min: 0.5}).Evaluate(context.Background(), probe.Input{Response: &promptcanary.Response{Content: "abc"}, References: refs})
	if !res.Passed || res.Metadata["metric"] != "chrf" || res.Metadata["against"] != "max" {
		t.Errorf("zero Similarity: got %+v, want a chrf max pass", res)
	}
	res = (&Similarity{Metric: "bleu", Min: 0.5}).Evaluate(context.Background(), probe.Input{Response: &promptcanary.Response{Content: "abc"}, References: refs})
	if res.Passed || res.Score != 0 {
		t.Errorf("unknown metric: got passed %v score %v, want a failure with score 0", res.Passed, res.Score)
	}
}

// TestDetailsShowWhyAtTheLimit checks that a score just below the minimum
// is not shown equal to it.
func TestDetailsShowWhyAtTheLimit(t *testing.T) {
	s := &Similarity{Min: 0.6}
	got := s.details(ChrF, Max, 0.59999, 2)
	want := "chrF similarity 0.59999 (closest of 2 reference answers) is below the minimum 0.6."
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	for v, want := range map[float64]string{0.9999: "0.999", 1e-5: "<0.001", 0: "0.000", 1: "1.000", 0.5: "0.500"} {
		if got := fmtScore(v); got != want {
			t.Errorf("fmtScore(%v): got %q, want %q", v, got, want)
		}
	}
}

// TestConcurrent evaluates one instance of each metric from many
// goroutines (run with -race) and checks every result against a serial
// one.
func TestConcurrent(t *testing.T) {
	refs := answers("Paris is the capital of France.", "The capital of France is Paris.", "París, la capital de Francia.")
	resps := probetest.Responses("Paris.", "It is Paris, the capital of France.", "", "Lyon", "巴黎是法国的首都")
	var probes []probe.Probe
	for _, m := range metrics {
		probes = append(probes, probetest.New(t, id, map[string]any{"metric": m, "min": 0.5}))
	}
	probetest.CheckConcurrent(t, probes, nil, resps, refs...)
}

func ExampleScore() {
	fmt.Printf("%.3f\n", Score(TokenF1, "The cat sat.", "the cat ran"))
	fmt.Printf("%.3f\n", Score(RougeL, "a b c d", "a c b d"))
	fmt.Printf("%.3f\n", Score(ChrF, "ab", "ac"))
	// Output:
	// 0.667
	// 0.750
	// 0.250
}

// TestLongAnswersAreClipped: a runaway answer is compared on its first
// MaxCompared bytes, and the metadata says so.
func TestLongAnswersAreClipped(t *testing.T) {
	s := &Similarity{Min: 0.5}
	long := strings.Repeat("lorem ipsum dolor sit amet ", 20_000) // 540 KB
	res := s.Evaluate(context.Background(), probe.Input{Response: &promptcanary.Response{Content: long}, References: []promptcanary.Response{{Content: long}, {Content: "short"}}})
	if res.Metadata["truncated"] != true || !res.Passed {
		t.Errorf("got %+v, want a pass on the clipped answers marked truncated", res.Metadata)
	}
	if got := clip(strings.Repeat("é", MaxCompared)); len(got) > MaxCompared || !utf8.ValidString(got) {
		t.Errorf("clip cut inside a character or kept %d bytes", len(got))
	}
}
