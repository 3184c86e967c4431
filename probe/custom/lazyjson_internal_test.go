package custom

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// lazyExprs read json in every way CEL can: members by name, presence,
// comparison, iteration, size, conversion and nesting.
var lazyExprs = []string{
	`json != null`, `json == null`, `json.name == "Ada"`, `json.?name.orValue("") != ""`, `has(json.name)`,
	`"name" in json`, `json["name"] == "Ada"`, `type(json) == map`, `size(json) > 1`, `json.size() == 2`,
	`json.all(k, k != "")`, `json.exists(k, json[k] == 1.0)`, `json == {"a": 1.0}`, `json != {}`,
	`json.?a.?b.orValue(0.0) > 0.0`, `json.items.size() > 1`, `json.name.startsWith("A")`, `string(json) == ""`,
	`dyn(json) == dyn(json)`, `json.a.b == 2.0`, `has(json.a.b)`, `!json.?missing.hasValue()`, `[json].size() == 1`,
	`{"k": json}.k == json`, `json.exists(k, k == "a" && json[k] != null)`, `json.map(k, k).size() >= 0`,
	`json.?items[0].orValue(0.0) == 1.0`, `json.items[1] == "x"`, `json[1] == 2`, `json.?name.orValue(1) == 1`,
	`int(json.n) > 2`, `double(json.?n.orValue(0.0)) * 2.0 < 10.0`,
}

var lazySeeds = []string{
	`{"name": "Ada", "a": 1}`, `{"a": {"b": 2}, "items": [1, "x", null]}`, `{}`, `{"a": 1, "a": 2}`,
	`{"name": "A\u00e9", "n": 3.5}`, `{"n": 1e400}`, `{"n": 12345678901234567890123}`, "```json\n{\"name\": \"Bo\"}\n```",
	`[1, 2]`, `"s"`, `null`, `not json`, `{"name": null}`, `{"items": []}`, `{"a": {"b": "2"}, "name": 7}`,
	`{"x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, `{"\u006eame": "Ada"}`, `{"n": -0, "m": 1E2}`,
}

// FuzzLazyJSON checks that every expression judges an answer the same with
// the lazy object as with the decoded map.
func FuzzLazyJSON(f *testing.F) {
	for _, s := range lazySeeds {
		f.Add(s)
	}
	var exprs []*Expr
	for _, src := range lazyExprs {
		e, err := compileExpr(probe.Params{"expr": src})
		if err != nil {
			f.Fatalf("%s: %v", src, err)
		}
		exprs = append(exprs, e)
	}
	f.Fuzz(func(t *testing.T, content string) {
		r := &promptcanary.Response{Content: content}
		for i, e := range exprs {
			jsonMode = lazyJSON
			lazy := e.Evaluate(context.Background(), probe.Input{Prompt: &promptcanary.Prompt{}, Response: r})
			jsonMode = eagerJSON
			eager := e.Evaluate(context.Background(), probe.Input{Prompt: &promptcanary.Prompt{}, Response: r})
			jsonMode = autoJSON
			if !reflect.DeepEqual(lazy, eager) {
				t.Fatalf("%s on %q:\nlazy    %s\ndecoded %s", lazyExprs[i], content, show(lazy), show(eager))
			}
		}
	})
}

func show(v any) string { return strings.ReplaceAll(fmt.Sprintf("%+v", v), "\n", " ") }
