package custom

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/env"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/jsonscan"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// CostLimit bounds the work of one evaluation of an expr probe, in CEL cost
// units (about one per operation, one per few bytes a string function
// reads). It leaves room for a few dozen passes over a 100 KB answer; an
// expression that goes past it (a comprehension nested over every
// character, say) stops with an error result instead of holding up a run.
const CostLimit = 1_000_000

// TimeLimit bounds the time of one evaluation of an expr probe: CEL's cost
// accounting does not bound the time of every comprehension over a long
// answer, so a clock does too.
const TimeLimit = time.Second

// DefaultPassScore is the score an expr probe whose expression returns a
// double needs to pass.
const DefaultPassScore = 1.0

// exprShown is how many characters of an expression the details quote when
// the probe has no description.
const exprShown = 80

// exprVars are the variables an expression sees, in the order the docs and
// hints list them.
var exprVars = []string{"content", "json", "tool_calls", "finish_reason",
	"prompt_tokens", "completion_tokens", "total_tokens", "latency_ms", "prompt"}

// exprEnv is the CEL environment every expr probe compiles in. A cel.Env is
// safe for concurrent use once built.
var exprEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewCustomEnv(
		// The standard library but its size(), declared below.
		cel.StdLib(cel.StdLibSubset(env.NewLibrarySubset().AddExcludedFunctions(&env.Function{Name: overloads.Size}))),
		sizeFunction,
		cel.Variable("content", cel.StringType),
		cel.Variable("json", cel.DynType),
		cel.Variable("tool_calls", cel.ListType(cel.MapType(cel.StringType, cel.DynType))),
		cel.Variable("finish_reason", cel.StringType),
		cel.Variable("prompt_tokens", cel.IntType),
		cel.Variable("completion_tokens", cel.IntType),
		cel.Variable("total_tokens", cel.IntType),
		cel.Variable("latency_ms", cel.DoubleType),
		cel.Variable("prompt", cel.MapType(cel.StringType, cel.DynType)),
		ext.Strings(),
		// The same overloads as ext.Strings' (same ids and signatures, so
		// the same cost estimates and tracking), with implementations that
		// do not convert the string to runes and back.
		cel.Function("lowerAscii", cel.MemberOverload("string_lower_ascii", []*cel.Type{cel.StringType}, cel.StringType,
			cel.UnaryBinding(func(s ref.Val) ref.Val { return types.String(caseASCII(string(s.(types.String)), false)) }))),
		cel.Function("upperAscii", cel.MemberOverload("string_upper_ascii", []*cel.Type{cel.StringType}, cel.StringType,
			cel.UnaryBinding(func(s ref.Val) ref.Val { return types.String(caseASCII(string(s.(types.String)), true)) }))),
		ext.Math(),
		cel.OptionalTypes(),
	)
})

// sizeFunction is the standard library's size(): the same overloads (same
// ids and signatures, so the same type checking and cost estimates), with
// size() of a string by runeCount instead of CEL's conversion of the whole
// string to runes. The standard library binds size() once for every type,
// which cannot be mixed with an overload of its own, so the environment
// leaves its size() out and declares this one whole.
var sizeFunction = func() cel.EnvOption {
	a, b := cel.TypeParamType("A"), cel.TypeParamType("B")
	list, dict := cel.ListType(a), cel.MapType(a, b)
	sizer := cel.UnaryBinding(sizerSize)
	str := cel.UnaryBinding(stringSize)
	return cel.Function(overloads.Size,
		cel.Overload(overloads.SizeBytes, []*cel.Type{cel.BytesType}, cel.IntType, sizer),
		cel.MemberOverload(overloads.SizeBytesInst, []*cel.Type{cel.BytesType}, cel.IntType, sizer),
		cel.Overload(overloads.SizeList, []*cel.Type{list}, cel.IntType, sizer),
		cel.MemberOverload(overloads.SizeListInst, []*cel.Type{list}, cel.IntType, sizer),
		cel.Overload(overloads.SizeMap, []*cel.Type{dict}, cel.IntType, sizer),
		cel.MemberOverload(overloads.SizeMapInst, []*cel.Type{dict}, cel.IntType, sizer),
		cel.Overload(overloads.SizeString, []*cel.Type{cel.StringType}, cel.IntType, str),
		cel.MemberOverload(overloads.SizeStringInst, []*cel.Type{cel.StringType}, cel.IntType, str))
}()

