package suite

import (
	"regexp"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

var promptsKey = regexp.MustCompile(`(?m)^prompts:`)

// The prompts ExampleFile adds to an example that declares none.
const (
	capitalPrompt = "prompts:\n  - id: capital\n    text: What is the capital of France?\n"
	// structuredPrompt asks the API itself for JSON matching a schema.
	structuredPrompt = `prompts:
  # Structured output: the API is asked for JSON matching this schema
  # (checked when the suite loads).
  - id: user-json
    text: Return a fictional user as JSON.
    response_format:
      type: json_schema
      name: user
      strict: true
      schema:
        type: object
        properties:
          name: {type: string}
          age: {type: integer}
          city: {type: string}
        required: [name, age, city]
        additionalProperties: false
`
	// conversationPrompt carries earlier turns: a tool call the model made
	// and its result, then a new question that needs the tool again.
	conversationPrompt = `prompts:
  # A conversation: the model answers the last turn.
  - id: weather-follow-up
    tools:
      - name: get_weather
        description: Current weather for a city.
        parameters:
          type: object
          properties:
            city: {type: string}
            unit: {type: string, enum: [celsius, fahrenheit]}
          required: [city]
    messages:
      - role: user
        content: What's the weather in Paris?
      - role: assistant
        tool_calls:
          - name: get_weather
            arguments: {city: Paris}
      - role: tool
        content: {city: Paris, temp_c: 18, conditions: sunny}
      - role: assistant
        content: It is 18 °C and sunny in Paris.
      - role: user
        content: And in Oslo?
`
)

// ExampleFile returns a complete canary.yaml that shows t in use: the
// probe type's example, with a name and, when the example declares none, a
// prompt: a conversation with a tool call and its result for the tool-use
// probes, a structured-output prompt for the JSON probes, else a question.
// It loads without problems, so `promptcanary probes show` can print
// something a user may copy as it is.
func ExampleFile(t probe.Type) string {
	var b strings.Builder
	b.WriteString("name: " + t.ID + "-example\n")
	ex := t.ExampleYAML()
	b.WriteString(ex)
	if !strings.HasSuffix(ex, "\n") {
		b.WriteString("\n")
	}
	if !promptsKey.MatchString(ex) {
		switch {
		case t.Category == promptcanary.CategoryToolUse:
			b.WriteString(conversationPrompt)
		case t.Category == promptcanary.CategoryFormat && strings.HasPrefix(t.ID, "json_"):
			b.WriteString(structuredPrompt)
		default:
			b.WriteString(capitalPrompt)
		}
	}
	return b.String()
}
