package provider

import "testing"

func TestLookupPrice(t *testing.T) {
	tests := []struct {
		spec      string
		overrides map[string]Price
		want      Price
		ok        bool
	}{
		{"openai/gpt-4o", nil, Price{2.50, 10.00}, true},
		{"openai/gpt-4o-mini-2024-07-18", nil, Price{0.15, 0.60}, true},
		{"azure/gpt-4o-2024-08-06", nil, Price{2.50, 10.00}, true},
		{"openrouter/anthropic/claude-sonnet-4", nil, Price{3, 15}, true},
		{"sim/stable", nil, Price{}, true},
		{"ollama/llama3", nil, Price{}, true},
		{"openai/my-finetune", nil, Price{}, false},
		{"openai/my-finetune", map[string]Price{"my-finetune": {1, 2}}, Price{1, 2}, true},
		{"openai/gpt-4o", map[string]Price{"openai/gpt-4o": {9, 9}}, Price{9, 9}, true},
		{"nonsense", nil, Price{}, false},
		{"openai/gpt-5-mini-2025-08-07", nil, Price{0.25, 2}, true},
		{"openai/gpt-5.4", nil, Price{2.50, 15}, true},
		{"openai/gpt-5.5", nil, Price{}, false},
		{"anthropic/claude-opus-4-20250514", nil, Price{15, 75}, true},
		{"anthropic/claude-opus-4-5", nil, Price{5, 25}, true},
		{"anthropic/claude-opus-4-8", nil, Price{}, false},
		{"bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0", nil, Price{3, 15}, true},
		{"vertex/claude-opus-4-1@20250805", nil, Price{15, 75}, true},
		{"openrouter/anthropic/claude-haiku-4.5", nil, Price{1, 5}, true},
		{"gemini/gemini-2.5-flash-lite", nil, Price{0.10, 0.40}, true},
		{"gemini/gemini-2.5-pro-preview-06-05", nil, Price{1.25, 10}, true},
		{"gemini/gemini-2.5-flash-image", nil, Price{}, false},
		{"openrouter/openai/gpt-5:free", nil, Price{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			got, ok := LookupPrice(tc.spec, tc.overrides)
			if got != tc.want || ok != tc.ok {
				t.Errorf("got %v %v, want %v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	if got := (Price{2.5, 10}).Cost(1000, 500); got != 0.0075 {
		t.Errorf("got cost %v, want 0.0075", got)
	}
}

func TestCostCannotGoNegative(t *testing.T) {
	p := Price{Input: 2.5, Output: 10}
	if got := p.Cost(1_000_000, 1_000_000); got != 12.5 {
		t.Errorf("got %v, want 12.5", got)
	}
	if got := p.Cost(-5, -1<<62); got != 0 {
		t.Errorf("got %v for negative counts, want 0", got)
	}
	if got := p.Cost(1<<62, 1<<62); got <= 0 {
		t.Errorf("got %v for huge counts, want a large positive cost", got)
	}
}

func TestListPricesSayWhereAndWhen(t *testing.T) {
	seen := map[string]bool{}
	for _, lp := range ListPrices() {
		if lp.Source == "" || lp.Checked == "" || lp.Provider == "" || lp.Input <= 0 || lp.Output <= 0 {
			t.Errorf("%+v: incomplete", lp)
		}
		if seen[lp.Model] {
			t.Errorf("%s listed twice", lp.Model)
		}
		seen[lp.Model] = true
	}
	for _, m := range []string{"gpt-5", "gpt-5-pro", "o3-pro", "o1-pro", "claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5", "gemini-2.5-flash-lite"} {
		if !seen[m] {
			t.Errorf("%s has no price", m)
		}
	}
}
