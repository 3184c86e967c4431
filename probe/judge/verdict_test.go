package judge

import (
	"strings"
	"testing"
)

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		name   string
		answer string
		want   Verdict
		err    string // "" for a valid verdict
	}{
		{"plain", `{"score": 4, "reason": "Names Paris."}`, Verdict{4, "Names Paris."}, ""},
		{"keys in any order, white space around", " \n{\"reason\":\"ok\",\"score\":1}\n\n", Verdict{1, "ok"}, ""},
		{"a whole number written with a fraction", `{"score": 5.0, "reason": "ok"}`, Verdict{5, "ok"}, ""},
		{"exponent", `{"score": 3e0, "reason": "ok"}`, Verdict{3, "ok"}, ""},
		{"json fence", "```json\n{\"score\": 2, \"reason\": \"vague\"}\n```", Verdict{2, "vague"}, ""},
		{"bare fence", "```\n{\"score\": 2, \"reason\": \"vague\"}\n```\n", Verdict{2, "vague"}, ""},
		{"reason trimmed", `{"score": 3, "reason": "  spaced  "}`, Verdict{3, "spaced"}, ""},

		{"empty", "  ", Verdict{}, "the answer is empty"},
		{"prose", "I would give this a 4.", Verdict{}, "the answer does not start with a JSON object"},
		{"prose before", `Sure! {"score": 4, "reason": "ok"}`, Verdict{}, "the answer does not start with a JSON object"},
		{"prose after", `{"score": 4, "reason": "ok"} Hope this helps!`, Verdict{}, "there is text after the JSON object"},
		{"two objects", `{"score": 4, "reason": "ok"}{"score": 1, "reason": "no"}`, Verdict{}, "there is text after the JSON object"},
		{"SCORE line", "The answer is fine.\nSCORE: 4", Verdict{}, "the answer does not start with a JSON object"},
		{"a list", `[{"score": 4, "reason": "ok"}]`, Verdict{}, "the answer does not start with a JSON object"},
		{"score as a string", `{"score": "4", "reason": "ok"}`, Verdict{}, `"score" must be a number`},
		{"fractional score", `{"score": 4.5, "reason": "ok"}`, Verdict{}, `"score" 4.5 is not a whole number`},
		{"score above the scale", `{"score": 6, "reason": "ok"}`, Verdict{}, `"score" 6 is outside the scale 1 to 5`},
		{"score below the scale", `{"score": 0, "reason": "ok"}`, Verdict{}, `"score" 0 is outside the scale 1 to 5`},
		{"huge score", `{"score": 1e300, "reason": "ok"}`, Verdict{}, `"score" 1e300 is out of range`},
		{"no score", `{"reason": "ok"}`, Verdict{}, `the object has no "score"`},
		{"no reason", `{"score": 3}`, Verdict{}, `the object has no "reason"`},
		{"blank reason", `{"score": 3, "reason": " "}`, Verdict{}, `"reason" is empty`},
		{"reason not a string", `{"score": 3, "reason": ["a"]}`, Verdict{}, `"reason" must be a string`},
		{"another key", `{"score": 3, "reason": "ok", "confidence": 0.9}`, Verdict{}, `unexpected key "confidence": want only "score" and "reason"`},
		{"key twice", `{"score": 5, "reason": "ok", "score": 1}`, Verdict{}, `key "score" appears twice`},
		{"truncated", `{"score": 4, "reason": "the answer is`, Verdict{}, "the answer is not valid JSON"},
		{"fence with prose", "Here:\n```json\n{\"score\": 2, \"reason\": \"x\"}\n```", Verdict{}, "the answer does not start with a JSON object"},
		{"fence of another language", "```python\n{\"score\": 2, \"reason\": \"x\"}\n```", Verdict{}, "the answer does not start with a JSON object"},
		{"unclosed fence", "```json\n{\"score\": 2, \"reason\": \"x\"}", Verdict{}, "the answer does not start with a JSON object"},
		{"text after the fence", "```json\n{\"score\": 2, \"reason\": \"x\"}\n```\nDone.", Verdict{}, "the answer does not start with a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseVerdict(tc.answer, 1, 5)
			if tc.err == "" {
				if err != nil || got != tc.want {
					t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("got %+v, %v; want an error containing %q", got, err, tc.err)
			}
		})
	}
}

// FuzzParseVerdict: any answer, however odd, is either an error or a
// verdict within the scale with a reason; never a panic.
func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{`{"score": 4, "reason": "ok"}`, "```json\n{\"score\":1,\"reason\":\"x\"}\n```", `{"score":`, `{"score": 1e400, "reason": "x"}`, "```\n```", `{"reason":"a","score":-0}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		v, err := ParseVerdict(answer, 0, 10)
		if err != nil {
			return
		}
		if v.Score < 0 || v.Score > 10 || strings.TrimSpace(v.Reason) == "" {
			t.Fatalf("accepted %q as %+v", answer, v)
		}
	})
}
