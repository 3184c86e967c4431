package tooluse

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// kind is the JSON type of a node.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// node is one parsed JSON value. Unlike a decoded map[string]any it keeps
// the members of an object in document order, which the depth-first search
// for the argument object of tool_call_schema depends on.
type node struct {
	kind kind
	b    bool
	// str is the value of a string, or the literal text of a number.
	str     string
	items   []node
	members []member
}

// member is one key/value pair of an object.
type member struct {
	key string
	val node
}

// get returns the value of key in an object node.
func (n *node) get(key string) (*node, bool) {
	for i := range n.members {
		if n.members[i].key == key {
			return &n.members[i].val, true
		}
	}
	return nil, false
}

// has reports whether an object node has key.
func (n *node) has(key string) bool {
	_, ok := n.get(key)
	return ok
}

// integral reports whether a number node holds an integral value: 3, 3.0
// and 1e2 are integral, 3.5 is not, and a literal too large for a float64
// (1e400) is not either.
func (n *node) integral() bool {
	if n.kind != kindNumber {
		return false
	}
	if !strings.ContainsAny(n.str, ".eE") {
		return true
	}
	f, err := strconv.ParseFloat(n.str, 64)
	return err == nil && f == math.Trunc(f)
}

// parseJSON parses s as one JSON value (surrounding whitespace allowed),
// with the grammar of encoding/json. It reports false when s is not JSON.
func parseJSON(s string) (node, bool) {
	t := strings.TrimLeft(s, " \t\r\n")
	if t == "" || !startsValue(t[0]) {
		return node{}, false
	}
	if _, ok := text.ScanJSON(s, nil); !ok {
		return node{}, false
	}
	p := parser{s: s}
	return p.value(), true
}

// parseJSONBytes is parseJSON for raw bytes.
func parseJSONBytes(b []byte) (node, bool) {
	s := string(b)
	if _, ok := text.ScanJSON(s, nil); !ok {
		return node{}, false
	}
	p := parser{s: s}
	return p.value(), true
}

// startsValue reports whether c can start a JSON value.
func startsValue(c byte) bool {
	switch c {
	case '{', '[', '"', 't', 'f', 'n', '-':
		return true
	}
	return c >= '0' && c <= '9'
}

// parser builds a node tree from text already checked by text.ScanJSON
// (json.Valid's grammar), so it
// never meets a syntax error.
type parser struct {
	s string
	i int
}

func (p *parser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() node {
	p.ws()
	switch p.s[p.i] {
	case '{':
		return p.object()
	case '[':
		return p.array()
	case '"':
		return node{kind: kindString, str: p.string()}
	case 't':
		p.i += len("true")
		return node{kind: kindBool, b: true}
	case 'f':
		p.i += len("false")
		return node{kind: kindBool}
	case 'n':
		p.i += len("null")
		return node{kind: kindNull}
	}
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
		p.i++
	}
	return node{kind: kindNumber, str: p.s[start:p.i]}
}

func (p *parser) object() node {
	p.i++ // {
	n := node{kind: kindObject}
	p.ws()
	if p.s[p.i] == '}' {
		p.i++
		return n
	}
	for {
		p.ws()
		key := p.string()
		p.ws()
		p.i++ // :
		n.members = append(n.members, member{key: key, val: p.value()})
		p.ws()
		c := p.s[p.i]
		p.i++
		if c == '}' {
			break
		}
	}
	n.members = dedupMembers(n.members)
	return n
}

func (p *parser) array() node {
	p.i++ // [
	n := node{kind: kindArray}
	p.ws()
	if p.s[p.i] == ']' {
		p.i++
		return n
	}
	for {
		n.items = append(n.items, p.value())
		p.ws()
		c := p.s[p.i]
		p.i++
		if c == ']' {
			return n
		}
	}
}

// string reads a string literal starting at the opening quote.
func (p *parser) string() string {
	start := p.i
	p.i++
	escaped := false
	for {
		c := p.s[p.i]
		if c == '\\' {
			escaped = true
			p.i += 2
			continue
		}
		p.i++
		if c == '"' {
			break
		}
	}
	inner := p.s[start+1 : p.i-1]
	if !escaped && utf8.ValidString(inner) {
		return inner
	}
	return text.JSONUnquote(inner)
}

// dedupMembers applies the rule of Python's json module (and of
// encoding/json): when a key repeats, the last value wins. The key keeps the
// position of its first occurrence.
func dedupMembers(ms []member) []member {
	if len(ms) < 2 {
		return ms
	}
	if len(ms) <= 16 {
		out := ms[:0]
		for _, m := range ms {
			dup := false
			for j := range out {
				if out[j].key == m.key {
					out[j].val = m.val
					dup = true
					break
				}
			}
			if !dup {
				out = append(out, m)
			}
		}
		return out
	}
	pos := make(map[string]int, len(ms))
	out := ms[:0]
	for _, m := range ms {
		if j, ok := pos[m.key]; ok {
			out[j].val = m.val
			continue
		}
		pos[m.key] = len(out)
		out = append(out, m)
	}
	return out
}