// sizerSize is size() of bytes, a list or a map, as the standard library's.
func sizerSize(v ref.Val) ref.Val {
	s, ok := v.(traits.Sizer)
	if !ok {
		return types.MaybeNoSuchOverloadErr(v)
	}
	return s.Size()
}

// stringSize is size() of a string: its number of code points.
func stringSize(s ref.Val) ref.Val {
	str, ok := s.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s)
	}
	return types.Int(runeCount(string(str)))
}

// runeCount is len([]rune(s)), as CEL counts a string's size: the ASCII
// prefix eight bytes at a time, the rest by utf8.RuneCountInString (which
// counts an invalid byte as one rune, as the conversion does).
func runeCount(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))&0x8080808080808080 != 0 {
			break
		}
	}
	return i + utf8.RuneCountInString(s[i:])
}

// caseASCII is ext.Strings' lowerAscii (upper false) or upperAscii (upper
// true) of s without its rune conversion: the ASCII letters of the other
// case changed, every other valid character kept, and each byte of an
// invalid sequence replaced by U+FFFD (as []rune(s) does). A valid s with
// no letter to change is returned as it is.
func caseASCII(s string, upper bool) string {
	lo, hi := byte('A'), byte('Z') // the letters to change
	if upper {
		lo, hi = 'a', 'z'
	}
	// The first eight bytes holding a letter to change, or the tail.
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if letters(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8)), lo, hi) != 0 {
			break
		}
	}
	if !utf8.ValidString(s) {
		b := make([]byte, 0, len(s)+2*utf8.UTFMax)
		for i := 0; i < len(s); {
			c := s[i]
			if c < utf8.RuneSelf {
				if c-lo <= hi-lo {
					c ^= 0x20
				}
				b = append(b, c)
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			b = utf8.AppendRune(b, r) // utf8.RuneError for an invalid byte
			i += size
		}
		return unsafe.String(unsafe.SliceData(b), len(b)) // b is never written again
	}
	if i+8 > len(s) {
		j := i
		for ; j < len(s) && s[j]-lo > hi-lo; j++ {
		}
		if j == len(s) {
			return s
		}
	}
	b := make([]byte, len(s))
	copy(b, s[:i])
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
		binary.LittleEndian.PutUint64(b[i:], w^letters(w, lo, hi)>>2)
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c-lo <= hi-lo {
			c ^= 0x20
		}
		b[i] = c
	}
	return unsafe.String(&b[0], len(b)) // b is never written again
}

// letters has the high bit set in each byte of w that is an ASCII
// character from lo to hi, and no other bit.
func letters(w uint64, lo, hi byte) uint64 {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	x := w &^ high // no byte carries into the next
	ge := x + ones*uint64(0x80-lo)
	gt := x + ones*uint64(0x7f-hi)
	return ge &^ gt &^ w & high
}

// Expr judges a response with a CEL expression (https://cel.dev) compiled
// once, when the suite is loaded. An expression that returns a bool passes
// with score 1 when true and fails with 0 when false; one that returns a
// double is the score, which must lie in [0,1], and passes when it is at
// least PassScore. An evaluation error (a missing key, a null json, the
// cost limit) fails with score 0 and the error in details.
//
// The expression sees these variables:
//
//	content            string  the answer text
//	json               dyn     the answer parsed as JSON once a surrounding
//	                           Markdown fence is removed (as json_validity
//	                           does); null when it is not JSON
//	tool_calls         list    one map per tool call: name (string),
//	                           arguments (the parsed arguments: {} when
//	                           there are none, null when they are not JSON)
//	                           and id (string)
//	finish_reason      string  as the provider reported it
//	prompt_tokens      int
//	completion_tokens  int
//	total_tokens       int
//	latency_ms         double
//	prompt             map     id (string), text (string), tags (list of
//	                           strings), messages (the conversation, the
//	                           text as its first user turn: a list of maps
//	                           with role, content, tool_calls as above,
//	                           tool_call_id and name)
//
// with CEL's standard functions, the string extensions (lowerAscii,
// upperAscii, trim, split, join, replace, indexOf, substring, format, …),
// the math extensions (math.least, math.greatest, math.abs, math.round, …)
// and optional values (json.?key.orValue(default)).
type Expr struct {
	source      string
	description string
	passScore   float64
	score       bool // the expression returns a double
	prg         cel.Program
	// untracked is prg without cost tracking, for an expression whose
	// cost CEL bounds below CostLimit on answers (and finish reasons) of
	// at most textBound bytes; nil when there is no such bound.
	untracked cel.Program
	textBound int
	// loops is set when the expression has a comprehension (exists, all,
	// map, filter, …): only then can an evaluation outlast TimeLimit
	// within CostLimit, and only then does it run under a deadline.
	loops bool
	// label is the expression's name in details; heldResult and
	// notHeldResult are the results of a bool verdict, made once and
	// shared.
	label                     string
	heldResult, notHeldResult probe.Result
}

