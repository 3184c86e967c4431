package format_test

import (
	"strings"
	"testing"
)

func TestJSONValidity(t *testing.T) {
	long := strings.Repeat("é", 250) + "{"
	runCases(t, "json_validity", []evalCase{
		{name: "object", content: `{"a": 1}`, pass: true, score: 1, meta: map[string]any{}, details: "(object)"},
		{name: "array", content: `[1, 2, 3]`, pass: true, score: 1, details: "(array)"},
		{name: "string", content: `"hello"`, pass: true, score: 1, details: "(string)"},
		{name: "number", content: `-12.5e3`, pass: true, score: 1, details: "(number)"},
		{name: "boolean", content: `true`, pass: true, score: 1, details: "(boolean)"},
		{name: "null", content: `null`, pass: true, score: 1, details: "(null)"},
		{name: "surrounding whitespace", content: " \n\t{\"a\":1}\n ", pass: true, score: 1},
		{name: "number beyond float64", content: `{"big": 1e999}`, pass: true, score: 1},
		{name: "json fence", content: "```json\n{\"a\": [1, 2]}\n```", pass: true, score: 1},
		{name: "fence fixture", content: "@fenced_object.txt", pass: true, score: 1},
		{name: "fence without closing line", content: "```\n{\"a\": 1}", pass: true, score: 1},
		{name: "closing fence with spaces", content: "```json\n[1]\n   ```   ", pass: true, score: 1},
		{name: "prose after closing fence", content: "```json\n{}\n```\nHope this helps!", score: 0,
			details: "invalid character '`'"},
		{name: "empty", content: "", score: 0,
			meta:    map[string]any{"error": "unexpected end of JSON input", "raw_content_preview": ""},
			details: "unexpected end of JSON input (byte offset 0)"},
		{name: "whitespace only", content: "  \n ", score: 0, details: "unexpected end of JSON input"},
		{name: "only a fence", content: "```", score: 0, details: "unexpected end of JSON input"},
		{name: "trailing comma", content: `{"a":1,}`, score: 0,
			meta: map[string]any{
				"error":               "invalid character '}' looking for beginning of object key string",
				"raw_content_preview": `{"a":1,}`,
			},
			details: "(byte offset 8)"},
		{name: "preamble before json", content: `Sure! {"a":1}`, score: 0,
			details: "invalid character 'S' looking for beginning of value (byte offset 1)"},
		{name: "two values", content: `{} {}`, score: 0, details: "after top-level value (byte offset 4)"},
		{name: "truncated", content: `{"a": [1, 2`, score: 0, details: "unexpected end of JSON input (byte offset 11)"},
		{name: "NaN is not JSON", content: `NaN`, score: 0, details: "invalid character 'N'"},
		{name: "single quotes", content: `{'a': 1}`, score: 0, details: "invalid character '\\''"},
		{name: "preview is 200 code points of the parsed text", content: "```\n" + long, score: 0,
			meta: map[string]any{
				"error":               "invalid character 'Ã' looking for beginning of value",
				"raw_content_preview": strings.Repeat("é", 200),
			}},
	})
}

func TestJSONValidityConfig(t *testing.T) {
	runConfigCases(t, "json_validity", []configCase{
		{name: "takes no parameters", params: map[string]any{"strict": true}, want: []string{"strict"},
			msg: "unknown parameter for json_validity"},
	})
}
