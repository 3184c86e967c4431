package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/provider/internal/setting"
)

// Placeholders lists the names a body template or URL may reference as
// {{name}}.
var Placeholders = []string{"prompt", "system", "prompt_id", "sample", "temperature", "max_tokens", "seed", "messages", "response_format"}

// placeholderRE matches {{name}}, allowing spaces inside the braces.
var placeholderRE = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// slot identifies one placeholder; 0 is no placeholder.
type slot uint8

const (
	slotNone slot = iota
	slotPrompt
	slotSystem
	slotPromptID
	slotSample
	slotTemperature
	slotMaxTokens
	slotSeed
	slotMessages
	slotFormat
)

func slotOf(name string) slot {
	switch name {
	case "prompt":
		return slotPrompt
	case "system":
		return slotSystem
	case "prompt_id":
		return slotPromptID
	case "sample":
		return slotSample
	case "temperature":
		return slotTemperature
	case "max_tokens":
		return slotMaxTokens
	case "seed":
		return slotSeed
	case "messages":
		return slotMessages
	case "response_format":
		return slotFormat
	}
	return slotNone
}

// vars are the values of one call.
type vars struct {
	prompt, system, promptID string
	sample, maxTokens        int
	temperature              float64
	seed                     *int64
	// messages is the conversation ({{messages}}), format the response
	// format ({{response_format}}), nil for none.
	messages []promptcanary.Message
	format   *promptcanary.ResponseFormat
}

// varsOf returns the values of a call for req. {{prompt}} is the last
// user turn, which is the prompt's text unless it is a conversation.
func varsOf(req *provider.Request) vars {
	p := req.Prompt
	v := vars{
		prompt:      p.Text,
		system:      p.SystemPrompt,
		promptID:    p.ID,
		sample:      req.Sample,
		temperature: req.Config.Temperature,
		maxTokens:   req.Config.MaxTokens,
		seed:        req.Config.Seed,
		messages:    p.Conversation(),
		format:      p.ResponseFormat,
	}
	for i := len(v.messages) - 1; i >= 0; i-- {
		if v.messages[i].Role == promptcanary.RoleUser {
			v.prompt = v.messages[i].Content
			break
		}
	}
	return v
}

// appendValue appends x as JSON: the conversation or the response format.
// Both are plain data (strings and decoded JSON), which always encodes.
func appendValue(b []byte, x any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return append(b, "null"...)
	}
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// appendText appends the text of placeholder s to b, unescaped.
func (v *vars) appendText(b []byte, s slot) []byte {
	switch s {
	case slotPrompt:
		return append(b, v.prompt...)
	case slotSystem:
		return append(b, v.system...)
	case slotPromptID:
		return append(b, v.promptID...)
	case slotSample:
		return strconv.AppendInt(b, int64(v.sample), 10)
	case slotTemperature:
		return appendFloat(b, v.temperature)
	case slotMaxTokens:
		return strconv.AppendInt(b, int64(v.maxTokens), 10)
	case slotSeed:
		if v.seed != nil {
			return strconv.AppendInt(b, *v.seed, 10)
		}
	case slotMessages:
		return appendValue(b, v.messages)
	case slotFormat:
		if v.format != nil {
			return appendValue(b, v.format)
		}
	}
	return b
}

// appendJSON appends placeholder s as a whole JSON value: a number for the
// numeric placeholders (null for an unset seed), a string otherwise.
func (v *vars) appendJSON(b []byte, s slot) []byte {
	switch s {
	case slotPrompt:
		return appendString(b, v.prompt)
	case slotSystem:
		return appendString(b, v.system)
	case slotPromptID:
		return appendString(b, v.promptID)
	case slotSeed:
		if v.seed == nil {
			return append(b, "null"...)
		}
	case slotTemperature:
		if math.IsNaN(v.temperature) || math.IsInf(v.temperature, 0) {
			return append(b, "null"...)
		}
	case slotMessages:
		if v.messages == nil {
			return append(b, "[]"...)
		}
	case slotFormat:
		if v.format == nil {
			return append(b, "null"...)
		}
	}
	return v.appendText(b, s)
}