var (
	_ probe.Probe            = (*Expr)(nil)
	_ interpreter.Activation = (*activation)(nil)
)

const exprDescription = "Judges the response with a CEL expression that returns a bool (pass/fail) or a score in [0,1]."

func init() {
	probe.Register(probe.Type{
		ID:          "expr",
		Name:        "CEL Expression",
		Category:    promptcanary.CategoryCustom,
		Description: exprDescription,
		Example: `probes:
  - type: expr
    id: cites_sources
    description: cites at least two sources, briefly
    expr: |
      math.least(1.0,
        double(content.split("[").size() - 1) / 2.0) *
      (completion_tokens <= 400 ? 1.0 : 0.5)
    pass_score: 0.75
`,
		Params: []probe.Param{
			{Name: "expr", Kind: probe.String, Required: true,
				Doc: `a CEL expression returning a bool or a score in [0,1], for example content.contains("Paris")`},
			{Name: "pass_score", Kind: probe.Float,
				Doc: "the score a double-valued expression needs to pass (default 1.0); not allowed with a bool expression"},
			{Name: "description", Kind: probe.String,
				Doc: "what the expression checks, in words, quoted in the details instead of the expression"},
		},
		New: newExpr,
	})
}

func newExpr(p probe.Params) (probe.Probe, error) { return compileExpr(p) }

// compileExpr builds an expr probe from checked parameters: it compiles
// the expression, checks that it returns a bool or a double, and builds
// its programs.
func compileExpr(p probe.Params) (*Expr, error) {
	e := &Expr{source: p.String("expr"), description: strings.TrimSpace(p.String("description")), passScore: DefaultPassScore}
	hasPassScore, errs := e.setOptions(p)
	if strings.TrimSpace(e.source) == "" {
		errs = append(errs, &probe.ParamError{Param: "expr", Msg: "must not be empty",
			Hint: `write a CEL expression, for example content.contains("Paris")`})
		return nil, errors.Join(errs...)
	}

	env, err := exprEnv()
	if err != nil { // unreachable: the declarations are constants
		return nil, fmt.Errorf("expr: build CEL environment: %w", err)
	}
	ast, iss := env.Compile(e.source)
	if iss.Err() != nil {
		for _, ce := range iss.Errors() {
			errs = append(errs, &probe.ParamError{Param: "expr",
				Msg:  fmt.Sprintf("line %d, column %d: %s", ce.Location.Line(), ce.Location.Column()+1, celMessage(ce.Message)),
				Hint: compileHint(ce.Message)})
		}
		return nil, errors.Join(errs...)
	}
	if err := e.setOutput(ast.OutputType(), hasPassScore); err != nil {
		errs = append(errs, err)
	}
	if err := e.setPrograms(env, ast); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	celast.PreOrderVisit(ast.NativeRep().Expr(), celast.NewExprVisitor(func(x celast.Expr) {
		if x.Kind() == celast.ComprehensionKind {
			e.loops = true
		}
	}))
	e.label = e.makeLabel()
	e.heldResult = probe.Result{Passed: true, Score: 1, Details: "Expression held: " + e.label + ".", Metadata: map[string]any{"result": true}}
	e.notHeldResult = probe.Result{Details: "Expression did not hold: " + e.label + ".", Metadata: map[string]any{"result": false}}
	return e, nil
}

