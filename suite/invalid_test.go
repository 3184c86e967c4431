package suite

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// problem is an expected Problem: its Error() text and its hint.
type problem struct{ msg, hint string }

// TestLoadInvalid loads one fixture per configuration mistake and checks
// the exact problems reported, in file order, with their hints.
func TestLoadInvalid(t *testing.T) {
	const (
		typeHint   = "probes need a type: field, for example type: json_validity"
		indentHint = "line this up with the keys or list items it belongs with: check its indentation"
	)
	tests := []struct {
		file string
		want []problem
	}{
		{"invalid-providers.yaml", []problem{
			{"4: providers[0].rpm: out of range: got 0, allowed 1 to 1000000000", "use a value from 1 to 1000000000"},
			{`5: providers[0].timeout: invalid duration "soon"`, "a positive duration such as 30s or 2m"},
			{"6: providers[1].id: required field is missing", "name the provider, for example id: openai/gpt-4o-mini or id: http/my-app"},
			{`7: providers[2].id: must be NAME/MODEL, got "nomodel"`, "for example openai/gpt-4o-mini or http/my-app"},
			{`8: providers[3].id: duplicate provider "openai/gpt-4o-mini" (also at line 3)`, "list each provider once"},
			{`9: providers[4]: must be a mapping with id: NAME/MODEL, got a string`, "write key: value lines indented under it"},
			{"11: prices.my-model: needs both input: and output:", "for example {input: 2.5, output: 10}"},
			{"12: prices.other.input: must be a non-negative number, got -2", "USD per million tokens, for example 2.5"},
			{"12: prices.other.cached: unknown field", "known fields: input, output"},
		}},
		{"invalid-messages-turns.yaml", []problem{
			{"5: prompts[0].messages[0].role: unknown role \"assistent\"", "did you mean assistant? use one of: system, user, assistant, tool"},
			{"8: prompts[1].messages[0]: missing role", "turns need a role: system, user, assistant or tool"},
			{"11: prompts[2].messages[0].tool_calls: a user turn has no tool_calls", "remove tool_calls from this turn: only assistant turns have it"},
			{"11: prompts[2].messages[0].tool_call_id: a user turn has no tool_call_id", "remove tool_call_id from this turn: only tool turns have it"},
			{"14: prompts[3].messages[0].content: must not be empty", "give the turn its text, for example content: Hello"},
			{"17: prompts[4].messages[0]: the conversation must start with a user turn, got an assistant turn", "start messages: with role: user, or set text: for the first user turn"},
			{"22: prompts[5].messages[1]: an assistant turn needs content or tool_calls", "give what the model said (content) or the calls it made (tool_calls), or both"},
			{"27: prompts[6].messages[0]: the conversation ends with an assistant turn: nothing for the model to answer", "end with the turn the model answers: a user turn or a tool result"},
			{"31: prompts[7].messages[0]: a system turn must open the conversation", "use system_prompt instead, or make it the first turn of a prompt without text"},
			{"35: prompts[8].messages[0]: system_prompt: and a system turn both set", "keep either the system turn or system_prompt"},
			{"38: prompts[9].messages: must not be empty", "list the conversation's turns, or remove the messages key"},
			{"40: prompts[10].messages: must be a list of turns, got a mapping", "write one turn per line, each like - {role: user, content: \"…\"}"},
		}},
		{"invalid-messages-tools.yaml", []problem{
			{"6: prompts[0].messages[1]: this tool turn answers no call", "a tool turn follows an assistant turn with tool_calls:, one turn per call"},
			{"13: prompts[1].messages[2].tool_call_id: unknown tool_call_id \"w2\": no unanswered call has it", "did you mean w1? use one of: w1"},
			{"21: prompts[2].messages[3].tool_call_id: tool call \"w1\" is answered already (line 20)", "give each call one tool turn"},
			{"29: prompts[3].messages[2]: tool call \"call_1\" is not answered", "add a role: tool turn with its result right after the assistant turn that made the call"},
			{"34: prompts[4].messages[1]: tool call \"call_1\" is not answered", "add a role: tool turn with its result after the assistant turn"},
			{"42: prompts[5].messages[1].tool_calls[0].name: unknown tool \"get_wether\"", "did you mean get_weather? add the tool to the prompt's tools: (the APIs want every called tool defined)"},
			{"42: prompts[5].messages[1].tool_calls[0].arguments: must be a JSON object", "write the arguments as a mapping, for example arguments: {city: Paris}, or as a JSON object string"},
			{"43: prompts[5].messages[1].tool_calls[1].arguments: must be a mapping, got a list", "write the arguments as a mapping, for example arguments: {city: Paris}, or as a JSON object string"},
			{"44: prompts[5].messages[1].tool_calls[2]: missing name", "name the tool the model called, one of the prompt's tools"},
			{"45: prompts[5].messages[1].tool_calls[3].colour: unknown field", "known fields: id, name, arguments"},
			{"46: prompts[5].messages[1].tool_calls[4].id: duplicate tool call id \"a\" (also at line 45)", "give each call an id of its own, or leave id: out to get one"},
			{"54: prompts[6].messages[2]: missing content", "write the tool's result under content: (a text, or a mapping sent as JSON)"},
			{"59: prompts[7].messages[4].tool_calls[0].id: tool call \"w1\" is made twice: a YAML alias repeats its turn", "give each call an id of its own, or leave id: out to get one"},
		}},
		{"invalid-response-format.yaml", []problem{
			{"5: prompts[0].response_format.type: unknown response_format type \"json_schemma\"", "did you mean json_schema? use one of: json_schema, json_object"},
			{"8: prompts[1].response_format.schema: schema is for type: json_schema", "use type: json_schema, or remove the schema key"},
			{"8: prompts[1].response_format.strict: strict is for type: json_schema", "use type: json_schema, or remove the strict key"},
			{"11: prompts[2].response_format: type json_schema needs a schema", "add schema: with the JSON Schema of the answer, or use type: json_object"},
			{"11: prompts[2].response_format.strict: must be true or false, got a string", "write strict: true or strict: false"},
			{"11: prompts[2].response_format.name: invalid schema name \"my schema\"", "use 1 to 64 letters, digits, '_' or '-', as the model APIs require"},
			{"19: prompts[3].response_format.schema.properties.city.type: not a valid JSON Schema: at /properties/city/type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'; at /properties/city/type: got string, want array", "check the keyword's value against the JSON Schema specification of the schema's draft"},
			{"22: prompts[4].response_format.schema: the schema asks for nothing", "give the answer's shape, for example type: object with properties:, or use type: json_object"},
			{"25: prompts[5].response_format: type json_object needs the word JSON in the prompt", "ask for JSON in the text, a turn or the system prompt: OpenAI rejects JSON mode otherwise"},
			{"28: prompts[6].response_format: must be a mapping with type:, got a string", "for example response_format: {type: json_schema, schema: {type: object, properties: {city: {type: string}}, required: [city]}}, or {type: json_object}"},
			{"31: prompts[7].response_format: missing type", "use type: json_schema (with schema:) or type: json_object"},
			{"31: prompts[7].response_format.scheme: unknown field", "did you mean schema?"},
			{"36: prompts[8].response_format.schema.$ref: $ref to \"https://example.com/schema.json\" refused: nothing is fetched over the network", "copy the referenced schema under $defs and refer to it as \"#/$defs/NAME\", or save it in a local file and $ref its relative path"},
		}},
		{"invalid-yaml-question.yaml", []problem{
			{"4:9: invalid YAML: this { is never closed", "quote a value that ends in ? inside { }, for example {content: \"Is it raining?\"}"},
		}},
		{"invalid-unknown-top-key.yaml", []problem{
			{"2: descripton: unknown field", "did you mean description?"},
		}},
		{"invalid-probe-type.yaml", []problem{
			{`2: probes[0].type: unknown probe type "test_lenght"`, "did you mean test_length? run `promptcanary probes` to list them"},
			{`4: probes[1]: unknown probe type "test_plian"`, "did you mean test_plain? run `promptcanary probes` to list them"},
			{`5: probes[2].probe_id: unknown probe type "test_keywrods"`, "did you mean test_keywords? run `promptcanary probes` to list them"},
		}},
		{"invalid-enum.yaml", []problem{
			{`4: probes[0] (test_match).match_mode: invalid value "fuzzy"`, "use one of: contains, exact, startswith"},
		}},
		{"invalid-cross-field.yaml", []problem{
			{"5: probes[1] (test_length).max_chars: must be >= min_chars (5)", "max_chars must be >= min_chars"},
		}},
		{"invalid-negative-length.yaml", []problem{
			{"3: probes[0] (test_length).min_chars: must be >= 0, got -1", "lengths cannot be negative"},
		}},
		{"invalid-missing-param.yaml", []problem{
			{"2: probes[0] (test_match).expected_value: required parameter is missing", "the text the answer must contain"},
		}},
		{"invalid-param-type.yaml", []problem{
			{`3: probes[0] (test_length).min_chars: must be an integer, got string "ten"`, "for example min_chars: 3"},
			{"4: probes[0] (test_length).tolerance: must be a number, got a list", "for example tolerance: 0.5"},
		}},
		{"invalid-unknown-param.yaml", []problem{
			{"4: probes[0] (test_match).match_mod: unknown parameter for test_match", "did you mean match_mode?"},
		}},
		{"invalid-nested-param.yaml", []problem{
			{"6: probes[0] (test_schema).schema.arg_types.city: unknown type text", "use one of: string, integer"},
		}},
		{"invalid-duplicate-prompt-id.yaml", []problem{
			{`5: prompts[1].id: duplicate prompt id "geo" (also at line 3)`, "give each prompt an id: of its own"},
		}},
		{"invalid-duplicate-derived-id.yaml", []problem{
			{`4: prompts[1]: duplicate prompt id "what-is-the-capital-of-fb8d6970" (also at line 3)`, "give the prompts distinct texts or id: fields"},
		}},
		{"invalid-duplicate-probe-id.yaml", []problem{
			{`6: probes[1] (test_match).id: duplicate probe id "capital" (also at line 3)`, "give each probe an id: of its own"},
		}},
		{"invalid-prompt-probe-clash.yaml", []problem{
			{`9: prompts[0].probes[0] (test_length).id: duplicate probe id "short" (also at line 3)`, "give each probe an id: of its own"},
		}},
		{"invalid-probe-id-charset.yaml", []problem{
			{`3: probes[0] (test_plain).id: invalid probe id "my probe"`, "use only letters, digits, '_', '.' and '-'"},
			{`5: prompts[0].id: invalid prompt id "geo/france"`, "use only letters, digits, '_', '.' and '-'"},
		}},
		{"invalid-empty-text.yaml", []problem{
			{"3: prompts[0].text: must not be empty", "write the prompt to send"},
			{"4: prompts[1]: prompt text must not be empty", "write the prompt to send"},
			{"5: prompts[2]: missing text", "prompts need a text: field (or messages:, a conversation)"},
		}},
		{"invalid-no-prompts.yaml", []problem{
			{"4: prompts: at least one prompt is required", `add a prompts: list, for example prompts: ["What is the capital of France?"]`},
		}},
		{"invalid-no-probes.yaml", []problem{
			{"1: probes: at least one probe is required", "add a probes: list, or probes: under a prompt"},
		}},
		{"invalid-yaml-syntax.yaml", []problem{
			{"5:11: invalid YAML: this quote is never closed", "close the quote, or quote the text with the other kind of quote if it holds this one"},
		}},
		// A syntax error is reported at the offending token, not at the
		// start of the block around it (go.yaml.in/yaml said line 5 here).
		{"invalid-yaml-indent.yaml", []problem{
			{"45:4: invalid YAML: did not find expected '-' indicator", indentHint},
		}},
		{"invalid-yaml-top-indent.yaml", []problem{
			{"3:2: invalid YAML: did not find expected key", indentHint},
		}},
		{"invalid-yaml-over-indent.yaml", []problem{
			{"5:7: invalid YAML: mapping values are not allowed in this context", indentHint},
		}},
		{"invalid-yaml-tab.yaml", []problem{
			{"5:1: invalid YAML: tab character in the indentation", "indent with spaces: YAML does not allow tabs in indentation"},
		}},
		{"invalid-yaml-bracket.yaml", []problem{
			{"5:24: invalid YAML: this [ is never closed", "close it with ], or quote the value if the [ is text"},
		}},
		{"invalid-yaml-stray-bracket.yaml", []problem{
			{"2:21: invalid YAML: did not find expected key", "this ] closes nothing: remove it, or quote the value if it is text"},
		}},
		{"invalid-yaml-colon-value.yaml", []problem{
			{"4:15: invalid YAML: mapping values are not allowed in this context", `quote a value that holds ": ", for example text: "Note: this"`},
		}},
		{"invalid-yaml-missing-colon.yaml", []problem{
			{"4:5: invalid YAML: could not find expected ':'", "add ':' after the key, or indent this line under the key it continues"},
		}},
		{"invalid-yaml-quote-inside.yaml", []problem{
			{"4:11: invalid YAML: did not find expected '-' indicator", "a quoted value ends at its closing quote: quote the whole value (a ' inside '…' is written '')"},
		}},
		// A file that is not UTF-8 text is reported at its first bad
		// character; go.yaml.in/yaml gives no line for it.
		{"invalid-nul.yaml", []problem{
			{"4:12: NUL byte: the file is not UTF-8 text", "is it a binary file, or text saved in another encoding? save it as UTF-8 text"},
		}},
		{"invalid-utf16-no-bom.yaml", []problem{
			{"1:2: NUL byte: the file is not UTF-8 text", "the file looks like UTF-16 without a byte order mark: save it as UTF-8 text"},
		}},
		{"invalid-latin1.yaml", []problem{
			{"4:6: invalid UTF-8: byte 0xf9", "save the file as UTF-8 (it may have been saved as Latin-1 or Windows-1252)"},
		}},
		{"invalid-control.yaml", []problem{
			{"4:37: control character U+001B is not allowed", `remove it, or write it as an escape inside double quotes, for example "\e" or "\x01"`},
		}},
		// UTF-16 with a byte order mark is read, and a UTF-8 one skipped:
		// lines and columns count the characters of the text.
		{"invalid-utf16-bom.yaml", []problem{
			{"2: descripton: unknown field", "did you mean description?"},
		}},
		{"invalid-utf8-bom.yaml", []problem{
			{"1:7: invalid YAML: this quote is never closed", "close the quote, or quote the text with the other kind of quote if it holds this one"},
		}},
		{"invalid-unknown-prompt-key.yaml", []problem{
			{"4: prompts[0].expected_keyword: unknown field", "did you mean expected_keywords?"},
			{"5: prompts[0].sytem_prompt: unknown field", "did you mean system_prompt?"},
		}},
		{"invalid-tool-no-name.yaml", []problem{
			{"5: prompts[0].tools[0]: missing name", "tools need a name: field"},
			{"9: prompts[0].tools[1].parameters: must be a mapping (a JSON Schema), got a list", "write key: value lines indented under it"},
		}},
		{"invalid-tool-choice.yaml", []problem{
			{`6: prompts[0].tool_choice: invalid tool_choice "get_wether"`, "did you mean get_weather? use one of: auto, none, required, get_weather"},
			{`8: prompts[1].tool_choice: tool_choice "required" needs tools`, "add tools: to this prompt"},
		}},
		{"invalid-temperature.yaml", []problem{
			{"1: temperature: out of range: got 3, allowed 0 to 2", "use a value from 0 to 2; 0 is the most repeatable"},
			{"2: max_tokens: out of range: got 0, allowed 1 to 1000000", "use a value from 1 to 1000000"},
			{"3: seed: must be an integer, got a number", "write a whole number, for example 3"},
			{"4: samples: must be an integer, got a string", "write a whole number, for example 3"},
			{`5: provider: must be NAME/MODEL, got "openai"`, "for example sim/stable or openai/gpt-4o"},
		}},
		{"invalid-number-range.yaml", []problem{
			{"1: temperature: must be a finite number, got .nan", "use a value from 0 to 2; 0 is the most repeatable"},
			{"2: max_tokens: out of range: got 9223372036854775807, allowed 1 to 1000000", "use a value from 1 to 1000000"},
			{"3: samples: out of range: got 10001, allowed 1 to 10000", "use a value from 1 to 10000"},
			{"4: seed: out of range: got 9223372036854775808, allowed -9223372036854775808 to 9223372036854775807", "use a value from -9223372036854775808 to 9223372036854775807"},
		}},
		{"invalid-max-answer-bytes.yaml", []problem{
			{"1: max_answer_bytes: out of range: got 100, allowed 1024 to 16777216", "use a value from 1024 to 16777216"},
		}},
		{"invalid-number-huge.yaml", []problem{
			{"1: temperature: must be a finite number, got .inf", "use a value from 0 to 2; 0 is the most repeatable"},
			{"2: max_tokens: out of range: got 99999999999999999999999, allowed 1 to 1000000", "use a value from 1 to 1000000"},
			{"3: samples: out of range: got -1, allowed 1 to 10000", "use a value from 1 to 10000"},
			{"4: seed: out of range: got -99999999999999999999999, allowed -9223372036854775808 to 9223372036854775807", "use a value from -9223372036854775808 to 9223372036854775807"},
		}},
		{"invalid-provider-numbers.yaml", []problem{
			{"3: providers[0].rpm: out of range: got 1000000001, allowed 1 to 1000000000", "use a value from 1 to 1000000000"},
			{"4: providers[0].tpm: out of range: got 18446744073709551616, allowed 1 to 1000000000", "use a value from 1 to 1000000000"},
			{"5: providers[0].timeout: out of range: got 48h, allowed up to 24h", "use a positive duration of at most 24h, for example 30s"},
			{"7: providers[1].timeout: must be a duration, got an integer", "write a duration with its unit, for example 30s or 2m"},
			{"8: providers[1].rpm: must be an integer, got a number", "write a whole number, for example 3"},
			{"10: prices.a.input: must be a finite number, got .nan", "write a number, for example 0.5"},
			{"11: prices.b.output: must be a finite number, got -.inf", "write a number, for example 0.5"},
			{"12: prices.c.input: out of range: got 1e300, allowed 0 to 1000000", "USD per million tokens, from 0 to 1000000"},
			{"13: prices.d.input: must be a number, got a string", "USD per million tokens, for example 2.5"},
		}},
		{"invalid-probe-numbers.yaml", []problem{
			{"3: probes[0] (test_length).min_chars: out of range: got 9223372036854775808, allowed -2147483648 to 2147483647", "use a value from -2147483648 to 2147483647"},
			{"4: probes[0] (test_length).max_chars: out of range: got 1e+23, allowed -2147483648 to 2147483647", "use a value from -2147483648 to 2147483647"},
			{"5: probes[0] (test_length).tolerance: must be a finite number, got .nan", "write a number, for example 0.5"},
			{"7: probes[1] (test_length).max_chars: out of range: got 3000000000, allowed -2147483648 to 2147483647", "use a value from -2147483648 to 2147483647"},
			{"8: probes[1] (test_length).tolerance: must be a finite number, got -.inf", "write a number, for example 0.5"},
		}},
		{"invalid-nothing-to-check.yaml", []problem{
			{"6: prompts[0].expected_keywords[1]: must not be empty", "an empty keyword occurs in every response; remove it"},
			{"10: prompts[1].probes[0] (test_expected): nothing to check on this prompt: no expected_keywords declared", "add expected_keywords: to the prompt"},
		}},
		{"invalid-nothing-to-check-all.yaml", []problem{
			{"2: probes[0] (test_expected): nothing to check on any prompt: no expected_keywords declared", "add expected_keywords: to the prompt"},
		}},
		{"invalid-tool-schema.yaml", []problem{
			{"1: tags[1]: must not be empty", "remove the empty tag"},
			{"5: prompts[0].tags[0]: must not be empty", "remove the empty tag"},
			{`7: prompts[0].tools[0].name: invalid tool name "get weather"`, "use 1 to 64 letters, digits, '_' or '-', as the model APIs require"},
			{"9: prompts[0].tools[1].parameters: must be a JSON Schema with type: object", "for example parameters: {type: object, properties: {city: {type: string}}, required: [city]}"},
			{`10: prompts[0].tools[2].name: invalid tool name "get_forecast_for_a_city_in_the_next_seven_days_with_hourly_detail"`, "use 1 to 64 letters, digits, '_' or '-', as the model APIs require"},
		}},
		{"invalid-wrong-type.yaml", []problem{
			{"1: name: must be a string, got a list", "write a single text value, quoted if it contains ': '"},
			{"2: tags: must be a list of strings, got a string", "write a list: [production]"},
			{"3: probes: must be a list of probes, got a mapping", "write one entry per line, each starting with '- '"},
			{"6: prompts[0].expected_keywords[1]: must be a string, got an integer", "quote the value to make it a string"},
			{"7: prompts[0].tags: must be a list of strings, got a mapping", "write a list of texts, for example [a, b]"},
		}},
		{"invalid-type-and-probe-id.yaml", []problem{
			{"3: probes[0].probe_id: type: and probe_id: both set", "use either type: or probe_id:, not both"},
			{"4: probes[1]: missing type", "did you mean type: instead of tpye:?"},
			{"5: probes[2]: must be a probe type id or a mapping with type:, got an integer", typeHint},
		}},
		{"invalid-duplicate-key.yaml", []problem{
			{"3: name: duplicate key (also at line 1)", "remove one of them"},
		}},
		{"invalid-duplicate-nested-key.yaml", []problem{
			{"6: probes[0].min_chars: duplicate key (also at line 4)", "remove one of them"},
			{"12: prompts[1].id: duplicate key (also at line 10)", "remove one of them"},
		}},
		{"invalid-multi-doc.yaml", []problem{
			{"4: only one YAML document is allowed", "remove the --- separator and what follows"},
		}},
		{"invalid-empty.yaml", []problem{
			{"1: file is empty", "a suite needs a prompts: list and a probes: list"},
		}},
		{"invalid-several.yaml", []problem{
			{"2: descripton: unknown field", "did you mean description?"},
			{"3: temperature: out of range: got -1, allowed 0 to 2", "use a value from 0 to 2; 0 is the most repeatable"},
			{`5: probes[0].type: unknown probe type "test_lenght"`, "did you mean test_length? run `promptcanary probes` to list them"},
			{"8: probes[1] (test_length).max_chars: must be >= min_chars (10)", "max_chars must be >= min_chars"},
			{"9: probes[2] (test_match).expected_value: required parameter is missing", "the text the answer must contain"},
			{`10: probes[2] (test_match).match_mode: invalid value "fuzzy"`, "use one of: contains, exact, startswith"},
			{"14: prompts[0].expected_keywords[1]: must be a string, got an integer", "quote the value to make it a string"},
			{`15: prompts[1].id: duplicate prompt id "geo" (also at line 12)`, "give each prompt an id: of its own"},
			{"16: prompts[1].text: must not be empty", "write the prompt to send"},
			{`18: prompts[2].tool_choice: tool_choice "required" needs tools`, "add tools: to this prompt"},
			{`21: prompts[2].probes[0] (test_keywords).required_keywords: must be a list of strings, got string "yes"`, "for example required_keywords: [a, b]"},
		}},
	}
	seen := map[string]bool{}
	for _, tc := range tests {
		seen[tc.file] = true
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			s, err := Load(path)
			if s != nil {
				t.Errorf("got suite %q, want nil", s.Name)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got error %v, want a *ValidationError", err)
			}
			var want []string
			for i, w := range tc.want {
				want = append(want, path+":"+w.msg)
				if i >= len(ve.Problems) {
					t.Errorf("problem %d: missing, want %q", i, path+":"+w.msg)
					continue
				}
				p := ve.Problems[i]
				if got := p.Error(); got != path+":"+w.msg {
					t.Errorf("problem %d: got %q, want %q", i, got, path+":"+w.msg)
				}
				if p.Hint != w.hint {
					t.Errorf("problem %d hint: got %q, want %q", i, p.Hint, w.hint)
				}
				if strings.HasSuffix(p.Hint, ":") {
					t.Errorf("problem %d hint %q ends in a colon: it reads as cut off", i, p.Hint)
				}
				if p.File != path || p.Line <= 0 {
					t.Errorf("problem %d location: got %s:%d, want %s:>0", i, p.File, p.Line, path)
				}
			}
			if len(ve.Problems) != len(tc.want) {
				t.Errorf("got %d problems, want %d:\n%v", len(ve.Problems), len(tc.want), err)
			}
			if got, w := err.Error(), strings.Join(want, "\n"); got != w {
				t.Errorf("Error():\ngot  %s\nwant %s", got, w)
			}
		})
	}
	// Every invalid fixture is in the table.
	files, err := filepath.Glob("testdata/invalid-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("fixture %s has no expectations", f)
		}
	}
}
