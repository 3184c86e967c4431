package tooluse

import (
	"math"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary/internal/jsonscan"
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
	var a arena
	return a.parse(s)
}

// arena holds the items and members of the trees it parses, in a few large
// slices reused from one response to the next: a tree costs no allocation
// once the arena has grown to the size of the responses it meets. A tree is
// valid until the arena's reset.
type arena struct {
	items   []node
	members []member
	// The items and members of the containers being parsed, moved to
	// items and members when their container ends.
	itemStack   []node
	memberStack []member
}

// maxArena bounds the nodes an arena keeps for reuse.
const maxArena = 1 << 14

// maxArenaBytes bounds the bytes of tool-call arguments an input keeps
// for reuse.
const maxArenaBytes = 1 << 20

// reset forgets the trees of a, keeping its memory unless it grew large.
func (a *arena) reset() {
	if cap(a.items) > maxArena || cap(a.members) > maxArena {
		*a = arena{}
		return
	}
	clear(a.items)
	clear(a.members)
	a.items, a.members = a.items[:0], a.members[:0]
}

// parse is parseJSON with the tree's storage in a.
func (a *arena) parse(s string) (node, bool) {
	t := strings.TrimLeft(s, " \t\r\n")
	if t == "" || !startsValue(t[0]) {
		return node{}, false
	}
	if _, ok := jsonscan.Scan(s, nil); !ok {
		return node{}, false
	}
	p := parser{s: s, a: a}
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

// parser builds a node tree from text already checked by jsonscan.Scan
// (json.Valid's grammar), so it never meets a syntax error.
type parser struct {
	s string
	i int
	a *arena
}

func (p *parser) ws() { p.i = jsonscan.SpaceEnd(p.s, p.i) }

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
	p.i = jsonscan.NumberEnd(p.s, p.i)
	return node{kind: kindNumber, str: p.s[start:p.i]}
}

// open steps over the opening bracket of a container and the white space
// after it, and reports whether close follows: an empty container, whose
// close it steps over too (see text.JSONEmpty).
func (p *parser) open(close byte) (done bool) {
	p.i, done = text.JSONEmpty(p.s, p.i+1, close)
	return done
}

// next steps over the white space and the comma or close after a member
// or item, and reports whether it was close (see text.JSONNext).
func (p *parser) next(close byte) (done bool) {
	p.i, done = text.JSONNext(p.s, p.i, close)
	return done
}

func (p *parser) object() node {
	n := node{kind: kindObject}
	if p.open('}') {
		return n
	}
	a := p.a
	base := len(a.memberStack)
	for {
		p.ws()
		key := p.string()
		p.ws()
		p.i++ // :
		v := p.value()
		a.memberStack = append(a.memberStack, member{key: key, val: v})
		if p.next('}') {
			break
		}
	}
	n.members = settle(&a.members, &a.memberStack, base, dedupMembers(a.memberStack[base:]))
	return n
}

func (p *parser) array() node {
	n := node{kind: kindArray}
	if p.open(']') {
		return n
	}
	a := p.a
	base := len(a.itemStack)
	for {
		v := p.value()
		a.itemStack = append(a.itemStack, v)
		if p.next(']') {
			break
		}
	}
	n.items = settle(&a.items, &a.itemStack, base, a.itemStack[base:])
	return n
}

// settle moves the finished entries of a container, the part of *stack
// from base on, to the end of *store, as entries (the entries, or fewer
// of them), and returns them there, with capacity capped so an append to
// them cannot reach another container's. *stack drops them.
func settle[T any](store, stack *[]T, base int, entries []T) []T {
	start := len(*store)
	*store = append(*store, entries...)
	clear((*stack)[base:])
	*stack = (*stack)[:base]
	return (*store)[start:len(*store):len(*store)]
}

// string reads a string literal starting at the opening quote.
func (p *parser) string() string {
	start := p.i + 1
	p.i = jsonscan.StringEnd(p.s, p.i)
	return jsonscan.Unquote(p.s[start : p.i-1])
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
