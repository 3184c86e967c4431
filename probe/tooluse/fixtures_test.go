package tooluse

import (
	"slices"
	"testing"
)

// TestFixtures runs every probe over the response formats in testdata.
func TestFixtures(t *testing.T) {
	tests := []struct {
		file           string
		detected       bool
		presenceSource string
		names          []string
		nameSource     string
		keys           []string
		keySource      string
	}{
		{"openai_tool_calls.json", true, "json", []string{"search_web", "get_weather"}, "json", []string{"city", "limit", "query"}, "json"},
		{"simple_call.json", true, "json", []string{"search_web"}, "text", []string{"limit", "query"}, "json"},
		{"anthropic_call.json", true, "json", []string{"search_web"}, "json", []string{"limit", "query", "safe"}, "json"},
		{"call_list.json", true, "json", []string{"search_web", "get_weather"}, "json", []string{"city", "query", "units"}, "json"},
		{"anthropic_xml.txt", true, "text", []string{"search_web"}, "text", []string{}, "none"},
		{"prose.txt", false, "none", []string{}, "none", []string{}, "none"},
	}
	presence := build(t, "tool_call_presence", nil)
	name := build(t, "tool_call_name", map[string]any{"expected_name": "search_web"})
	args := build(t, "tool_call_args", map[string]any{"required_args": []any{"query"}})
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			content := fixture(t, tc.file)

			res := run(presence, content)
			if got := res.Metadata["tool_call_detected"]; got != tc.detected {
				t.Errorf("tool_call_detected: got %v, want %v", got, tc.detected)
			}
			if got := res.Metadata["source"]; got != tc.presenceSource {
				t.Errorf("presence source: got %v, want %v", got, tc.presenceSource)
			}

			res = run(name, content)
			if got := res.Metadata["extracted_names"].([]string); !slices.Equal(got, tc.names) {
				t.Errorf("extracted_names: got %q, want %q", got, tc.names)
			}
			if got := res.Metadata["source"]; got != tc.nameSource {
				t.Errorf("name source: got %v, want %v", got, tc.nameSource)
			}
			if wantPass := len(tc.names) > 0; res.Passed != wantPass {
				t.Errorf("name passed: got %v, want %v", res.Passed, wantPass)
			}

			res = run(args, content)
			if got := res.Metadata["extracted_keys"].([]string); !slices.Equal(got, tc.keys) {
				t.Errorf("extracted_keys: got %q, want %q", got, tc.keys)
			}
			if got := res.Metadata["source"]; got != tc.keySource {
				t.Errorf("args source: got %v, want %v", got, tc.keySource)
			}
			if wantPass := slices.Contains(tc.keys, "query"); res.Passed != wantPass {
				t.Errorf("args passed: got %v, want %v", res.Passed, wantPass)
			}
		})
	}
}
