package custom

import (
	"context"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/ext"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
)

// libraryCase evaluates s.lowerAscii() or s.upperAscii() with ext.Strings'
// own implementation: the reference caseASCII must agree with.
func libraryCase(tb testing.TB) func(s string, upper bool) string {
	tb.Helper()
	env, err := cel.NewEnv(cel.Variable("s", cel.StringType), ext.Strings())
	if err != nil {
		tb.Fatal(err)
	}
	var prgs [2]cel.Program
	for i, src := range []string{"s.lowerAscii()", "s.upperAscii()"} {
		ast, iss := env.Compile(src)
		if iss.Err() != nil {
			tb.Fatal(iss.Err())
		}
		if prgs[i], err = env.Program(ast); err != nil {
			tb.Fatal(err)
		}
	}
	return func(s string, upper bool) string {
		i := 0
		if upper {
			i = 1
		}
		out, _, err := prgs[i].Eval(map[string]any{"s": s})
		if err != nil {
			tb.Fatal(err)
		}
		return out.Value().(string)
	}
}

var caseSeeds = []string{
	"", "a", "Z", "@[`{", "As An AI, I CANNOT", "already lower case text, long enough for words",
	"TacoCÆt Xii", "ÀÉÎ mixed ÄSCII and Ünïcödé 123 ABC xyz",
	"invalid \xff\xfe bytes AND Upper", "\xc3", "tail\xe2\x82", "ABCDEFGH\x80ijklmnop",
	"日本語 テキスト WITH ascii", strings.Repeat("MiXeD cAsE ", 20),
}

// TestCaseASCII checks that a string with nothing to change comes back
// as itself, not copied; FuzzCaseASCII checks lowerAscii and upperAscii
// against ext.Strings on the seeds.
func TestCaseASCII(t *testing.T) {
	s := "nothing to lower here, ünïcödé included"
	if got := caseASCII(s, false); got != s {
		t.Errorf("caseASCII(%q): got %q", s, got)
	}
	if n := testing.AllocsPerRun(10, func() { caseASCII(s, false) }); n != 0 {
		t.Errorf("caseASCII of a string with nothing to change: %v allocations, want 0", n)
	}
}

// FuzzCaseASCII checks caseASCII against ext.Strings' lowerAscii and
// upperAscii on arbitrary strings, valid UTF-8 or not.
func FuzzCaseASCII(f *testing.F) {
	for _, s := range caseSeeds {
		f.Add(s)
	}
	ref := libraryCase(f)
	f.Fuzz(func(t *testing.T, s string) {
		for _, upper := range []bool{false, true} {
			if got, want := caseASCII(s, upper), ref(s, upper); got != want {
				t.Fatalf("caseASCII(%q, %v): got %q, want %q", s, upper, got, want)
			}
		}
	})
}

// TestExprTextBound checks which expressions run untracked on answers of
// a bounded length, and that CEL's estimate holds there: the tracked
// program, run on an answer (and a finish reason) of the bound's length,
// costs no more than CostLimit.
func TestExprTextBound(t *testing.T) {
	cases := []struct {
		expr  string
		bound int
	}{
		{`content.size() < 4000 && !content.lowerAscii().contains("as an ai") && completion_tokens <= 400`, 1 << 18},
		{`content.matches("(?i)\\bstep\\s+\\d") && finish_reason.upperAscii() == "STOP"`, 1 << 18},
		{`content.split(" ").size() > 3`, 1 << 18},
		{`content.lowerAscii().replace("a", "bb").upperAscii().contains(finish_reason)`, 1 << 12},
		{`content.split("").all(a, !content.contains(a + "!!"))`, 0}, // quadratic
		{`json.?text.orValue("").lowerAscii().contains("x")`, 0},     // json's size is unknown
		{`completion_tokens < 10`, 0},                                // bounded: never tracked
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			e, err := compileExpr(probe.Params{"expr": c.expr})
			if err != nil {
				t.Fatal(err)
			}
			if e.textBound != c.bound || (e.untracked != nil) != (c.bound > 0) {
				t.Fatalf("text bound %d (untracked program %v), want %d", e.textBound, e.untracked != nil, c.bound)
			}
			if c.bound == 0 {
				return
			}
			for _, unit := range []string{"a", "A b", "é", "\xff"} {
				long := strings.Repeat(unit, c.bound/len(unit))
				act := &activation{prompt: &promptcanary.Prompt{}, resp: &promptcanary.Response{Content: long, FinishReason: long}}
				_, det, err := e.prg.Eval(act)
				if err != nil && strings.Contains(err.Error(), "cost limit") {
					t.Fatalf("%q × %d: %v", unit, c.bound/len(unit), err)
				}
				if cost := det.ActualCost(); cost == nil || *cost > CostLimit {
					t.Fatalf("%q × %d: actual cost %v, above the limit %d", unit, c.bound/len(unit), cost, CostLimit)
				}
			}
		})
	}
}

// TestStringSize checks that size() of a string is the program's own
// overload and counts code points as CEL does (len([]rune(s))).
func TestStringSize(t *testing.T) {
	for _, s := range caseSeeds {
		if got, want := runeCount(s), len([]rune(s)); got != want {
			t.Errorf("runeCount(%q) = %d, want %d", s, got, want)
		}
	}
	e, err := compileExpr(probe.Params{"expr": `content.size() == 6 && size(content) == 6`})
	if err != nil {
		t.Fatal(err)
	}
	res := e.Evaluate(context.Background(), probe.Input{Prompt: &promptcanary.Prompt{}, Response: &promptcanary.Response{Content: "ab\xffé\xe2\x82"}})
	if !res.Passed {
		t.Errorf("size of 6 code points (the bytes of a cut sequence count one each): %+v", res)
	}
	// size() of a string is bound to its own overloads (the standard
	// library's is one binding for every type), and the other types keep
	// theirs.
	env, err := exprEnv()
	if err != nil {
		t.Fatal(err)
	}
	bindings, err := env.Functions()[overloads.Size].Bindings()
	if err != nil {
		t.Fatal(err)
	}
	bound := map[string]bool{}
	for _, o := range bindings {
		bound[o.Operator] = o.Unary != nil
	}
	for _, id := range []string{overloads.SizeString, overloads.SizeStringInst} {
		if !bound[id] {
			t.Errorf("size() overload %s has no binding of its own: %v", id, bound)
		}
	}
	e, err = compileExpr(probe.Params{"expr": `size(b'ab') == 2 && b'abc'.size() == 3 && size([1]) == 1 && [1, 2].size() == 2 && ` +
		`size({'a': 1}) == 1 && {'a': 1, 'b': 2}.size() == 2 && json.size() == 2 && size(json.k) == 3`})
	if err != nil {
		t.Fatal(err)
	}
	if res := e.Evaluate(context.Background(), probe.Input{Prompt: &promptcanary.Prompt{}, Response: &promptcanary.Response{Content: `{"k": "abc", "l": 1}`}}); !res.Passed {
		t.Errorf("size() of bytes, lists, maps and dyn values: %+v", res)
	}
}

// FuzzRuneCount checks runeCount against len([]rune(s)).
func FuzzRuneCount(f *testing.F) {
	for _, s := range caseSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := runeCount(s), len([]rune(s)); got != want {
			t.Fatalf("runeCount(%q) = %d, want %d", s, got, want)
		}
	})
}
