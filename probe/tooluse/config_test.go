package tooluse

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// probeConfig is one probe entry of a testdata YAML file.
type probeConfig struct {
	Type   string         `yaml:"type"`
	Params map[string]any `yaml:"params"`
}

func readConfig(t *testing.T, name string, into any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, into); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
}

// paramErrors flattens a joined error into its *probe.ParamError parts,
// failing the test on any other error.
func paramErrors(t *testing.T, err error) []*probe.ParamError {
	t.Helper()
	params, other := probe.ParamErrors(err)
	for _, e := range other {
		t.Errorf("error %q is not a *probe.ParamError", e)
	}
	return params
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		file  string
		want  []string // Error() of each *probe.ParamError, in order
		hints []string // substrings of the hints, in order ("" to skip)
	}{
		{"invalid-presence-strategy.yaml",
			[]string{`strategy: invalid value "xml"`},
			[]string{"auto, json, text"}},
		{"invalid-presence-unknown-param.yaml",
			[]string{"stratgy: unknown parameter for tool_call_presence", `expect_tool_call: must be a boolean, got string "yes please"`},
			[]string{"did you mean strategy?", ""}},
		{"invalid-name-missing.yaml",
			[]string{"expected_name: required parameter is missing"},
			[]string{"function name"}},
		{"invalid-name-empty.yaml",
			[]string{"expected_name: must not be empty"},
			[]string{"function name"}},
		{"invalid-name-aliases.yaml",
			[]string{"allow_aliases: item 1 must be a string, got integer 3"},
			[]string{""}},
		{"invalid-args-missing.yaml",
			[]string{"required_args: required parameter is missing"},
			[]string{"argument keys"}},
		{"invalid-args-overlap.yaml",
			[]string{`forbidden_args: "api_key", "token" also listed in required_args`},
			[]string{"both required and forbidden"}},
		{"invalid-schema-missing.yaml",
			[]string{"schema: required parameter is missing"},
			[]string{"required_args"}},
		{"invalid-schema-not-mapping.yaml",
			[]string{"schema: must be a mapping, got a list"},
			[]string{""}},
		{"invalid-schema-unknown-key.yaml",
			[]string{"schema.colour: unknown key in schema", "schema.requried_args: unknown key in schema"},
			[]string{"known keys: name, required_args, optional_args, forbidden_args, arg_types", "did you mean required_args?"}},
		{"invalid-schema-arg-types.yaml",
			[]string{"schema.arg_types.limit: must be a type name, got integer 5", `schema.arg_types.query: unknown type "strng"`, `schema.arg_types.tags: unknown type "tuple"`},
			[]string{"use one of: string, integer", "did you mean string?", "use one of:"}},
		{"invalid-schema-arg-types-list.yaml",
			[]string{"schema.arg_types: must be a mapping of argument name to type, got a list"},
			[]string{"{query: string, limit: integer}"}},
		{"invalid-schema-field-types.yaml",
			[]string{"schema.forbidden_args[1]: must be a string, got boolean true", "schema.name: must be a string, got integer 3", `schema.required_args: must be a list of strings, got string "query"`},
			[]string{"", "", "[query, limit]"}},
		{"invalid-args-empty.yaml",
			[]string{"required_args: nothing to check: required_args is empty and there are no forbidden_args"},
			[]string{"use tool_call_presence"}},
		{"invalid-schema-empty.yaml",
			[]string{"schema: nothing to check: the schema sets no name, required_args, forbidden_args or arg_types"},
			[]string{"schema: {name: get_weather, required_args: [city]}"}},
		{"invalid-schema-overlap.yaml",
			[]string{`schema.forbidden_args: "query" also listed in schema.required_args`},
			[]string{"both required and forbidden"}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			var cfg probeConfig
			readConfig(t, tc.file, &cfg)
			p, _, err := probe.New(cfg.Type, cfg.Params)
			if err == nil {
				t.Fatalf("probe.New: got probe %T and no error, want %d error(s)", p, len(tc.want))
			}
			pes := paramErrors(t, err)
			got := make([]string, len(pes))
			for i, pe := range pes {
				got[i] = pe.Error()
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("errors:\ngot  %q\nwant %q", got, tc.want)
			}
			for i, h := range tc.hints {
				if !strings.Contains(pes[i].Hint, h) {
					t.Errorf("hint %d: got %q, want it to contain %q", i, pes[i].Hint, h)
				}
			}
		})
	}
}

