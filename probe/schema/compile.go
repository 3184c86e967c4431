package schema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/promptcanary/promptcanary/probe"
)

// Config says where a schema comes from and how to compile it.
type Config struct {
	// Schema is the schema document as decoded from YAML or JSON (a
	// mapping). Exactly one of Schema and SchemaFile is set.
	Schema map[string]any
	// SchemaFile is a JSON file holding the schema, resolved against Dir
	// unless it is absolute.
	SchemaFile string
	// Dir is the directory relative paths are resolved against, normally
	// the directory of canary.yaml; "" is the working directory.
	Dir string
	// AssertFormat makes `format` (email, date-time, …) an assertion in
	// every draft. Without it the draft decides: draft 7 and older assert
	// formats, 2019-09 and 2020-12 only annotate.
	AssertFormat bool
}

// inlineName is the file name an inline schema is known by: a relative
// $ref in it resolves beside canary.yaml.
const inlineName = "inline-schema.json"

// errRemote is the loader's answer to any URL that is not a local file.
var errRemote = errors.New("not a local file")

// localLoader loads file: URLs and refuses every other scheme, so that
// compiling a schema never touches the network. It remembers what it
// loaded, for the schema's fingerprint.
type localLoader struct {
	loaded map[string]any
}

func (l *localLoader) Load(u string) (any, error) {
	if !strings.HasPrefix(u, "file://") {
		return nil, errRemote
	}
	doc, err := jsonschema.FileLoader{}.Load(u)
	if err == nil {
		l.loaded[u] = doc
	}
	return doc, err
}

// fingerprint hashes the content of every document the schema is made of
// (not where they are, so the same suite hashes alike on every machine),
// so that a changed schema file changes the suite's prompt hashes.
func fingerprint(root any, loaded map[string]any) string {
	sum := func(doc any) string {
		data, _ := json.Marshal(doc) // decoded JSON always encodes; map keys are sorted
		s := sha256.Sum256(data)
		return hex.EncodeToString(s[:])
	}
	parts := []string{sum(root)}
	var refs []string
	for _, doc := range loaded {
		refs = append(refs, sum(doc))
	}
	slices.Sort(refs)
	s := sha256.Sum256([]byte(strings.Join(append(parts, refs...), "\n")))
	return hex.EncodeToString(s[:])
}

// compiled is the outcome of compiling a Config.
type compiled struct {
	schema *jsonschema.Schema
	// base is the URL of the root document, the prefix of the locations
	// shown as "#/…".
	base string
	// dir is the absolute directory other local documents are shown
	// relative to.
	dir    string
	checks map[string]struct{}
	// fingerprint identifies the schema's content (see fingerprint).
	fingerprint string
}

// compile loads and compiles cfg's schema. Its errors are *probe.ParamError
// naming schema (or the node of an inline schema at fault) or schema_file.
func compile(cfg Config) (*compiled, error) {
	hasInline, hasFile := cfg.Schema != nil, cfg.SchemaFile != ""
	switch {
	case hasInline && hasFile:
		return nil, &probe.ParamError{Param: "schema_file", Msg: "schema and schema_file are both set",
			Hint: "keep one: the schema inline under schema:, or the path of its JSON file in schema_file:"}
	case !hasInline && !hasFile:
		return nil, &probe.ParamError{Msg: "no schema: set schema: or schema_file:",
			Hint: "for example schema: {type: object, required: [id]}, or schema_file: schemas/order.json (relative to canary.yaml)"}
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, &probe.ParamError{Param: "schema_file", Msg: fmt.Sprintf("resolve directory %q: %v", cfg.Dir, err)}
	}
	param := "schema"
	var doc any
	var path string
	if hasInline {
		path = filepath.Join(dir, inlineName)
		if doc, err = jsonValue(cfg.Schema); err != nil {
			return nil, &probe.ParamError{Param: param, Msg: "schema is not plain data: " + err.Error(),
				Hint: "write the schema with mappings, lists, strings, numbers, booleans and null"}
		}
	} else {
		param = "schema_file"
		path = cfg.SchemaFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if doc, err = readJSON(path); err != nil {
			return nil, &probe.ParamError{Param: param, Msg: fmt.Sprintf("schema file %q: %v", cfg.SchemaFile, err),
				Hint: "schema_file is a JSON file, relative to the directory of canary.yaml (" + dir + ")"}
		}
	}

	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if cfg.AssertFormat {
		c.AssertFormat()
	}
	loader := &localLoader{loaded: map[string]any{}}
	c.UseLoader(loader)
	if err := c.AddResource(path, doc); err != nil {
		return nil, &probe.ParamError{Param: param, Msg: "schema does not compile: " + err.Error()}
	}
	sch, err := c.Compile(path)
	base := "file://" + filepath.ToSlash(path)
	if err != nil {
		return nil, compileError(err, param, hasInline, doc, base, dir)
	}
	checks := countChecks(sch)
	if len(checks) == 0 {
		return nil, &probe.ParamError{Param: param, Msg: "nothing to check: the schema makes no assertion",
			Hint: "add what the answer must satisfy, for example type: object and required: [id]; to check only that the answer is JSON, use json_validity"}
	}
	return &compiled{schema: sch, base: base, dir: dir, checks: checks, fingerprint: fingerprint(doc, loader.loaded)}, nil
}

