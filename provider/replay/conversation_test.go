package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/promptcanary/promptcanary/probe/builtin"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/suite"
)

// TestConversationReplays loads a suite with a conversation prompt (a tool
// result to answer, with an explicit id) and one with a derived id, and
// plays their recorded answers: lines match by prompt id and sample,
// whatever the prompt's turns and response format.
func TestConversationReplays(t *testing.T) {
	dir := t.TempDir()
	s, err := suite.Parse(filepath.Join(dir, "canary.yaml"), []byte(`probes: [json_validity]
prompts:
  - id: umbrella
    tools: [{name: get_weather}]
    messages:
      - {role: user, content: "Umbrella in Paris?"}
      - role: assistant
        tool_calls: [{name: get_weather, arguments: {city: Paris}}]
      - {role: tool, content: '{"rain_mm": 12}'}
    response_format: {type: json_schema, schema: {type: object, required: [umbrella]}}
  - messages:
      - {role: user, content: Say hi.}
`))
	if err != nil {
		t.Fatal(err)
	}
	derived := s.Prompts[1].ID
	lines := `{"prompt_id": "umbrella", "content": "{\"umbrella\": true}"}` + "\n" +
		`{"prompt_id": "` + derived + `", "content": "Hi!"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "answers.jsonl"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Open("answers.jsonl", provider.Options{BaseDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{`{"umbrella": true}`, "Hi!"} {
		r, err := p.Generate(context.Background(), &provider.Request{Prompt: &s.Prompts[i]})
		if err != nil {
			t.Fatalf("prompt %s: %v", s.Prompts[i].ID, err)
		}
		if r.Content != want {
			t.Errorf("prompt %s: got %q, want %q", s.Prompts[i].ID, r.Content, want)
		}
	}
}
