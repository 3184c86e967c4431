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
