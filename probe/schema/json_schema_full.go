package schema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// Bounds on what a result carries: failures named in details, entries in
// each metadata list, and the preview of a response that is not JSON.
const (
	maxDetails   = 5
	maxListed    = 50
	previewChars = 200
	// maxDepth bounds the nesting of a JSON answer the probe validates:
	// the validator's cost grows with the square of the depth when every
	// level fails, and no real answer comes near it.
	maxDepth = 256
)

// Full validates a JSON response against a compiled JSON Schema.
//
// The score is the share of the schema's checks that hold: 1 − failed/total,
// where a check is one assertion keyword at one place in the schema (type,
// minimum, pattern, enum, …; each name of a required list; a false schema;
// anyOf, oneOf, not and contains as one check each) and it fails when some
// value of the answer violates it. The result passes when the answer is
// valid. An answer that is not JSON fails with score 0.
type Full struct {
	c     *compiled
	draft string
	// matches is the details of a valid answer.
	matches string
	// valid is the result of a valid answer, shared by all of them.
	valid probe.Result
	// fast validates answers when the schema uses only the keywords it
	// knows (see fast.go); nil leaves them all to the validator.
	fast *fastNode
	// badStart caches the error of an answer whose first character (after
	// white space) is a byte no JSON value starts with, by that byte; nil
	// caches nothing.
	badStart *[256]atomic.Pointer[notJSON]
	// noText makes fast check decoded answers only, for tests.
	noText bool
}

// notJSON is the error of an answer that is not JSON, and its details.
type notJSON struct {
	msg, details string
}

// notJSON returns the cached error of content when its first character
// decides it, building it the first time, and false when it does not.
func (f *Full) notJSON(content string) (*notJSON, bool) {
	c, ok := badStart(content)
	if !ok || f.badStart == nil {
		return nil, false
	}
	if ne := f.badStart[c].Load(); ne != nil {
		return ne, true
	}
	msg := "invalid character " + quoteChar(c) + " looking for beginning of value"
	ne := &notJSON{msg: msg, details: "Response is not valid JSON (" + msg + "), so the schema cannot be checked."}
	f.badStart[c].Store(ne)
	return ne, true
}

// badStart returns the first byte of s after JSON white space when no JSON
// value starts with it: the decoder then reports "invalid character …
// looking for beginning of value" for it, whatever follows.
func badStart(s string) (byte, bool) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[', '"', '-', 't', 'f', 'n', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return 0, false
		default:
			return c, true
		}
	}
	return 0, false
}

// quoteChar quotes a byte as encoding/json's syntax errors do: as the
// character whose code point is the byte.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

var (
	_ probe.Probe         = (*Full)(nil)
	_ probe.Fingerprinter = (*Full)(nil)
)

// Fingerprint identifies the schema's content, files included.
func (f *Full) Fingerprint() string { return f.c.fingerprint }

// description is the one-sentence description of the probe.
const description = "Validates a JSON response against a full JSON Schema (draft 2020-12 or 7) and scores the share of its checks that hold."

func init() {
	probe.Register(probe.Type{
		ID:          "json_schema_full",
		Name:        "JSON Schema (full)",
		Category:    promptcanary.CategoryFormat,
		Description: description,
		Example: `probes:
  - type: json_schema_full
    # The schema inline, or in a JSON file relative to canary.yaml:
    # schema_file: schemas/order.json (set one of the two).
    schema_file: # unset: the schema is inline
    schema:
      $schema: https://json-schema.org/draft/2020-12/schema
      type: object
      required: [id, items, total]
      properties:
        id: {type: string, pattern: "^ord-[0-9]+$"}
        items:
          type: array
          minItems: 1
          items: {$ref: "#/$defs/item"}
        total: {type: number, minimum: 0}
        email: {type: string, format: email}
      additionalProperties: false
      $defs:
        item:
          type: object
          required: [sku, qty]
          properties:
            sku: {type: string}
            qty: {type: integer, minimum: 1}
    assert_format: true
`,
		Params: []probe.Param{
			{Name: "schema", Kind: probe.Map,
				Doc: "the JSON Schema as a YAML mapping; its $schema picks the draft (default 2020-12); set this or schema_file"},
			{Name: "schema_file", Kind: probe.String,
				Doc: "a JSON file holding the schema, relative to the directory of canary.yaml; set this or schema"},
			{Name: "assert_format", Kind: probe.Bool, Default: false,
				Doc: "check format (email, date-time, uuid, …) in every draft; by default draft 7 checks it and 2020-12 only annotates"},
		},
		NewIn: func(p probe.Params, env probe.Env) (probe.Probe, error) {
			assert, _ := p.Bool("assert_format")
			return New(Config{Schema: p.Map("schema"), SchemaFile: p.String("schema_file"), Dir: env.Dir, AssertFormat: assert})
		},
	})
}

