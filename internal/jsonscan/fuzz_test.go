package jsonscan

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

// seeds are texts each part of the package is tested on, valid and not.
var seeds = []string{
	`{}`, `[]`, `""`, `0`, `-0.5e+3`, `true`, `false`, `null`, ` {"a" : [1, 2,{"b":null}] , "a":"x"} `,
	`{"k\u00e9y":"v\\\"\/\b\f\n\r\t","e":1E400,"n":123456789012345678901234567890}`,
	`"\ud83d\ude00 \ud800 \udc00x \ud800\u0041"`, "\"\xff\xfe\"", `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`,
	`-`, `1e`, `"abc`, `"\x"`, "\"\x01\"", `[`, `{"a"}`, `nul`, `tru`, `1 2`, ``, `  `, "\x00",
	`[[[[]]]]`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
}

// keyLog records what Scan tells a visitor.
type keyLog struct {
	keys   []string
	depths []int
	firsts []byte
	wide   bool
}

func (k *keyLog) Key(depth int, lit string) {
	k.keys = append(k.keys, lit)
	k.depths = append(k.depths, depth)
}
func (k *keyLog) Value(first byte) { k.firsts = append(k.firsts, first) }
func (k *keyLog) WideNumber()      { k.wide = true }

// FuzzScan holds every reader of the package to encoding/json: Scan's
// verdict and kind to json.Valid and the decoded value, the keys it
// reports to a decoder's tokens, Elements, Members and the ends of values
// to the raw values encoding/json cuts out, and the Lexer's strings and
// numbers to what json.Unmarshal decodes.
func FuzzScan(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var log keyLog
		kind, ok := Scan(s, &log)
		if want := json.Valid([]byte(s)); ok != want {
			t.Fatalf("Scan(%q) = %v, json.Valid says %v", s, ok, want)
		}
		checkLexer(t, s)
		if !ok {
			if kind != Invalid {
				t.Fatalf("Scan(%q) kind %v for invalid text", s, kind)
			}
			return
		}
		if want := kindOf(t, s); kind != want {
			t.Fatalf("Scan(%q) kind %v, want %v", s, kind, want)
		}
		if len(log.firsts) != len(log.keys) {
			t.Fatalf("Scan(%q): %d keys but %d values", s, len(log.keys), len(log.firsts))
		}
		checkKeys(t, s, log.keys, log.depths)
		checkEnds(t, s)
		checkEnds(t, []byte(s))
		if wantWide := hasWideNumber(s); log.wide != wantWide {
			t.Fatalf("Scan(%q) wide number %v, want %v", s, log.wide, wantWide)
		}
	})
}

// kindOf is the kind of the value json.Unmarshal decodes from s.
func kindOf(t *testing.T, s string) Kind {
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Fatalf("decode %q: %v", s, err)
	}
	switch v.(type) {
	case map[string]any:
		return Object
	case []any:
		return Array
	case string:
		return String
	case json.Number:
		return Number
	case bool:
		return Boolean
	}
	return Null
}

// checkKeys compares the keys Scan reported with the keys of the object
// tokens of a json.Decoder, in order, with their depths.
func checkKeys(t *testing.T, s string, keys []string, depths []int) {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	var want []string
	var wantDepths []int
	// objects[i] is whether the i-th open container is an object, and
	// atKey whether the next token of the innermost object is a key.
	var objects, atKey []bool
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		n := len(objects)
		switch {
		case tok == json.Delim('}') || tok == json.Delim(']'):
			objects, atKey = objects[:n-1], atKey[:n-1]
		case n > 0 && objects[n-1] && atKey[n-1]:
			want = append(want, tok.(string))
			wantDepths = append(wantDepths, n)
			atKey[n-1] = false
			continue
		case tok == json.Delim('{') || tok == json.Delim('['):
			objects = append(objects, tok == json.Delim('{'))
			atKey = append(atKey, tok == json.Delim('{'))
			continue
		}
		if m := len(objects); m > 0 && objects[m-1] {
			atKey[m-1] = true // a value ended: a key comes next
		}
	}
	if len(keys) != len(want) {
		t.Fatalf("Scan(%q) keys %q, want %q", s, keys, want)
	}
	for i, lit := range keys {
		if got := Unquote(lit); got != want[i] || depths[i] != wantDepths[i] {
			t.Fatalf("Scan(%q) key %d = %q at depth %d, want %q at %d", s, i, got, depths[i], want[i], wantDepths[i])
		}
	}
}