// setOptions checks description and sets pass_score, and reports whether
// pass_score was given.
func (e *Expr) setOptions(p probe.Params) (hasPassScore bool, errs []error) {
	if p.Has("description") && e.description == "" {
		errs = append(errs, &probe.ParamError{Param: "description", Msg: "must not be empty",
			Hint: "say in words what the expression checks, or remove description"})
	}
	passScore, hasPassScore := p.Float("pass_score")
	if hasPassScore {
		if math.IsNaN(passScore) || passScore < 0 || passScore > 1 {
			errs = append(errs, &probe.ParamError{Param: "pass_score",
				Msg: fmt.Sprintf("out of range: got %v, allowed 0 to 1", passScore), Hint: "use a score from 0 to 1, for example 0.8"})
		} else {
			e.passScore = passScore
		}
	}
	return hasPassScore, errs
}

// setOutput checks the expression's output type out, a bool (then
// pass_score is refused) or a double (a score).
func (e *Expr) setOutput(out *cel.Type, hasPassScore bool) error {
	switch {
	case out.IsExactType(cel.BoolType):
		if hasPassScore {
			return &probe.ParamError{Param: "pass_score",
				Msg:  "applies only to an expression that returns a double; this one returns a bool",
				Hint: "remove pass_score, or make the expression return a score in [0,1]"}
		}
	case out.IsExactType(cel.DoubleType):
		e.score = true
	default:
		return &probe.ParamError{Param: "expr",
			Msg: fmt.Sprintf("must return a bool or a double, got %s", out), Hint: typeHint(out)}
	}
	return nil
}

// setPrograms builds the programs of the compiled expression ast: with
// its cost tracked when CEL cannot bound it below CostLimit, and then
// also untracked for answers up to the length that bounds it, if any.
func (e *Expr) setPrograms(env *cel.Env, ast *cel.Ast) error {
	opts := []cel.ProgramOption{cel.EvalOptions(cel.OptOptimize), cel.InterruptCheckFrequency(64)}
	tracked := opts
	if est, err := env.EstimateCost(ast, unknownSizes{}); err != nil || est.Max > CostLimit {
		// Only an expression whose cost CEL cannot bound below the limit
		// pays for tracking it as it runs; and when the bound only
		// depends on the length of the answer (a string function over
		// content, say), only on answers longer than the bound.
		tracked = append(tracked[:len(tracked):len(tracked)], cel.CostLimit(CostLimit))
		for _, n := range textBounds {
			if est, err := env.EstimateCost(ast, textSizes{n}); err == nil && est.Max <= CostLimit {
				e.textBound = int(n)
				break
			}
		}
	}
	prg, err := env.Program(ast, tracked...)
	if err == nil && e.textBound > 0 {
		e.untracked, err = env.Program(ast, opts...)
	}
	if err != nil {
		// OptOptimize compiles constant regular expressions here.
		return &probe.ParamError{Param: "expr", Msg: celMessage(err.Error()),
			Hint: "fix the pattern; matches() takes RE2 syntax (https://github.com/google/re2/wiki/Syntax)"}
	}
	e.prg = prg
	return nil
}

// textBounds are the answer lengths, in bytes, up to which an expression
// whose cost depends on them may run untracked, tried from the longest.
var textBounds = []uint64{1 << 20, 1 << 18, 1 << 16, 1 << 14, 1 << 12, 1 << 10}

// textSizes is a checker.CostEstimator that bounds the size of content and
// finish_reason by max (CEL measures a string's size in code points, at
// most its length in bytes) and knows nothing else.
type textSizes struct{ max uint64 }

func (t textSizes) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	if p := n.Path(); len(p) == 1 && (p[0] == "content" || p[0] == "finish_reason") {
		return &checker.SizeEstimate{Min: 0, Max: t.max}
	}
	return nil
}

