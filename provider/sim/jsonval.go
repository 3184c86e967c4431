package sim

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jkind is the type of a JSON value.
type jkind uint8

const (
	jAny jkind = iota // no type known yet
	jString
	jInt
	jFloat
	jBool
	jArray
	jObject
	jNull
)

// jval is a JSON value whose objects keep their key order.
type jval struct {
	kind   jkind
	s      string
	n      float64
	b      bool
	items  []jval
	fields []jfield
}

type jfield struct {
	key string
	val jval
}

func str(s string) jval     { return jval{kind: jString, s: s} }
func integer(n int) jval    { return jval{kind: jInt, n: float64(n)} }
func number(n float64) jval { return jval{kind: jFloat, n: n} }
func boolean(b bool) jval   { return jval{kind: jBool, b: b} }

// appendJSON writes v to buf; indent < 0 writes compact JSON, otherwise
// objects are indented by two spaces per level starting at indent.
func appendJSON(buf []byte, v *jval, indent int) []byte {
	switch v.kind {
	case jString:
		return appendString(buf, v.s)
	case jInt:
		return strconv.AppendInt(buf, int64(v.n), 10)
	case jFloat:
		if math.IsNaN(v.n) || math.IsInf(v.n, 0) {
			return append(buf, '0')
		}
		return strconv.AppendFloat(buf, v.n, 'f', -1, 64)
	case jBool:
		return strconv.AppendBool(buf, v.b)
	case jArray:
		buf = append(buf, '[')
		for i := range v.items {
			if i > 0 {
				buf = append(buf, ',')
				if indent >= 0 {
					buf = append(buf, ' ')
				}
			}
			buf = appendJSON(buf, &v.items[i], indent)
		}
		return append(buf, ']')
	case jObject:
		if len(v.fields) == 0 {
			return append(buf, "{}"...)
		}
		buf = append(buf, '{')
		for i := range v.fields {
			if i > 0 {
				buf = append(buf, ',')
			}
			if indent >= 0 {
				buf = newline(buf, indent+1)
			}
			buf = appendString(buf, v.fields[i].key)
			buf = append(buf, ':')
			if indent >= 0 {
				buf = append(buf, ' ')
				buf = appendJSON(buf, &v.fields[i].val, indent+1)
			} else {
				buf = appendJSON(buf, &v.fields[i].val, -1)
			}
		}
		if indent >= 0 {
			buf = newline(buf, indent)
		}
		return append(buf, '}')
	}
	return append(buf, "null"...)
}

func newline(buf []byte, level int) []byte {
	buf = append(buf, '\n')
	for range level {
		buf = append(buf, "  "...)
	}
	return buf
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string, replacing invalid UTF-8.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c < 0x20:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, `\ufffd`...)
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

// exampleObject returns the first JSON object written in s, keys in order,
// or nil when s shows none.
func exampleObject(s string) *jval {
	for tries, from := 0, 0; tries < 4; tries++ {
		i := strings.IndexByte(s[from:], '{')
		if i < 0 {
			return nil
		}
		from += i
		dec := json.NewDecoder(strings.NewReader(s[from:]))
		dec.UseNumber()
		if v, err := readValue(dec, 0); err == nil && v.kind == jObject && len(v.fields) > 0 {
			return &v
		}
		from++
	}
	return nil
}

const maxDepth = 6

// readValue reads one JSON value from dec, keeping object key order.
func readValue(dec *json.Decoder, depth int) (jval, error) {
	if depth > maxDepth {
		return jval{}, errTooDeep
	}
	tok, err := dec.Token()
	if err != nil {
		return jval{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			v := jval{kind: jObject}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return jval{}, err
				}
				k, _ := kt.(string)
				fv, err := readValue(dec, depth+1)
				if err != nil {
					return jval{}, err
				}
				v.fields = append(v.fields, jfield{key: k, val: fv})
			}
			_, err := dec.Token()
			return v, err
		case '[':
			v := jval{kind: jArray}
			for dec.More() {
				iv, err := readValue(dec, depth+1)
				if err != nil {
					return jval{}, err
				}
				v.items = append(v.items, iv)
			}
			_, err := dec.Token()
			return v, err
		}
		return jval{}, errTooDeep
	case string:
		return str(t), nil
	case json.Number:
		if _, err := t.Int64(); err == nil {
			n, _ := t.Float64()
			return jval{kind: jInt, n: n}, nil
		}
		n, _ := t.Float64()
		return number(n), nil
	case bool:
		return boolean(t), nil
	}
	return jval{kind: jNull}, nil
}