// New compiles cfg's schema into a probe. Its errors are *probe.ParamError.
func New(cfg Config) (*Full, error) {
	c, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	f := &Full{c: c, draft: draftName(c.schema.DraftVersion)}
	f.matches = fmt.Sprintf("Response matches the schema (%s, %s).", f.draft, plural(len(c.checks), "check"))
	f.valid = probe.Result{Passed: true, Score: 1, Details: f.matches,
		Metadata: map[string]any{
			"draft": f.draft, "checks": len(c.checks), "valid": true, "failed_checks": 0, "failure_count": 0,
			"failures": []string{}, "failing_pointers": []string{}, "failing_keywords": []string{},
		}}
	f.fast = newFast(c.schema, c.base, c.dir)
	f.badStart = new([256]atomic.Pointer[notJSON])
	return f, nil
}

// draftName names a draft as its specification does.
func draftName(v int) string {
	switch v {
	case 2019:
		return "2019-09"
	case 2020:
		return "2020-12"
	}
	return fmt.Sprintf("draft-%02d", v)
}

// Checks returns the number of checks the schema makes, the denominator of
// the score.
func (f *Full) Checks() int { return len(f.c.checks) }

// Evaluate validates the fence-stripped response. The metadata always holds
// "draft" and "checks" (the number of checks); for a JSON answer also
// "valid", "failed_checks", "failure_count" (violations, one check may fail
// at several places), "failures" ("POINTER: KEYWORD-LOCATION: message"),
// "failing_pointers" and "failing_keywords" (keyword locations, "#/…" in the
// root schema), each list sorted and cut at 50 entries; for an answer that
// is not JSON, or nests deeper than 256 levels, "error" and
// "raw_content_preview" instead, with score 0. The results of valid
// answers are one shared result.
func (f *Full) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	content := text.StripFences(r.Content)
	total := len(f.c.checks)
	// The decoded answer is shared with the other probes that read it as
	// JSON; the validator does not modify it. Only an answer that is not
	// JSON goes through the validator's decoder, for its error message.
	d := text.ParseJSON(content)
	if _, ok := d.Kind(); ok && !f.noText {
		// Most schemas are checked on the text, without decoding it.
		if fails, ok := f.fast.validateText(content); ok {
			d.Release()
			return f.failed(fails, total)
		}
	}
	doc, ok := d.NumberValue()
	depth := d.Depth()
	if !ok {
		// Most answers that are not JSON are prose, whose first character
		// decides the error: its message and details are made once.
		ne, cached := f.notJSON(content)
		if !cached {
			msg := decodeError(d.Err(), content).Error()
			ne = &notJSON{msg: msg, details: "Response is not valid JSON (" + msg + "), so the schema cannot be checked."}
		}
		d.Release()
		return probe.Result{Details: ne.details,
			Metadata: map[string]any{
				"draft":               f.draft,
				"checks":              total,
				"error":               ne.msg,
				"raw_content_preview": text.Preview(content, previewChars),
			}}
	}
	d.Release()
	if depth > maxDepth {
		return probe.Result{Details: fmt.Sprintf("Response nests JSON more than %d levels deep, deeper than this probe validates.", maxDepth),
			Metadata: map[string]any{
				"draft":               f.draft,
				"checks":              total,
				"error":               fmt.Sprintf("JSON nested more than %d levels deep", maxDepth),
				"raw_content_preview": text.Preview(content, previewChars),
			}}
	}
	fails, ok := f.fast.validate(doc)
	if !ok {
		if verr := f.c.schema.Validate(doc); verr != nil {
			fails = failures(verr)
		}
	}
	return f.failed(fails, total)
}