// appendFloat formats f like encoding/json does.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b
	}
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.AppendFloat(b, f, 'e', -1, 64)
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64)
}

// part is a literal run of text or one placeholder.
type part struct {
	lit  string
	slot slot
}

// parseParts splits s into literal text and placeholders. Unknown
// placeholder names are errors with a did-you-mean hint.
func parseParts(s string) ([]part, error) {
	locs := placeholderRE.FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		return []part{{lit: s}}, nil
	}
	var (
		parts []part
		errs  []error
		prev  int
	)
	for _, loc := range locs {
		name := s[loc[2]:loc[3]]
		sl := slotOf(name)
		if sl == slotNone {
			hint := ""
			if c := suggest.Closest(name, Placeholders); c != "" {
				hint = " (did you mean {{" + c + "}}?)"
			}
			errs = append(errs, fmt.Errorf("unknown placeholder {{%s}}%s; known: {{%s}}", name, hint, strings.Join(Placeholders, "}}, {{")))
			continue
		}
		if loc[0] > prev {
			parts = append(parts, part{lit: s[prev:loc[0]]})
		}
		parts = append(parts, part{slot: sl})
		prev = loc[1]
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if prev < len(s) {
		parts = append(parts, part{lit: s[prev:]})
	}
	return parts, nil
}

// nodeKind says what a template node is.
type nodeKind uint8

const (
	kindRaw    nodeKind = iota // pre-encoded JSON without placeholders
	kindString                 // a string with placeholders
	kindExact                  // a string that is exactly one placeholder
	kindObject
	kindArray
)

// node is one compiled value of a body template. Values without
// placeholders are encoded once, at compile time.
type node struct {
	kind  nodeKind
	raw   []byte   // kindRaw
	parts []part   // kindString
	slot  slot     // kindExact
	keys  []string // kindObject, sorted
	ekeys [][]byte // kindObject: encoded keys
	elems []*node  // kindObject values, kindArray elements
}

// template is a compiled JSON body template.
type template struct {
	root *node
}

// compileTemplate compiles body (any JSON-encodable value) into a
// template. The value is first normalised through encoding/json, so any
// structure that encodes to JSON works, not only decoded YAML.
func compileTemplate(body any) (*template, error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	var errs []error
	root := compileNode(v, "body", &errs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &template{root: root}, nil
}

func compileNode(v any, where string, errs *[]error) *node {
	switch v := v.(type) {
	case string:
		parts, err := parseParts(v)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("%s: %w", where, err))
			return nil
		}
		switch {
		case len(parts) == 1 && parts[0].slot != slotNone:
			return &node{kind: kindExact, slot: parts[0].slot}
		case len(parts) == 1:
			return &node{kind: kindRaw, raw: appendString(nil, v)}
		}
		return &node{kind: kindString, parts: parts}
	case map[string]any:
		n := &node{kind: kindObject, keys: slices.Sorted(maps.Keys(v))}
		for _, k := range n.keys {
			n.ekeys = append(n.ekeys, appendString(nil, k))
			n.elems = append(n.elems, compileNode(v[k], where+"."+k, errs))
		}
		return n
	case []any:
		n := &node{kind: kindArray}
		for i, e := range v {
			n.elems = append(n.elems, compileNode(e, fmt.Sprintf("%s[%d]", where, i), errs))
		}
		return n
	case json.Number:
		return &node{kind: kindRaw, raw: []byte(v)}
	case bool:
		return &node{kind: kindRaw, raw: strconv.AppendBool(nil, v)}
	case nil:
		return &node{kind: kindRaw, raw: []byte("null")}
	}
	*errs = append(*errs, fmt.Errorf("%s: unsupported value of type %T", where, v))
	return nil
}