func (textSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// unknownSizes is a checker.CostEstimator that knows nothing: the cost
// estimate of an expression then holds for answers of any size.
type unknownSizes struct{}

func (unknownSizes) EstimateSize(checker.AstNode) *checker.SizeEstimate { return nil }

func (unknownSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// celMessage drops what CEL adds for its own namespaces: " (in container ”)".
func celMessage(msg string) string {
	return strings.TrimSpace(strings.ReplaceAll(msg, " (in container '')", ""))
}

var undeclaredRE = regexp.MustCompile(`undeclared reference to '([^']*)'`)

// compileHint suggests a fix for a compile error.
func compileHint(msg string) string {
	if m := undeclaredRE.FindStringSubmatch(msg); m != nil {
		vars := "the variables are " + strings.Join(exprVars, ", ")
		if c := suggest.Closest(m[1], exprVars); c != "" {
			return "did you mean " + c + "? " + vars
		}
		return vars + `; quote text as "…"`
	}
	if strings.Contains(msg, "found no matching overload") {
		return "the types do not fit: convert with double(), int() or string(); json values are dyn, compare them or convert them"
	}
	return "see the CEL language definition: https://github.com/google/cel-spec/blob/master/doc/langdef.md"
}

// typeHint explains how to turn an expression of type t into a verdict.
func typeHint(t *cel.Type) string {
	switch {
	case t.IsExactType(cel.DynType):
		return "the type is known only at run time: convert or compare it, for example double(json.score) or json.ok == true"
	case t.IsExactType(cel.IntType), t.IsExactType(cel.UintType):
		return "compare it (completion_tokens < 300) or make it a double score (double(x) / 10.0)"
	}
	return `compare the value to something, for example content.size() > 0 or json.status == "ok"`
}

// Source returns the expression.
func (e *Expr) Source() string { return e.source }

// Evaluate runs the compiled expression on r. Metadata holds "result" (the
// bool or the score) and, for a double, "pass_score"; on an evaluation
// error, "error" instead of "result". The results of a bool verdict are
// shared. An expression with a comprehension stops when ctx ends, and
// after at most TimeLimit; one without runs without them: its cost limit
// bounds its time to far less, and it never checks for an interruption.
func (e *Expr) Evaluate(ctx context.Context, in probe.Input) probe.Result {
	act := activations.Get().(*activation)
	defer act.release()
	act.prompt, act.resp = in.OrEmpty()
	var (
		out ref.Val
		err error
	)
	prg := e.prg
	if e.untracked != nil && len(act.resp.Content) <= e.textBound && len(act.resp.FinishReason) <= e.textBound {
		prg = e.untracked
	}
	if e.loops {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, TimeLimit)
		defer cancel()
		out, _, err = prg.ContextEval(ctx, act)
	} else {
		out, _, err = prg.Eval(act)
	}
	if err != nil {
		msg := err.Error()
		switch {
		case strings.Contains(msg, "cost limit exceeded"):
			msg = fmt.Sprintf("%s (the limit is %d)", msg, CostLimit)
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			msg = fmt.Sprintf("evaluation took longer than %s: simplify the expression, or avoid comprehensions over every word of long answers", TimeLimit)
		case ctx.Err() != nil:
			msg = "stopped: the run was interrupted"
		}
		return e.failure(msg)
	}
	switch v := out.Value().(type) {
	case bool:
		if v {
			return e.heldResult
		}
		return e.notHeldResult
	case float64:
		if math.IsNaN(v) || v < 0 || v > 1 {
			return e.failure(fmt.Sprintf("score %v is outside [0,1]", v))
		}
		passed := v >= e.passScore
		verb := "passes"
		if !passed {
			verb = "fails"
		}
		// "Expression scored %.3g, which %s at >= %.3g: %s."
		return probe.Result{Passed: passed, Score: v,
			Details: "Expression scored " + strconv.FormatFloat(v, 'g', 3, 64) + ", which " + verb + " at >= " +
				strconv.FormatFloat(e.passScore, 'g', 3, 64) + ": " + e.label + ".",
			Metadata: map[string]any{"result": v, "pass_score": e.passScore}}
	}
	// unreachable: the output type was checked at load time
	return e.failure(fmt.Sprintf("returned %s, want a bool or a double", out.Type()))
}

// failure is the result of an expression that yielded no verdict.
func (e *Expr) failure(msg string) probe.Result {
	return probe.Result{Details: fmt.Sprintf("Expression could not be judged: %s: %s.", e.label, msg),
		Metadata: map[string]any{"error": msg}}
}

// makeLabel names the expression in details: its description, else its
// text on one line, cut to exprShown characters.
func (e *Expr) makeLabel() string {
	if e.description != "" {
		return e.description
	}
	s := strings.Join(strings.Fields(e.source), " ")
	if cut := text.Preview(s, exprShown); cut != s {
		s = cut + "…"
	}
	return s
}

// activation resolves the variables of one evaluation, converting each one
// the first time the expression reads it: an expression that never reads
// json parses no JSON.
type activation struct {
	prompt *promptcanary.Prompt
	resp   *promptcanary.Response

	content                    ref.Val
	json, toolCalls, promptMap any
	jsonDone, toolCallsDone    bool
}

// ResolveName implements interpreter.Activation.
func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "content":
		// Converted once: CEL would box the string and convert it to a
		// types.String at each reference.
		if a.content == nil {
			a.content = types.String(a.resp.Content)
		}
		return a.content, true
	case "json":
		if !a.jsonDone {
			// Decoded once per response, shared with the other probes
			// that read it as JSON; CEL does not modify it. An object not
			// decoded yet is decoded as the expression reads it.
			d := text.ParseJSON(text.StripFences(a.resp.Content))
			if k, _ := d.Kind(); k == jsonscan.Object && d.Narrow() && (!d.Decoded() || jsonMode == lazyJSON) && jsonMode != eagerJSON {
				a.json = &lazyObject{src: d.Src()}
			} else {
				a.json, _ = d.Value()
			}
			a.jsonDone = true
			d.Release()
		}
		return a.json, true
	case "tool_calls":
		if !a.toolCallsDone {
			a.toolCalls, a.toolCallsDone = toolCalls(a.resp.ToolCalls), true
		}
		return a.toolCalls, true
	case "finish_reason":
		return types.String(a.resp.FinishReason), true
	case "prompt_tokens":
		return types.Int(a.resp.PromptTokens), true
	case "completion_tokens":
		return types.Int(a.resp.CompletionTokens), true
	case "total_tokens":
		return types.Int(a.resp.TotalTokens), true
	case "latency_ms":
		return types.Double(a.resp.LatencyMS), true
	case "prompt":
		if a.promptMap == nil {
			tags := a.prompt.Tags
			if tags == nil {
				tags = []string{}
			}
			a.promptMap = map[string]any{"id": a.prompt.ID, "text": a.prompt.Text, "tags": tags, "messages": turns(a.prompt.Conversation())}
		}
		return a.promptMap, true
	}
	return nil, false
}

