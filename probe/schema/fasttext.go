package schema

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/promptcanary/promptcanary/internal/jsonscan"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// textRun is the fast validator reading the answer's JSON text instead of
// its decoded value: it decodes nothing but the strings and numbers it
// checks, and skips what no keyword checks. It gives up, for the decoded
// value to decide, where the decoded value and the text could differ or
// where a message quotes a whole value: a repeated key in an object (the
// decoder keeps the last), an answer nested deeper than maxDepth, and a
// const or enum that fails.
type textRun struct {
	fastRun
	s     string
	i     int
	depth int
	bail  bool
}

// validateText checks the JSON text s (which jsonscan.Scan found valid)
// against n, as validate checks its decoded value, and returns false when
// the decoded value must decide.
func (n *fastNode) validateText(s string) ([]failure, bool) {
	if n == nil {
		return nil, false
	}
	r := textRun{s: s}
	r.value(n)
	if r.bail || r.unsupported {
		return nil, false
	}
	sortFailures(r.fails)
	return r.fails, true
}

func (r *textRun) ws() { r.i = jsonscan.SpaceEnd(r.s, r.i) }

// empty steps over the white space after an opening bracket and reports
// whether close follows, which it steps over too (see text.JSONEmpty).
func (r *textRun) empty(close byte) (done bool) {
	r.i, done = text.JSONEmpty(r.s, r.i, close)
	return done
}

// next steps over the white space and the comma or close after a member
// or item, and reports whether it was close (see text.JSONNext).
func (r *textRun) next(close byte) (done bool) {
	r.i, done = text.JSONNext(r.s, r.i, close)
	return done
}

// kindAt is the JSON type of the value at r.i.
func (r *textRun) kindAt() uint8 {
	switch r.s[r.i] {
	case '{':
		return tObject
	case '[':
		return tArray
	case '"':
		return tString
	case 't', 'f':
		return tBoolean
	case 'n':
		return tNull
	}
	return tNumber
}

// value checks the value at r.i against n and moves past it.
func (r *textRun) value(n *fastNode) {
	r.ws()
	s := n.s
	if s.Bool != nil {
		if !*s.Bool {
			r.fail(n, &kind.FalseSchema{})
		}
		r.skip()
		return
	}
	t := r.kindAt()
	if n.types != 0 && n.types&t == 0 &&
		(n.types&tInteger == 0 || t != tNumber || !isInteger(json.Number(r.peekNumber()))) {
		r.fail(n, &kind.Type{Got: typeNames[t], Want: n.typeNames})
		r.skip()
		return
	}
	if s.Const != nil || s.Enum != nil {
		var v any
		switch t {
		case tString:
			v = r.peekString()
		case tBoolean:
			v = r.s[r.i] == 't'
		case tNull:
		default:
			r.bail = true // never equal to a scalar: the message quotes the value
			return
		}
		if s.Const != nil && !equalScalar(v, *s.Const) {
			r.bail = true
			return
		}
		if s.Enum != nil && !slices.ContainsFunc(s.Enum.Values, func(e any) bool { return equalScalar(v, e) }) {
			r.bail = true
			return
		}
	}
	switch t {
	case tObject:
		r.object(n)
	case tArray:
		r.array(n)
	case tString:
		r.string(n, r.str())
	case tNumber:
		r.number(n, json.Number(r.num()))
	default:
		r.skip()
	}
}

// child checks the value at r.i, at token tok under the current location,
// against n.
func (r *textRun) child(n *fastNode, tok string) {
	r.loc = append(r.loc, tok)
	r.value(n)
	r.loc = r.loc[:len(r.loc)-1]
}

// enter moves into an object or array, giving up past maxDepth.
func (r *textRun) enter() bool {
	r.i++
	if r.depth++; r.depth > maxDepth {
		r.bail = true
		return false
	}
	return true
}

func (r *textRun) object(n *fastNode) {
	if !r.enter() {
		return
	}
	defer func() { r.depth-- }()
	var small [16]string
	keys := small[:0]
	var seen map[string]struct{} // the keys, past len(small) of them
	var additional []string
	if !r.empty('}') {
		for !r.bail {
			r.ws()
			key := r.str()
			if seen == nil && len(keys) == len(small) {
				seen = make(map[string]struct{}, 2*len(keys))
				for _, k := range keys {
					seen[k] = struct{}{}
				}
			}
			if seen != nil {
				if _, dup := seen[key]; dup {
					r.bail = true
					return
				}
				seen[key] = struct{}{}
			} else if slices.Contains(keys, key) {
				r.bail = true
				return
			}
			keys = append(keys, key)
			r.ws()
			r.i++ // :
			switch sub, ok := n.props[key]; {
			case ok:
				r.child(sub, key)
			case n.additional != nil:
				r.child(n.additional, key)
			default:
				if n.noAdditional {
					additional = append(additional, key)
				}
				r.skip()
			}
			if r.next('}') {
				break
			}
		}
	}
	if r.bail {
		return
	}
	r.properties(n, len(keys))
	for _, name := range n.s.Required {
		var found bool
		if seen != nil {
			_, found = seen[name]
		} else {
			found = slices.Contains(keys, name)
		}
		if !found {
			r.missing(n, name)
		}
	}
	if len(additional) > 0 {
		r.fail(n, &kind.AdditionalProperties{Properties: additional})
	}
}

func (r *textRun) array(n *fastNode) {
	if !r.enter() {
		return
	}
	defer func() { r.depth-- }()
	count := 0
	if !r.empty(']') {
		for !r.bail {
			switch {
			case count < len(n.prefix):
				r.child(n.prefix[count], strconv.Itoa(count))
			case n.items != nil:
				r.child(n.items, strconv.Itoa(count))
			default:
				r.skip()
			}
			count++
			if r.next(']') {
				break
			}
		}
	}
	if r.bail {
		return
	}
	r.items(n, count)
}

// str reads the string literal at r.i, decoded as the decoder does.
func (r *textRun) str() string {
	end := jsonscan.StringEnd(r.s, r.i)
	body := r.s[r.i+1 : end-1]
	r.i = end
	return jsonscan.Unquote(body)
}

// peekString is the string literal at r.i, decoded, without moving past it.
func (r *textRun) peekString() string {
	return jsonscan.Unquote(r.s[r.i+1 : jsonscan.StringEnd(r.s, r.i)-1])
}

// num reads the number literal at r.i.
func (r *textRun) num() string {
	start := r.i
	r.i = jsonscan.NumberEnd(r.s, r.i)
	return r.s[start:r.i]
}

// peekNumber is the number literal at r.i, without moving past it.
func (r *textRun) peekNumber() string { return r.s[r.i:jsonscan.NumberEnd(r.s, r.i)] }

// skip moves past the value at r.i, giving up past maxDepth.
func (r *textRun) skip() {
	r.ws()
	end, deepest := jsonscan.NestedEnd(r.s, r.i)
	if r.depth+deepest > maxDepth {
		r.bail = true
		return
	}
	r.i = end
}
