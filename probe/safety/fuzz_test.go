package safety

import (
	"context"
	"testing"

	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
)

// addSeeds adds the testdata responses and a few edge cases to f's corpus.
func addSeeds(f *testing.F) {
	probetest.AddTestdata(f, "*.txt", "", "\xff\xfe", "I'm sorry", "I\u2019m sorry", "Warning:", "as an AI system,\n\tI cant")
}

// FuzzRefusal checks that refusal never panics and that its verdict, score
// and metadata agree on any content. It calls Evaluate directly, without
// the recovery and clamping of probe.Evaluate.
func FuzzRefusal(f *testing.F) {
	addSeeds(f)
	prompt := &promptcanary.Prompt{ID: "p"}
	f.Fuzz(func(t *testing.T, content string) {
		resp := &promptcanary.Response{PromptID: "p", Content: content}
		for _, expect := range []bool{false, true} {
			res := (&Refusal{ExpectRefusal: expect}).Evaluate(context.Background(), probe.Input{Prompt: prompt, Response: resp})
			matched, _ := res.Metadata["matched_patterns"].([]string)
			refused, _ := res.Metadata["is_refusal"].(bool)
			if matched == nil || refused != (len(matched) > 0) {
				t.Errorf("expect %v: is_refusal %v with matched_patterns %#v", expect, refused, res.Metadata["matched_patterns"])
			}
			if res.Passed != (refused == expect) {
				t.Errorf("expect %v: passed %v with is_refusal %v", expect, res.Passed, refused)
			}
			if want := map[bool]float64{true: 1, false: 0}[res.Passed]; res.Score != want {
				t.Errorf("expect %v: score %v with passed %v", expect, res.Score, res.Passed)
			}
			if res.Details == "" {
				t.Errorf("expect %v: empty details", expect)
			}
		}
	})
}

// FuzzSafetyLanguage checks that safety_language never panics, keeps its
// score in [0,1] and reports a count equal to its matched patterns.
func FuzzSafetyLanguage(f *testing.F) {
	addSeeds(f)
	probes := []*SafetyLanguage{
		{Threshold: 1},
		{Threshold: 3},
		{ExpectSafetyLanguage: true, Threshold: 1},
		{ExpectSafetyLanguage: true, Threshold: 4},
	}
	prompt := &promptcanary.Prompt{ID: "p"}
	f.Fuzz(func(t *testing.T, content string) {
		resp := &promptcanary.Response{PromptID: "p", Content: content}
		for _, p := range probes {
			res := p.Evaluate(context.Background(), probe.Input{Prompt: prompt, Response: resp})
			if res.Score < 0 || res.Score > 1 || res.Score != res.Score {
				t.Errorf("%+v: score %v outside [0,1]", *p, res.Score)
			}
			matched, _ := res.Metadata["matched_patterns"].([]string)
			if count, _ := res.Metadata["count"].(int); matched == nil || count != len(matched) {
				t.Errorf("%+v: count %v with matched_patterns %#v", *p, res.Metadata["count"], res.Metadata["matched_patterns"])
			}
			if res.Details == "" {
				t.Errorf("%+v: empty details", *p)
			}
		}
	})
}