// jsonValue turns a decoded YAML value into the JSON value the validator
// expects (numbers as json.Number), by a round trip through JSON.
func jsonValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// readJSON reads one JSON document from path; a syntax error names its
// line and column.
func readJSON(path string) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			return nil, fmt.Errorf("not JSON: line %d, column %d: %v", line, col, err)
		}
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	return doc, nil
}

// lineCol returns the 1-based line and column of the byte at offset off
// (json.SyntaxError.Offset counts the bytes read, so the byte at fault is
// the off-th).
func lineCol(data []byte, off int64) (line, col int) {
	off = min(max(off-1, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}

// compileError turns a compiler error into a *probe.ParamError with a hint.
// For an inline schema the parameter names the node at fault when the
// error says where it is, so that its line is reported.
func compileError(err error, param string, inline bool, doc any, base, dir string) error {
	at := func(loc string) string {
		if !inline {
			return param
		}
		return paramPath(param, doc, fragmentTokens(loc, base))
	}
	var le *jsonschema.LoadURLError
	var sv *jsonschema.SchemaValidationError
	var re *jsonschema.InvalidRegexError
	var an *jsonschema.AnchorNotFoundError
	var pn *jsonschema.JSONPointerNotFoundError
	var ud *jsonschema.UnsupportedDraftError
	switch {
	case errors.As(err, &le) && errors.Is(le.Err, errRemote):
		if m, ok := doc.(map[string]any); ok && sameDoc(fmt.Sprint(m["$schema"]), le.URL) {
			return &probe.ParamError{Param: at(base + "#/$schema"),
				Msg:  fmt.Sprintf("$schema %q is not a known draft, and its metaschema is not fetched over the network", le.URL),
				Hint: "use https://json-schema.org/draft/2020-12/schema or http://json-schema.org/draft-07/schema#"}
		}
		refAt := param
		if toks := findRef(doc, le.URL); inline && toks != nil {
			refAt = paramPath(param, doc, toks)
		}
		return &probe.ParamError{Param: refAt,
			Msg:  fmt.Sprintf("$ref to %q refused: json_schema_full never fetches anything over the network", le.URL),
			Hint: `copy the referenced schema under $defs and refer to it as "#/$defs/NAME", or save it in a local file and $ref its relative path`}
	case errors.As(err, &le):
		return &probe.ParamError{Param: param,
			Msg:  fmt.Sprintf("$ref to %q: %v", shortURL(le.URL, base, dir), unwrapPath(le.Err)),
			Hint: "a relative $ref is resolved against the file that holds it (an inline schema: the directory of canary.yaml)"}
	case errors.As(err, &sv):
		return schemaInvalid(sv, param, at, base)
	case errors.As(err, &re):
		return &probe.ParamError{Param: at(re.URL),
			Msg:  fmt.Sprintf("invalid pattern %q: %v", re.Regex, re.Err),
			Hint: "patterns use Go's RE2 syntax: no lookahead, lookbehind or backreferences"}
	case errors.As(err, &an):
		return &probe.ParamError{Param: param,
			Msg:  fmt.Sprintf("$ref %q names an anchor the schema does not define", shortURL(an.Reference, base, dir)),
			Hint: `define it with "$anchor", or refer to a JSON pointer such as "#/$defs/address"`}
	case errors.As(err, &pn):
		return &probe.ParamError{Param: param,
			Msg:  fmt.Sprintf("$ref %q points at nothing in the schema", shortURL(pn.URL, base, dir)),
			Hint: `a local $ref is a JSON pointer into the document, such as "#/$defs/address"`}
	case errors.As(err, &ud):
		return &probe.ParamError{Param: at(base + "#/$schema"),
			Msg:  fmt.Sprintf("$schema %q is not a supported draft", ud.URL),
			Hint: "use https://json-schema.org/draft/2020-12/schema or http://json-schema.org/draft-07/schema#"}
	}
	return &probe.ParamError{Param: param, Msg: "schema does not compile: " + shortMsg(err.Error(), base, dir),
		Hint: "check the schema against the JSON Schema specification of its draft"}
}

// schemaInvalid reports a schema that its metaschema rejects: the first
// few leaf errors, each at its location in the schema.
func schemaInvalid(sv *jsonschema.SchemaValidationError, param string, at func(string) string, base string) error {
	var ve *jsonschema.ValidationError
	if !errors.As(sv.Err, &ve) {
		return &probe.ParamError{Param: param, Msg: "not a valid JSON Schema: " + sv.Err.Error(),
			Hint: "check the schema against the JSON Schema specification of its draft"}
	}
	var leaves []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(leaves) == 0 {
		leaves = []*jsonschema.ValidationError{ve}
	}
	parts := make([]string, 0, 3)
	for i, l := range leaves {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(leaves)-3))
			break
		}
		parts = append(parts, fmt.Sprintf("at %s: %s", pointerOrRoot(pointer(l.InstanceLocation)), message(l.ErrorKind)))
	}
	loc := base + "#" + pointer(leaves[0].InstanceLocation)
	return &probe.ParamError{Param: at(loc), Msg: "not a valid JSON Schema: " + strings.Join(parts, "; "),
		Hint: "check the keyword's value against the JSON Schema specification of the schema's draft"}
}