type jsonError string

func (e jsonError) Error() string { return string(e) }

const errTooDeep = jsonError("json example too deep")

// Plausible values.
var (
	firstNames  = []string{"Ada", "Grace", "Alan", "Marie", "Noor", "Kenji", "Lucia", "Omar"}
	lastNames   = []string{"Lovelace", "Hopper", "Turing", "Curie", "Haddad", "Sato", "Moreno", "Okafor"}
	cities      = []string{"Paris", "Tokyo", "Lisbon", "Toronto", "Nairobi", "Melbourne", "Berlin", "Seoul"}
	countries   = []string{"France", "Japan", "Portugal", "Canada", "Kenya", "Australia", "Germany", "South Korea"}
	titles      = []string{"The Quiet Orbit", "Notes on Tides", "A Map of Small Things", "Winter Light"}
	products    = []string{"Trail Runner 2", "Desk Lamp Pro", "Ceramic Mug", "Travel Backpack"}
	colors      = []string{"blue", "green", "amber", "teal"}
	sampleWords = []string{"alpha", "beta", "gamma", "delta"}
)

func oneOf(r *prng, xs []string) string { return xs[r.intn(len(xs))] }

// normKey lower-cases a key and turns camelCase and separators into "_".
func normKey(k string) string {
	var b strings.Builder
	b.Grow(len(k) + 4)
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c >= 'A' && c <= 'Z':
			if i > 0 && k[i-1] >= 'a' && k[i-1] <= 'z' {
				b.WriteByte('_')
			}
			b.WriteByte(c + 'a' - 'A')
		case c == '-' || c == ' ' || c == '.':
			b.WriteByte('_')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func has(k string, subs ...string) bool {
	for _, s := range subs {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

var (
	rePlace = regexp.MustCompile(`\b(?:in|for|at|to|from|near|of)\s+((?:[A-Z][\p{Ll}'-]+)(?:\s+[A-Z][\p{Ll}'-]+){0,2})`)
	reInt   = regexp.MustCompile(`\b\d{1,6}\b`)
)

// notPlace are capitalised words that follow "in" without being places.
var notPlace = map[string]bool{
	"Markdown": true, "English": true, "French": true, "Spanish": true, "German": true,
	"Python": true, "Go": true, "Celsius": true, "Fahrenheit": true, "Json": true, "Yaml": true,
}

// context is what a value generator may borrow from the prompt.
type valueContext struct {
	q *query
	r *prng
	// tool is set for tool arguments, which may take numbers from the prompt.
	tool bool
}

// place returns a place the prompt names ("weather in Tokyo"), or "".
func (c *valueContext) place() string { return c.q.place() }

func (q *query) place() string {
	if !q.placeDone {
		q.placeVal, q.placeDone = q.findPlace(), true
	}
	return q.placeVal
}

func (q *query) findPlace() string {
	for _, m := range rePlace.FindAllStringSubmatch(q.text, 4) {
		if !notPlace[m[1]] {
			return m[1]
		}
	}
	return ""
}

// plausible returns a value for key of the wanted kind (jAny: the kind the
// key suggests).
func (c *valueContext) plausible(key string, want jkind) jval {
	k := normKey(key)
	v, ok := c.contactValue(k)
	if !ok {
		v, ok = c.placeOrNumber(k)
	}
	if !ok {
		v = c.wordValue(k)
	}
	return coerce(v, want, c.r)
}

// contactValue returns a value for a key about a person (contact details,
// names, dates, age); false when k is none of those. The order of the
// cases matters: the first match wins.
func (c *valueContext) contactValue(k string) (jval, bool) {
	r := c.r
	switch {
	case has(k, "email"):
		return str(strings.ToLower(oneOf(r, firstNames)) + "@example.com"), true
	case has(k, "phone", "mobile"):
		return str("+1-555-01" + strconv.Itoa(r.between(10, 99))), true
	case has(k, "url", "website", "link", "homepage"):
		return str("https://example.com/" + oneOf(r, sampleWords)), true
	case has(k, "username", "user_name", "handle", "login"):
		return str(strings.ToLower(oneOf(r, firstNames)) + "_" + strconv.Itoa(r.between(1, 99))), true
	case has(k, "password", "secret", "token", "api_key"):
		return str("********"), true
	case has(k, "date", "_at", "timestamp", "birthday", "dob", "deadline", "updated", "created"):
		return str("2026-0" + strconv.Itoa(r.between(1, 9)) + "-1" + strconv.Itoa(r.between(0, 9))), true
	case has(k, "time"):
		return str(strconv.Itoa(r.between(10, 18)) + ":30"), true
	case k == "first" || has(k, "first_name", "firstname", "given_name"):
		return str(oneOf(r, firstNames)), true
	case has(k, "last_name", "lastname", "surname", "family_name"):
		return str(oneOf(r, lastNames)), true
	case has(k, "author", "director", "owner", "customer", "person", "full_name", "fullname", "artist") || k == "name" || k == "user":
		return str(oneOf(r, firstNames) + " " + oneOf(r, lastNames)), true
	case k == "age" || strings.HasSuffix(k, "_age") || strings.HasPrefix(k, "age_"):
		return integer(r.between(21, 67)), true
	}
	return jval{}, false
}

// placeOrNumber returns a value for a key about a place, an amount, a
// measure or a flag; false when k is none of those.
func (c *valueContext) placeOrNumber(k string) (jval, bool) {
	r := c.r
	switch {
	case has(k, "city", "location", "place", "destination", "origin", "town"):
		if p := c.place(); p != "" {
			return str(p), true
		}
		return str(oneOf(r, cities)), true
	case has(k, "country", "nation"):
		return str(oneOf(r, countries)), true
	case has(k, "capital"):
		return str("Paris"), true
	case has(k, "address", "street"):
		return str(strconv.Itoa(r.between(2, 98)) + " Market Street"), true
	case has(k, "zip", "postal", "postcode"):
		return str(strconv.Itoa(r.between(10000, 99999))), true
	case has(k, "price", "cost", "amount", "salary", "total", "balance", "fee"):
		return number(float64(r.between(5, 199)) + 0.99), true
	case has(k, "year"):
		return integer(r.between(1990, 2025)), true
	case k == "id" || strings.HasSuffix(k, "_id") || has(k, "uuid"):
		return integer(r.between(1000, 9999)), true
	case k == "lat" || has(k, "latitude"):
		return number(48.8566), true
	case k == "lon" || k == "lng" || has(k, "longitude"):
		return number(2.3522), true
	case k == "temp" || has(k, "temperature"):
		return number(float64(r.between(40, 290)) / 10), true
	case has(k, "score", "rating", "stars"):
		return number(float64(r.between(30, 50)) / 10), true
	case has(k, "confidence", "probability", "ratio"):
		return number(float64(r.between(80, 99)) / 100), true
	case has(k, "percent"):
		return number(float64(r.between(100, 950)) / 10), true
	case has(k, "count", "quantity", "qty", "number", "num_", "size", "servings", "pages", "people", "guests", "limit", "days", "population", "stock") && !has(k, "in_stock"):
		return integer(c.promptInt(r.between(2, 12))), true
	case strings.HasPrefix(k, "is_") || strings.HasPrefix(k, "has_") || strings.HasPrefix(k, "can_") || has(k, "active", "enabled", "available", "in_stock", "verified", "valid", "success", "done", "completed", "flag"):
		return boolean(true), true
	}
	return jval{}, false
}

// wordValue returns a value for any other key: a word, a name, a title or a
// sentence from the prompt's topic.
func (c *valueContext) wordValue(k string) jval {
	r := c.r
	switch {
	case k == "tag" || k == "keyword" || k == "word" || k == "item":
		return str(oneOf(r, sampleWords))
	case has(k, "tags", "items", "list", "skills", "hobbies", "ingredients", "steps", "keywords", "languages", "colors", "features", "examples", "options"):
		return jval{kind: jArray, items: []jval{str(oneOf(r, sampleWords)), str(oneOf(r, sampleWords))}}
	case has(k, "product", "item_name"):
		return str(oneOf(r, products))
	case has(k, "name"):
		return str(oneOf(r, firstNames) + " " + oneOf(r, lastNames))
	case has(k, "title", "book", "movie", "film", "song"):
		return str(oneOf(r, titles))
	case has(k, "color", "colour"):
		return str(oneOf(r, colors))
	case has(k, "currency"):
		return str("USD")
	case has(k, "unit"):
		return str("celsius")
	case has(k, "language", "lang"):
		return str("English")
	case has(k, "sentiment"):
		return str("positive")
	case has(k, "status", "state"):
		return str("active")
	case has(k, "category", "type", "kind", "genre"):
		return str("general")
	case has(k, "job", "occupation", "role", "profession"):
		return str("engineer")
	case has(k, "company", "organization", "organisation", "employer"):
		return str("Acme Corp")
	case has(k, "condition", "weather", "forecast"):
		return str("partly cloudy")
	case has(k, "query", "search", "question", "prompt", "text", "message", "input", "topic", "subject", "keyword") || k == "q":
		return str(c.topicOr("example"))
	case has(k, "description", "summary", "bio", "answer", "explanation", "reason", "comment", "note", "content", "body", "result", "response", "output"):
		return str(c.sentence())
	}
	return str(oneOf(r, sampleWords) + " " + strings.ReplaceAll(k, "_", " "))
}

// promptInt returns the first small integer in the prompt, else def.
func (c *valueContext) promptInt(def int) int {
	if !c.tool {
		return def
	}
	if n := c.q.firstInt(); n > 0 {
		return n
	}
	return def
}

// firstInt returns the first small positive integer in the prompt, else 0.
func (q *query) firstInt() int {
	if !q.intDone {
		if m := reInt.FindString(q.text); m != "" {
			q.intVal, _ = strconv.Atoi(m)
		}
		q.intDone = true
	}
	return q.intVal
}

func (c *valueContext) topicOr(def string) string {
	if t := c.q.topic(); t != "" {
		return t
	}
	return def
}

func (c *valueContext) sentence() string {
	if t := c.q.topic(); t != "" {
		return upperFirst(t) + " in brief."
	}
	return "A short, direct answer."
}

// coerce converts v to the wanted kind.
func coerce(v jval, want jkind, r *prng) jval {
	if want == jAny || want == v.kind || (want == jFloat && v.kind == jInt) {
		return v
	}
	switch want {
	case jString:
		var b []byte
		if v.kind == jArray || v.kind == jObject {
			return str(oneOf(r, sampleWords))
		}
		return str(string(appendJSON(b, &v, -1)))
	case jInt:
		if v.kind == jFloat {
			return integer(int(math.Round(v.n)))
		}
		return integer(r.between(1, 10))
	case jFloat:
		return number(float64(r.between(10, 99)) / 10)
	case jBool:
		return boolean(true)
	case jArray:
		if v.kind == jString || v.kind == jInt || v.kind == jFloat {
			return jval{kind: jArray, items: []jval{v}}
		}
		return jval{kind: jArray}
	case jObject:
		return jval{kind: jObject}
	case jNull:
		return jval{kind: jNull}
	}
	return v
}

// typeKind maps a type name (JSON Schema or a prompt hint) to a kind.
func typeKind(t string) jkind {
	switch strings.ToLower(t) {
	case "string", "str", "text":
		return jString
	case "integer", "int":
		return jInt
	case "number", "float", "double", "decimal":
		return jFloat
	case "boolean", "bool":
		return jBool
	case "array", "list":
		return jArray
	case "object", "dict", "map":
		return jObject
	case "null":
		return jNull
	}
	return jAny
}

// fromExample fills an example value from the prompt with plausible values
// of the same shape.
func (c *valueContext) fromExample(key string, ex *jval, depth int) jval {
	switch ex.kind {
	case jObject:
		v := jval{kind: jObject, fields: make([]jfield, len(ex.fields))}
		for i := range ex.fields {
			v.fields[i] = jfield{key: ex.fields[i].key, val: c.fromExample(ex.fields[i].key, &ex.fields[i].val, depth+1)}
		}
		return v
	case jArray:
		if len(ex.items) == 0 || depth > maxDepth {
			return jval{kind: jArray}
		}
		item := singular(key)
		return jval{kind: jArray, items: []jval{c.fromExample(item, &ex.items[0], depth+1), c.fromExample(item, &ex.items[0], depth+1)}}
	case jNull:
		return jval{kind: jNull}
	}
	return c.plausible(key, ex.kind)
}

func singular(k string) string {
	if strings.HasSuffix(k, "s") && len(k) > 3 {
		return k[:len(k)-1]
	}
	return k
}

// fromSchema fills a JSON Schema with typed, plausible values: an object gets
// its required properties (every property when none is required).
func (c *valueContext) fromSchema(key string, schema map[string]any, depth int) jval {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return c.enumValue(enum)
	}
	want := schemaKind(schema)
	switch want {
	case jObject:
		v := jval{kind: jObject}
		if depth > maxDepth {
			return v
		}
		props, _ := schema["properties"].(map[string]any)
		names := stringList(schema["required"])
		if len(names) == 0 {
			for name := range props {
				names = append(names, name)
			}
			slices.Sort(names)
		}
		for _, name := range names {
			sub, _ := props[name].(map[string]any)
			v.fields = append(v.fields, jfield{key: name, val: c.fromSchema(name, sub, depth+1)})
		}
		return v
	case jArray:
		items, _ := schema["items"].(map[string]any)
		n := 1
		if mi, ok := toFloat(schema["minItems"]); ok && mi > 1 {
			n = min(int(mi), 5)
		}
		v := jval{kind: jArray}
		for range n {
			v.items = append(v.items, c.fromSchema(singular(key), items, depth+1))
		}
		return v
	case jInt, jFloat:
		v := c.plausible(key, want)
		if lo, ok := toFloat(schema["minimum"]); ok && v.n < lo {
			v.n = math.Ceil(lo)
		}
		if hi, ok := toFloat(schema["maximum"]); ok && v.n > hi {
			v.n = math.Floor(hi)
		}
		return v
	case jString:
		switch schema["format"] {
		case "email":
			return c.plausible("email", jString)
		case "date", "date-time":
			return c.plausible("date", jString)
		case "uri", "url":
			return c.plausible("url", jString)
		}
	}
	if want == jAny {
		want = jString
	}
	return c.plausible(key, want)
}

// enumValue picks the enum value the prompt mentions, else the first.
func (c *valueContext) enumValue(enum []any) jval {
	for _, e := range enum {
		if s, ok := e.(string); ok && s != "" && strings.Contains(c.q.lower, strings.ToLower(s)) {
			return str(s)
		}
	}
	switch e := enum[0].(type) {
	case string:
		return str(e)
	case bool:
		return boolean(e)
	case float64:
		if e == math.Trunc(e) {
			return jval{kind: jInt, n: e}
		}
		return number(e)
	case int:
		return integer(e)
	}
	return jval{kind: jNull}
}

// schemaKind reads a schema's "type", which may be a list ("string", "null").
func schemaKind(schema map[string]any) jkind {
	switch t := schema["type"].(type) {
	case string:
		return typeKind(t)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return typeKind(s)
			}
		}
	case []string:
		for _, s := range t {
			if s != "null" {
				return typeKind(s)
			}
		}
	}
	switch {
	case schema["properties"] != nil:
		return jObject
	case schema["items"] != nil:
		return jArray
	}
	return jAny
}

func stringList(v any) []string {
	switch l := v.(type) {
	case []string:
		return slices.Clone(l)
	case []any:
		out := make([]string, 0, len(l))
		for _, x := range l {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}