// failed is the result of an answer with fails (none: a valid answer),
// total being the number of checks.
func (f *Full) failed(fails []failure, total int) probe.Result {
	if len(fails) == 0 {
		return f.valid
	}
	keys := make([]string, len(fails))
	pointers := make([]string, len(fails))
	keywords := make([]string, len(fails))
	listed := make([]string, 0, min(len(fails), maxListed))
	for i, fl := range fails {
		loc := fl.short
		if loc == "" {
			loc = shortURL(fl.location, f.c.base, f.c.dir)
		}
		keys[i], pointers[i], keywords[i] = fl.key, fl.pointer, loc
		if len(listed) < maxListed {
			listed = append(listed, fl.pointer+": "+loc+": "+fl.message)
		}
	}
	failed := sortedSet(keys)
	// A failure the count did not foresee (a $dynamicRef resolved at run
	// time, say) still counts: the checks are those counted plus those
	// failed.
	for _, k := range failed {
		if _, ok := f.c.checks[k]; !ok {
			total++
		}
	}
	score := float64(total-len(failed)) / float64(total)
	return probe.Result{Score: score, Details: details(fails, len(failed), total),
		Metadata: map[string]any{
			"draft":            f.draft,
			"checks":           total,
			"valid":            false,
			"failed_checks":    len(failed),
			"failure_count":    len(fails),
			"failures":         listed,
			"failing_pointers": listedSet(pointers),
			"failing_keywords": listedSet(keywords),
		}}
}

// decodeError returns the error jsonschema.UnmarshalJSON reports for s,
// which is not JSON, from err, the error json.Unmarshal reports for it:
// the decoder of the validator reads one value from a stream, so a syntax
// error inside the value is the same, text after it has a message of its
// own, and the end of the input is an io error. FuzzDecodeError checks it
// against UnmarshalJSON.
func decodeError(err error, s string) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		_, err = jsonschema.UnmarshalJSON(strings.NewReader(s)) // unreachable
		return err
	}
	msg := se.Error()
	switch {
	case strings.HasSuffix(msg, " after top-level value"):
		return errors.New("invalid character after top-level value")
	case msg == "unexpected end of JSON input",
		// json.Unmarshal feeds a space after the input: the space it
		// complains of is past the end.
		strings.HasPrefix(msg, "invalid character ' '") && se.Offset == int64(len(s)) && s != "" && s[len(s)-1] != ' ':
		if strings.TrimLeft(s, " \t\r\n") == "" {
			return io.EOF
		}
		return io.ErrUnexpectedEOF
	}
	return err
}

// details names the first failures: "/items/0/qty: minimum (must be >= 1
// but found 0)".
func details(fails []failure, failed, total int) string {
	var b strings.Builder
	b.WriteString("Response fails ")
	b.WriteString(strconv.Itoa(failed))
	b.WriteString(" of ")
	b.WriteString(strconv.Itoa(total))
	b.WriteString(" schema checks: ")
	for i, fl := range fails {
		if i == maxDetails {
			b.WriteString("; and ")
			b.WriteString(strconv.Itoa(len(fails) - maxDetails))
			b.WriteString(" more")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(pointerOrRoot(fl.pointer))
		b.WriteByte(' ')
		b.WriteString(fl.keyword)
		b.WriteString(" (")
		b.WriteString(fl.message)
		b.WriteByte(')')
	}
	b.WriteString(".")
	return b.String()
}

// plural renders "1 check" or "3 checks".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// sortedSet sorts s and drops repeated strings, in place.
func sortedSet(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// listedSet is the distinct strings of s in order, at most maxListed
// (sorting s in place).
func listedSet(s []string) []string {
	s = sortedSet(s)
	return s[:min(len(s), maxListed):min(len(s), maxListed)]
}