// findRef returns the pointer tokens of the first "$ref" in doc whose
// value names the document u (with or without a fragment), or nil.
func findRef(doc any, u string) []string {
	switch v := doc.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			if d, _, _ := strings.Cut(ref, "#"); d == u {
				return []string{"$ref"}
			}
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if t := findRef(v[k], u); t != nil {
				return append([]string{k}, t...)
			}
		}
	case []any:
		for i, e := range v {
			if t := findRef(e, u); t != nil {
				return append([]string{strconv.Itoa(i)}, t...)
			}
		}
	}
	return nil
}

// sameDoc reports whether two URLs name the same document (ignoring an
// empty or "#" fragment).
func sameDoc(a, b string) bool {
	return strings.TrimSuffix(a, "#") == strings.TrimSuffix(b, "#")
}

// fragmentTokens returns the JSON pointer tokens of loc's fragment when loc
// is in the document at base, else nil.
func fragmentTokens(loc, base string) []string {
	rest, ok := strings.CutPrefix(loc, base+"#")
	if !ok || rest == "" {
		return nil
	}
	var toks []string
	for _, t := range strings.Split(strings.TrimPrefix(rest, "/"), "/") {
		if u, err := url.PathUnescape(t); err == nil {
			t = u
		}
		toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
	}
	return toks
}

// paramPath turns pointer tokens into the parameter path suite uses to find
// a node's line ("schema.properties.age" or "schema.required[1]"), walking
// doc to tell list indexes from keys. It stops at a token the path syntax
// cannot carry.
func paramPath(param string, doc any, toks []string) string {
	var b strings.Builder
	b.WriteString(param)
	cur := doc
	for _, t := range toks {
		switch v := cur.(type) {
		case map[string]any:
			if strings.ContainsAny(t, ".[]") || t == "" {
				return b.String()
			}
			next, ok := v[t]
			if !ok {
				return b.String()
			}
			b.WriteString("." + t)
			cur = next
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(v) {
				return b.String()
			}
			b.WriteString("[" + t + "]")
			cur = v[i]
		default:
			return b.String()
		}
	}
	return b.String()
}

// shortURL shows a location in the root document as "#/…", one in another
// local file relative to dir, and any other URL unchanged.
func shortURL(u, base, dir string) string {
	if rest, ok := strings.CutPrefix(u, base); ok && (rest == "" || rest[0] == '#') {
		if rest == "" {
			rest = "#"
		}
		if s, err := url.PathUnescape(rest); err == nil {
			return s
		}
		return rest
	}
	if p, ok := strings.CutPrefix(u, "file://"); ok {
		if rel, err := filepath.Rel(dir, filepath.FromSlash(p)); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return u
}

// shortMsg replaces the root document's URL in a message by "#" so that
// messages do not carry absolute paths.
func shortMsg(msg, base, dir string) string {
	msg = strings.ReplaceAll(msg, base, "")
	return strings.ReplaceAll(msg, "file://"+filepath.ToSlash(dir)+"/", "")
}

// unwrapPath drops the *fs.PathError wrapping a file's absolute path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
