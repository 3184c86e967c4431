package suite

import (
	"strings"
	"testing"
)

// TestHugeValuesAreCut checks that a value of megabytes is quoted back cut
// at 200 characters with its length, in the message and in the hint,
// and that the file's other problems are still found.
func TestHugeValuesAreCut(t *testing.T) {
	const n = 10 << 20
	big, mb := strings.Repeat("a", n), strings.Repeat("a", 1<<20)
	cut := strings.Repeat("a", 200)
	tests := []struct {
		name string
		src  string
		want []problem
	}{
		{"prompt id", "probes: [test_plain]\nprompts:\n  - id: " + big + "/x\n    text: hi\n", []problem{
			{`3: prompts[0].id: invalid prompt id "` + cut + `…" (10,485,762 characters)`, "use only letters, digits, '_', '.' and '-'"},
		}},
		// A plain key is at most 1024 characters: a longer one is written
		// after "? ".
		{"unknown key", "? " + mb + "\n: 1\nprobes: [test_plain]\nprompts: [hi]\n", []problem{
			{"1: " + cut + "… (1,048,576 characters): unknown field", "known fields: name, description, tags, default_system_prompt, provider, temperature, max_tokens, seed, samples, max_answer_bytes, base_url, providers, judges, prices, store, probes, prompts"},
		}},
		{"provider", "provider: " + mb + "\nprobes: [test_plain]\nprompts: [hi]\n", []problem{
			{`1: provider: must be NAME/MODEL, got "` + cut + `…" (1,048,576 characters)`, "for example sim/stable or openai/gpt-4o"},
		}},
		{"list hint", "tags: " + mb + "\nprobes: [test_plain]\nprompts: [hi]\n", []problem{
			{"1: tags: must be a list of strings, got a string", "write a list: [" + strings.Repeat("a", 199) + "… (1,048,578 characters)"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ve := parseInvalid(t, tc.src)
			if len(ve.Problems) != len(tc.want) {
				t.Fatalf("got %d problems, want %d: %.1000s", len(ve.Problems), len(tc.want), ve)
			}
			for i, w := range tc.want {
				p := ve.Problems[i]
				if got := p.Error(); got != "canary.yaml:"+w.msg {
					t.Errorf("problem %d: got %.600q, want %.600q", i, got, "canary.yaml:"+w.msg)
				}
				if p.Hint != w.hint {
					t.Errorf("problem %d hint: got %.600q, want %.600q", i, p.Hint, w.hint)
				}
			}
		})
	}
}
