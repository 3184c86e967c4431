package toolcall

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

func TestArguments(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": 1}`, `{"a":1}`},
		{``, `{}`},
		{`null`, `{}`},
		{`"{\"city\": \"Paris\"}"`, `{"city":"Paris"}`},
		{`"not json"`, `"not json"`},
		{`"  "`, `{}`},
		{`[1, 2]`, `[1,2]`},
		{`  {"b" : [true]}  `, `{"b":[true]}`},
		{`{"a":`, `"{\"a\":"`},
		{`"{\"a\":"`, `"{\"a\":"`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got := Arguments(json.RawMessage(tc.in))
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("got %s, want valid JSON", got)
			}
		})
	}
}

func TestAsWritten(t *testing.T) {
	tests := []struct {
		name, in string
		want     string // "" means nil
	}{
		{"object kept as written", `{"a": 1}`, `{"a": 1}`},
		{"absent is nil", ``, ``},
		{"null is nil", ` null `, ``},
		{"string holding JSON decoded", `"{\"city\": \"Paris\"}"`, `{"city": "Paris"}`},
		{"string holding JSON trimmed", `" [1] "`, `[1]`},
		{"string not JSON kept", `"not json"`, `"not json"`},
		{"blank string kept", `"  "`, `"  "`},
		{"number kept", `42`, `42`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AsWritten(json.RawMessage(tc.in))
			if tc.want == "" {
				if got != nil {
					t.Errorf("got %s, want nil", got)
				}
				return
			}
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestAsWrittenDoesNotAlias(t *testing.T) {
	raw := json.RawMessage(`{"a":1}`)
	got := AsWritten(raw)
	raw[2] = 'b'
	if string(got) != `{"a":1}` {
		t.Errorf("got %s after changing the input, want a copy", got)
	}
}

// TestSafeID keeps IDs the APIs take and maps others to one stable safe
// ID each.
func TestSafeID(t *testing.T) {
	long := strings.Repeat("a", 65)
	for _, id := range []string{"call_1", "toolu_01A-b", strings.Repeat("a", 64)} {
		if got := SafeID(id); got != id {
			t.Errorf("SafeID(%q) = %q, want it unchanged", id, got)
		}
	}
	seen := map[string]string{}
	for _, id := range []string{"weather.1", "call 2", "", "ü", long} {
		got := SafeID(id)
		if !safeID.MatchString(got) || got != SafeID(id) {
			t.Errorf("SafeID(%q) = %q: not safe or not stable", id, got)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("SafeID(%q) = SafeID(%q) = %q", id, other, got)
		}
		seen[got] = id
	}
}

// TestBound keeps the first Max calls of an answer and marks one that
// held more; an answer within the bound is left alone.
func TestBound(t *testing.T) {
	resp := &promptcanary.Response{ToolCalls: make([]promptcanary.ToolCall, 20000)}
	resp.ToolCalls[Max-1].Name = "last kept"
	Bound(resp, len(resp.ToolCalls))
	if len(resp.ToolCalls) != Max || resp.ToolCalls[Max-1].Name != "last kept" || cap(resp.ToolCalls) != Max {
		t.Errorf("got %d calls (cap %d), want the first %d copied", len(resp.ToolCalls), cap(resp.ToolCalls), Max)
	}
	if !resp.Truncated || resp.OriginalToolCalls != 20000 || resp.CutNote() != "tool calls cut to the first 128 of 20000" {
		t.Errorf("got truncated %v, original %d, note %q", resp.Truncated, resp.OriginalToolCalls, resp.CutNote())
	}
	// A client that stopped converting at Max passes the count it saw.
	resp = &promptcanary.Response{ToolCalls: make([]promptcanary.ToolCall, Max)}
	Bound(resp, Max+1)
	if !resp.Truncated || resp.OriginalToolCalls != Max+1 {
		t.Errorf("got truncated %v, original %d; want true, %d", resp.Truncated, resp.OriginalToolCalls, Max+1)
	}
	resp = &promptcanary.Response{ToolCalls: make([]promptcanary.ToolCall, Max)}
	Bound(resp, Max)
	if resp.Truncated || resp.OriginalToolCalls != 0 || len(resp.ToolCalls) != Max {
		t.Errorf("an answer of %d calls was cut: %+v", Max, resp)
	}
}

func TestParameters(t *testing.T) {
	empty := `{"properties":{},"type":"object"}`
	for _, tc := range []struct {
		name   string
		schema map[string]any
		want   string
	}{
		{"nil", nil, empty},
		{"empty", map[string]any{}, empty},
		{"given", map[string]any{"type": "object", "required": []any{"q"}}, `{"required":["q"],"type":"object"}`},
	} {
		got, _ := json.Marshal(Parameters(tc.schema))
		if string(got) != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}
