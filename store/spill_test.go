package store

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
)

// spillRun is a run with a long answer of awkward characters, whole or
// spilled.
func spillRun(t *testing.T, samples int, spill bool) *promptcanary.Run {
	t.Helper()
	long := strings.Repeat("\"q\" <&> \\ é 日本 🦜 \u2028 \x00 tab\t", promptcanary.AnswerHeadBytes/20)
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	r := &promptcanary.Run{RunID: "spill-run", SuiteName: "s", Provider: promptcanary.ProviderConfig{ModelID: "m"}, StartedAt: at, Samples: samples}
	for i := range samples {
		resp := promptcanary.Response{PromptID: "p", Sample: i, Content: long + strings.Repeat("x", i), Timestamp: at}
		if spill {
			if err := resp.SpillContent(); err != nil || resp.Spill == nil {
				t.Fatalf("spill: %v", err)
			}
		}
		r.LLMResponses = append(r.LLMResponses, resp, promptcanary.Response{PromptID: "q", Sample: i, Content: "short", Timestamp: at})
	}
	return r
}

// TestSpilledAnswersEncodeAsWhole: a run whose long answers live in spill
// files encodes byte for byte as the run holding them whole, in every
// layout and form, and reads back with them spilled or whole.
func TestSpilledAnswersEncodeAsWhole(t *testing.T) {
	for _, samples := range []int{1, 3} {
		whole, spilled := spillRun(t, samples, false), spillRun(t, samples, true)
		encoders := map[string]func(r *promptcanary.Run) ([]byte, error){
			"MarshalRun":       func(r *promptcanary.Run) ([]byte, error) { return MarshalRun(r, LayoutAuto) },
			"MarshalRunIndent": func(r *promptcanary.Run) ([]byte, error) { return MarshalRunIndent(r, LayoutAuto) },
			"Marshal":          func(r *promptcanary.Run) ([]byte, error) { return Marshal(r) },
			"MarshalBaseline": func(r *promptcanary.Run) ([]byte, error) {
				b := NewBaseline(r, "n", r.StartedAt)
				b.SnapshotID = "snap"
				return MarshalBaseline(b, LayoutAuto)
			},
			"EncodeIndent": func(r *promptcanary.Run) ([]byte, error) {
				var b bytes.Buffer
				err := EncodeIndent(&b, r)
				return b.Bytes(), err
			},
		}
		for name, enc := range encoders {
			want, err := enc(whole)
			if err != nil {
				t.Fatal(err)
			}
			got, err := enc(spilled)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, %d samples: spilled answers encode as %d bytes, whole as %d", name, samples, len(got), len(want))
			}
		}
		data, err := MarshalRun(whole, LayoutAuto)
		if err != nil {
			t.Fatal(err)
		}
		reduced, release, err := ReadDocument(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if len(reduced) >= len(data)/2 {
			t.Errorf("%d samples: read %d bytes of %d, want the long answers left out", samples, len(reduced), len(data))
		}
		r, err := UnmarshalRun(reduced)
		release()
		if err != nil {
			t.Fatal(err)
		}
		for i, resp := range r.LLMResponses {
			text, err := resp.FullContent()
			if err != nil || text != whole.LLMResponses[i].Content || (resp.Spill != nil) != (whole.LLMResponses[i].PromptID == "p") {
				t.Errorf("%d samples: answer %d read back as %d bytes (spilled %v, %v), want %d", samples, i, len(text), resp.Spill != nil, err, len(whole.LLMResponses[i].Content))
			}
		}
		if err := WholeAnswers(context.Background(), r); err != nil || r.LLMResponses[0].Spill != nil || r.LLMResponses[0].Content != whole.LLMResponses[0].Content {
			t.Errorf("%d samples: WholeAnswers left answer 0 spilled (%v)", samples, err)
		}
	}
}