// render appends the body for one call to b. extra is merged into the top
// level when the template is an object: a key given there replaces the
// template's, and a key whose value is nil removes it.
func (t *template) render(b []byte, v *vars, extra map[string]any) ([]byte, error) {
	if len(extra) == 0 || t.root.kind != kindObject {
		return t.root.append(b, v), nil
	}
	n := t.root
	b = append(b, '{')
	first := true
	for i, k := range n.keys {
		if _, over := extra[k]; over {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, n.ekeys[i]...)
		b = append(b, ':')
		b = n.elems[i].append(b, v)
	}
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if extra[k] == nil {
			continue
		}
		val, err := json.Marshal(extra[k])
		if err != nil {
			return nil, fmt.Errorf("encode extra_params %q: %w", k, err)
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, k)
		b = append(b, ':')
		b = append(b, val...)
	}
	return append(b, '}'), nil
}

func (n *node) append(b []byte, v *vars) []byte {
	switch n.kind {
	case kindRaw:
		return append(b, n.raw...)
	case kindExact:
		return v.appendJSON(b, n.slot)
	case kindString:
		b = append(b, '"')
		for _, p := range n.parts {
			if p.slot == slotNone {
				b = appendStringBody(b, p.lit)
				continue
			}
			switch p.slot {
			case slotPrompt:
				b = appendStringBody(b, v.prompt)
			case slotSystem:
				b = appendStringBody(b, v.system)
			case slotPromptID:
				b = appendStringBody(b, v.promptID)
			case slotMessages, slotFormat:
				b = appendStringBody(b, string(v.appendText(nil, p.slot)))
			default:
				// Numbers formatted by strconv: digits, sign, point and
				// exponent only, nothing to escape.
				b = v.appendText(b, p.slot)
			}
		}
		return append(b, '"')
	case kindObject:
		b = append(b, '{')
		for i := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, n.ekeys[i]...)
			b = append(b, ':')
			b = n.elems[i].append(b, v)
		}
		return append(b, '}')
	case kindArray:
		b = append(b, '[')
		for i, e := range n.elems {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.append(b, v)
		}
		return append(b, ']')
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString appends s to b as a JSON string. Invalid UTF-8 bytes become
// U+FFFD, as with encoding/json; HTML characters are not escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendStringBody(b, s)
	return append(b, '"')
}

// appendStringBody appends the escaped contents of a JSON string, without
// the quotes.
func appendStringBody(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but break JavaScript parsers.
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// urlTemplate is a URL with placeholders: values are path-escaped before
// the query and query-escaped inside it.
type urlTemplate struct {
	parts   []part
	inQuery []bool
}

// compileURL compiles raw, expanding ${NAME} references in its literal
// text (never in substituted values). It returns the values used.
func compileURL(raw string, getenv func(string) string) (*urlTemplate, []string, error) {
	parts, err := parseParts(raw)
	if err != nil {
		return nil, nil, err
	}
	var (
		used []string
		errs []error
	)
	t := &urlTemplate{parts: parts, inQuery: make([]bool, len(parts))}
	query := false
	for i := range t.parts {
		p := &t.parts[i]
		t.inQuery[i] = query
		if p.slot != slotNone {
			continue
		}
		lit, vals, err := setting.ExpandEnv(p.lit, getenv)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.lit = lit
		if query || strings.Contains(lit, "?") || strings.Contains(lit, "@") {
			// Values in the query string or the userinfo may be tokens;
			// a host or a path is not secret.
			used = append(used, vals...)
		}
		// The query starts at the first '?' of the configured text; a '?'
		// inside an environment value counts too, as it would in a browser.
		if strings.Contains(lit, "?") {
			query = true
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	return t, used, nil
}

// render returns the URL for one call.
func (t *urlTemplate) render(v *vars) string {
	if len(t.parts) == 1 && t.parts[0].slot == slotNone {
		return t.parts[0].lit
	}
	var b strings.Builder
	var scratch []byte
	for i, p := range t.parts {
		if p.slot == slotNone {
			b.WriteString(p.lit)
			continue
		}
		scratch = v.appendText(scratch[:0], p.slot)
		if t.inQuery[i] {
			b.WriteString(url.QueryEscape(string(scratch)))
		} else {
			b.WriteString(url.PathEscape(string(scratch)))
		}
	}
	return b.String()
}
