package file

import (
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
)

// TestPortable checks the form portable gives a baseline, and that it
// copies the probe results and responses only when one of them changes,
// never changing the baseline it was given.
func TestPortable(t *testing.T) {
	nano := time.Date(2026, 12, 1, 10, 0, 0, 123456789, time.UTC)
	micro := nano.Truncate(time.Microsecond)
	meta := map[string]any{"k": 1.0}
	cases := []struct {
		name               string
		results            []promptcanary.ProbeResult
		responses          []promptcanary.Response
		copyRes, copyResps bool
	}{
		{name: "nothing to change", results: []promptcanary.ProbeResult{{Metadata: meta}, {Metadata: meta}},
			responses: []promptcanary.Response{{Timestamp: micro}, {}}},
		{name: "a result without metadata", results: []promptcanary.ProbeResult{{Metadata: meta}, {}},
			responses: []promptcanary.Response{{Timestamp: micro}}, copyRes: true},
		{name: "a nanosecond timestamp", results: []promptcanary.ProbeResult{{Metadata: meta}},
			responses: []promptcanary.Response{{Timestamp: micro}, {Timestamp: nano}}, copyResps: true},
		{name: "none", results: nil, responses: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := &promptcanary.Baseline{CreatedAt: nano, RunResult: promptcanary.Run{StartedAt: nano, ProbeResults: c.results, LLMResponses: c.responses}}
			p := portable(b)
			r := &p.RunResult
			if r.ProbeResults == nil || r.LLMResponses == nil || p.Provider.ExtraParams == nil || r.Provider.ExtraParams == nil {
				t.Errorf("want empty, not nil, lists and maps: results %v, responses %v", r.ProbeResults == nil, r.LLMResponses == nil)
			}
			if !p.CreatedAt.Equal(micro) || !r.StartedAt.Equal(micro) {
				t.Errorf("times %v and %v, want %v", p.CreatedAt, r.StartedAt, micro)
			}
			for i, pr := range r.ProbeResults {
				if pr.Metadata == nil {
					t.Errorf("result %d has nil metadata", i)
				}
			}
			for i, resp := range r.LLMResponses {
				if !resp.Timestamp.Equal(resp.Timestamp.Truncate(time.Microsecond)) {
					t.Errorf("response %d: timestamp %v", i, resp.Timestamp)
				}
			}
			if len(c.results) > 0 && (&r.ProbeResults[0] != &c.results[0]) != c.copyRes {
				t.Errorf("results copied: %v, want %v", &r.ProbeResults[0] != &c.results[0], c.copyRes)
			}
			if len(c.responses) > 0 && (&r.LLMResponses[0] != &c.responses[0]) != c.copyResps {
				t.Errorf("responses copied: %v, want %v", &r.LLMResponses[0] != &c.responses[0], c.copyResps)
			}
			if b.CreatedAt != nano || b.RunResult.StartedAt != nano {
				t.Error("the given baseline's times changed")
			}
			if c.copyRes && c.results[1].Metadata != nil {
				t.Error("the given baseline's results changed")
			}
			if c.copyResps && c.responses[1].Timestamp != nano {
				t.Error("the given baseline's responses changed")
			}
		})
	}
}