func TestValidConfigs(t *testing.T) {
	var cfgs []probeConfig
	readConfig(t, "valid.yaml", &cfgs)
	want := []probe.Probe{
		&Presence{Expect: true, Strategy: StrategyAuto},
		&Presence{Expect: false, Strategy: StrategyText},
		&Name{Expected: "search_web", CaseSensitive: true, Aliases: []string{"web_search"}},
		&Args{Required: []string{"query"}, Forbidden: []string{"api_key"}},
		&Args{Required: []string{}, Forbidden: []string{"api_key"}},
		&Schema{ToolName: "search_web", RequiredArgs: []string{"query"}, OptionalArgs: []string{"limit"},
			ForbiddenArgs: []string{"api_key"}, ArgTypes: map[string]ArgType{"query": TypeString, "limit": TypeInteger,
				"safe": TypeBoolean, "tags": TypeArray, "filters": TypeObject, "score": TypeNumber}},
		&Schema{RequiredArgs: []string{}, OptionalArgs: []string{}, ForbiddenArgs: []string{"api_key"}, ArgTypes: map[string]ArgType{}},
	}
	if len(cfgs) != len(want) {
		t.Fatalf("configs: got %d, want %d", len(cfgs), len(want))
	}
	for i, cfg := range cfgs {
		p, _, err := probe.New(cfg.Type, cfg.Params)
		if err != nil {
			t.Errorf("config %d (%s): %v", i, cfg.Type, err)
			continue
		}
		if !equalProbes(p, want[i]) {
			t.Errorf("config %d: got %#v, want %#v", i, p, want[i])
		}
	}
}

// equalProbes compares configured probes field by field.
func equalProbes(a, b probe.Probe) bool {
	switch x := a.(type) {
	case *Presence:
		y, ok := b.(*Presence)
		return ok && *x == *y
	case *Name:
		y, ok := b.(*Name)
		return ok && x.Expected == y.Expected && x.CaseSensitive == y.CaseSensitive && slices.Equal(x.Aliases, y.Aliases)
	case *Args:
		y, ok := b.(*Args)
		return ok && slices.Equal(x.Required, y.Required) && slices.Equal(x.Forbidden, y.Forbidden)
	case *Schema:
		y, ok := b.(*Schema)
		if !ok || x.ToolName != y.ToolName || len(x.ArgTypes) != len(y.ArgTypes) {
			return false
		}
		for k, v := range x.ArgTypes {
			if y.ArgTypes[k] != v {
				return false
			}
		}
		return slices.Equal(x.RequiredArgs, y.RequiredArgs) && slices.Equal(x.OptionalArgs, y.OptionalArgs) &&
			slices.Equal(x.ForbiddenArgs, y.ForbiddenArgs)
	}
	return false
}

func TestRegistered(t *testing.T) {
	cat := promptcanary.CategoryToolUse
	probetest.CheckRegistered(t, []probetest.Registered{
		{ID: "tool_call_presence", Name: "Tool Call Presence", Category: cat},
		{ID: "tool_call_name", Name: "Tool Call Name", Category: cat, Raw: map[string]any{"expected_name": "f"}},
		{ID: "tool_call_args", Name: "Tool Call Arguments", Category: cat, Raw: map[string]any{"required_args": []any{"q"}}},
		{ID: "tool_call_schema", Name: "Tool Call Schema", Category: cat, Raw: map[string]any{"schema": map[string]any{"name": "f"}}},
	})
	// The parameters in the order the documentation lists them.
	for id, want := range map[string][]string{
		"tool_call_presence": {"expect_tool_call", "strategy"},
		"tool_call_name":     {"expected_name", "case_sensitive", "allow_aliases"},
		"tool_call_args":     {"required_args", "forbidden_args"},
		"tool_call_schema":   {"schema"},
	} {
		typ, _ := probe.Lookup(id)
		var names []string
		for _, p := range typ.Params {
			names = append(names, p.Name)
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s params: got %v, want %v", id, names, want)
		}
	}
}

func TestParseArgType(t *testing.T) {
	tests := []struct {
		in   string
		want ArgType
		ok   bool
	}{
		{"string", TypeString, true}, {"str", TypeString, true},
		{"integer", TypeInteger, true}, {"int", TypeInteger, true},
		{"number", TypeNumber, true}, {"float", TypeNumber, true},
		{"boolean", TypeBoolean, true}, {"bool", TypeBoolean, true},
		{"array", TypeArray, true}, {"list", TypeArray, true},
		{"object", TypeObject, true}, {"dict", TypeObject, true},
		{"String", "", false}, {"null", "", false}, {"", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := ParseArgType(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("ParseArgType(%q): got %q, %v, want %q, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}