// checkEnds compares ValueEnd, NestedEnd, Elements and Members with the
// raw values json.Unmarshal cuts out of the valid text s.
func checkEnds[T Text](t *testing.T, s T) {
	t.Helper()
	start := SpaceEnd(s, 0)
	end, deepest := NestedEnd(s, start)
	if !IsSpace(s[end:]) || IsSpace(s[start:end]) {
		t.Fatalf("NestedEnd(%q, %d) = %d: not the end of the value", s, start, end)
	}
	if want := depthOf([]byte(string(s))); deepest != want {
		t.Fatalf("NestedEnd(%q) depth %d, want %d", s, deepest, want)
	}
	switch s[start] {
	case '[':
		var want []json.RawMessage
		if err := json.Unmarshal([]byte(string(s)), &want); err != nil {
			t.Fatal(err)
		}
		var got []string
		for e := range Elements(s) {
			got = append(got, string(e))
		}
		if len(got) != len(want) || Count(s) != len(want) {
			t.Fatalf("Elements(%q) = %q, want %q", s, got, want)
		}
		for i := range got {
			if got[i] != string(want[i]) {
				t.Fatalf("Elements(%q)[%d] = %q, want %q", s, i, got[i], want[i])
			}
		}
	case '{':
		d := json.NewDecoder(strings.NewReader(string(s)))
		d.Token() // {
		i := 0
		for k, v := range Members(s) {
			tok, err := d.Token()
			if err != nil {
				t.Fatalf("Members(%q) yields member %d past the end", s, i)
			}
			var raw json.RawMessage
			if err := d.Decode(&raw); err != nil {
				t.Fatal(err)
			}
			if got := Unquote(k[1 : len(k)-1]); got != tok.(string) || string(v) != string(raw) {
				t.Fatalf("Members(%q)[%d] = %q: %q, want %q: %q", s, i, got, v, tok, raw)
			}
			i++
		}
		if d.More() {
			t.Fatalf("Members(%q) stops after %d members", s, i)
		}
	}
}

// depthOf is how deep arrays and objects nest in the valid text b.
func depthOf(b []byte) int {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	depth, deepest := 0, 0
	for {
		tok, err := d.Token()
		if err != nil {
			return deepest
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			deepest = max(deepest, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// hasWideNumber reports whether the valid text s has a number literal with
// an exponent or of more than MaxNarrowNumber characters.
func hasWideNumber(s string) bool {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if n, ok := tok.(json.Number); ok && (len(n) > MaxNarrowNumber || strings.ContainsAny(string(n), "eE")) {
			return true
		}
	}
}

// checkLexer reads s, after white space, as one string or number with the
// Lexer and compares what it read with json.Unmarshal.
func checkLexer(t *testing.T, s string) {
	t.Helper()
	for _, b := range []bool{false, true} {
		l := NewLexer(s)
		lb := NewLexer([]byte(s))
		l.Space()
		lb.Space()
		var str string
		wantOK := json.Unmarshal([]byte(s), &str) == nil && strings.TrimSpace(s)[0] == '"'
		var got string
		var ok bool
		if b {
			got, ok = lb.String()
			lb.Space()
			ok = ok && lb.Done()
		} else {
			got, ok = l.String()
			l.Space()
			ok = ok && l.Done()
		}
		// String refuses what encoding/json replaces with U+FFFD.
		replaced := wantOK && !ok && strings.ContainsRune(str, utf8.RuneError)
		if ok && !wantOK || !ok && wantOK && !replaced || ok && got != str {
			t.Fatalf("Lexer.String(%q) = %q, %v; json.Unmarshal gives %q, %v", s, got, ok, str, wantOK)
		}
	}
	ls := NewLexer(s)
	ls.Space()
	body, ok := ls.StringLit()
	ls.Space()
	var str string
	wantOK := json.Unmarshal([]byte(s), &str) == nil && strings.TrimSpace(s)[0] == '"'
	if ok = ok && ls.Done(); ok != wantOK || ok && Unquote(body) != str {
		t.Fatalf("Unquote of StringLit(%q) = %q, %v; json.Unmarshal gives %q, %v", s, Unquote(body), ok, str, wantOK)
	}
	l := NewLexer(s)
	l.Space()
	v, ok := l.Number()
	l.Space()
	ok = ok && l.Done()
	var want float64
	wantOK = json.Unmarshal([]byte(s), &want) == nil && strings.IndexAny(strings.TrimSpace(s)[:1], "-0123456789") == 0
	if ok != wantOK || ok && v != want && !(math.IsNaN(v) && math.IsNaN(want)) {
		t.Fatalf("Lexer.Number(%q) = %v, %v; json.Unmarshal gives %v, %v", s, v, ok, want, wantOK)
	}
	wantNumber := json.Valid([]byte(s)) && strings.IndexAny(s[:1], "-0123456789") == 0 && strings.TrimSpace(s) == s
	if IsNumber(s) != wantNumber {
		t.Fatalf("IsNumber(%q) = %v, want %v", s, !wantNumber, wantNumber)
	}
	if wantInt := wantNumber && !strings.ContainsAny(s, ".eE"); IsInt(s) != wantInt {
		t.Fatalf("IsInt(%q) = %v, want %v", s, !wantInt, wantInt)
	}
}