// Parent implements interpreter.Activation: there is none.
func (a *activation) Parent() interpreter.Activation { return nil }

// jsonMode is how json is handed to an expression; tests compare the lazy
// object with the decoded map.
var jsonMode = autoJSON

const (
	autoJSON  = iota // an object lazily unless another probe decoded it
	eagerJSON        // always decoded
	lazyJSON         // an object always lazily
)

// activations keeps activations for reuse.
var activations = sync.Pool{New: func() any { return new(activation) }}

// release clears a and gives it back for reuse.
func (a *activation) release() {
	*a = activation{}
	activations.Put(a)
}

// parseJSON returns s decoded as one JSON value, or nil when it is not.
func parseJSON(s string) any {
	v, _ := text.DecodeJSON(s) // as json.Unmarshal into an any
	return v
}

// turns converts conversation turns to CEL maps.
func turns(msgs []promptcanary.Message) []any {
	out := make([]any, len(msgs))
	for i, m := range msgs {
		out[i] = map[string]any{"role": m.Role, "content": m.Content, "tool_calls": toolCalls(m.ToolCalls),
			"tool_call_id": m.ToolCallID, "name": m.Name}
	}
	return out
}

// toolCalls converts tool calls to CEL maps.
func toolCalls(calls []promptcanary.ToolCall) []any {
	out := make([]any, len(calls))
	for i, c := range calls {
		var args any = map[string]any{}
		if len(c.Arguments) > 0 {
			args = parseJSON(string(c.Arguments))
		}
		out[i] = map[string]any{"name": c.Name, "arguments": args, "id": c.ID}
	}
	return out
}
