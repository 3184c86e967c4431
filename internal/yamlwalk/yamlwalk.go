// Package yamlwalk walks a YAML document node by node for a strict
// configuration loader: it resolves aliases within a visit budget, expands
// merge keys, bounds the nesting, and reports every problem it finds (a
// duplicate key, a key that is no plain name, a value of the wrong type,
// an unknown field) with the node's line and column and a field path,
// instead of stopping at the first one.
//
// canary.yaml (package suite) and monitor.yaml (monitor/config) are read
// by it, so both report the same problems in the same words.
package yamlwalk

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary/internal/suggest"
)

// MaxVisits bounds the nodes a walk visits, aliases expanded, so that a
// small file full of nested aliases ("billion laughs") cannot exhaust
// memory or time.
const MaxVisits = 1 << 18

// MaxDepth bounds the nesting of values and merge keys, which aliases can
// make cyclic.
const MaxDepth = 64

// The problems that stop a walk.
const (
	TooLarge = "document too large: too many nodes or aliases"
	TooDeep  = "too deeply nested (aliases that refer to themselves?)"
)

// MergeHint is the hint of a merge key whose value is not a mapping.
const MergeHint = "merge a mapping with <<: *anchor"

// KV is one key/value pair of a mapping, both resolved.
type KV struct {
	Key, Val *yaml.Node
}

// Walker walks one YAML document. Its zero value is not usable: Report
// must be set.
type Walker struct {
	// Report records a problem at n (nil when it has no position). The
	// walker calls it only until Overrun is set.
	Report func(n *yaml.Node, field, msg, hint string)
	// Overrun is set when the visit budget or the nesting limit is
	// exhausted; the walk then reports nothing more, so that one problem
	// says why it stopped.
	Overrun bool

	visits, depth int
}

// add reports a problem unless the walk overran.
func (w *Walker) add(n *yaml.Node, field, msg, hint string) {
	if !w.Overrun {
		w.Report(n, field, msg, hint)
	}
}

// Decode parses data into its single document's root node. An empty file
// is a problem with emptyHint; a file that is not UTF-8 text (NUL bytes,
// invalid UTF-8, control characters) is reported at its first bad
// character; a syntax error at the line and column of the offending token,
// with the hint lineHint gives for that line's text when it gives one
// (lineHint may be nil). UTF-16 with a byte order mark is read as its
// UTF-8 text. It returns nil when there is nothing to walk.
func (w *Walker) Decode(data []byte, emptyHint string, lineHint func(line []byte) string) (root *yaml.Node) {
	defer func() {
		if v := recover(); v != nil {
			root = nil
			w.add(nil, "", fmt.Sprintf("invalid YAML: %v", v), generalSyntax)
		}
	}()
	data, ok := w.text(data)
	if !ok {
		return nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			w.add(&yaml.Node{Line: 1}, "", "file is empty", emptyHint)
			return nil
		}
		w.syntaxError(err, data, lineHint)
		return nil
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		w.add(&yaml.Node{Line: next.Line}, "", "only one YAML document is allowed", "remove the --- separator and what follows")
	} else if !errors.Is(err, io.EOF) {
		w.syntaxError(err, data, lineHint)
	}
	if len(doc.Content) == 0 {
		w.add(&yaml.Node{Line: 1}, "", "file is empty", emptyHint)
		return nil
	}
	return doc.Content[0]
}

// Resolve follows an alias and counts the visit. Past the visit budget it
// reports one problem and returns a null node, which stops any descent.
func (w *Walker) Resolve(n *yaml.Node) *yaml.Node {
	w.visits++
	if w.visits > MaxVisits {
		if !w.Overrun {
			w.add(n, "", TooLarge, "expand fewer aliases")
			w.Overrun = true
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line, Column: n.Column}
	}
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// Enter descends one nesting level; past MaxDepth it reports one problem
// and stops the walk, as an exhausted visit budget does. Every Enter that
// returns true is paired with a Leave.
func (w *Walker) Enter(n *yaml.Node, field string) bool {
	if w.depth >= MaxDepth {
		if !w.Overrun {
			w.add(n, field, TooDeep, fmt.Sprintf("nest values at most %d levels deep", MaxDepth))
			w.Overrun = true
		}
		return false
	}
	w.depth++
	return true
}

// Leave ascends the level Enter descended.
func (w *Walker) Leave() { w.depth-- }

// Pairs returns the key/value pairs of a mapping, expanding merge keys
// (explicit keys win over merged ones) and reporting duplicate and
// non-scalar keys.
func (w *Walker) Pairs(n *yaml.Node, field string) []KV {
	if !w.Enter(n, field) {
		return nil
	}
	defer w.Leave()
	out := make([]KV, 0, len(n.Content)/2)
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	var merged []KV
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := w.Resolve(n.Content[i]), w.Resolve(n.Content[i+1])
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, w.mergePairs(v, field)...)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			w.add(k, field, "keys must be plain names, got "+Describe(k), "use a plain word as the key")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			w.add(k, Join(field, k.Value), fmt.Sprintf("duplicate key (also at line %d)", first.Line), "remove one of them")
			continue
		}
		seen[k.Value] = k
		out = append(out, KV{k, v})
	}
	for _, m := range merged {
		if _, ok := seen[m.Key.Value]; !ok {
			seen[m.Key.Value] = m.Key
			out = append(out, m)
		}
	}
	return out
}

func (w *Walker) mergePairs(v *yaml.Node, field string) []KV {
	switch v.Kind {
	case yaml.MappingNode:
		return w.Pairs(v, field)
	case yaml.SequenceNode:
		var out []KV
		for _, c := range v.Content {
			c = w.Resolve(c)
			if c.Kind != yaml.MappingNode {
				w.WrongType(c, Join(field, "<<"), "a mapping", MergeHint)
				continue
			}
			out = append(out, w.Pairs(c, field)...)
		}
		return out
	}
	w.WrongType(v, Join(field, "<<"), "a mapping or a list of mappings", MergeHint)
	return nil
}

// Mapping returns the pairs of a mapping field; null yields nil without a
// problem, any other kind of value is reported with hint.
func (w *Walker) Mapping(n *yaml.Node, field, hint string) []KV {
	if IsNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		w.WrongType(n, field, "a mapping", hint)
		return nil
	}
	return w.Pairs(n, field)
}

// Items returns the resolved items of a list field; null yields nil
// without a problem, any other kind of value is reported as not being
// want, with hint.
func (w *Walker) Items(n *yaml.Node, field, want, hint string) []*yaml.Node {
	if IsNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		w.WrongType(n, field, want, hint)
		return nil
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = w.Resolve(c)
	}
	return out
}

// WrongType reports a value that is not what the field wants.
func (w *Walker) WrongType(n *yaml.Node, field, want, hint string) {
	w.add(n, field, "must be "+want+", got "+Describe(n), hint)
}

// UnknownKey reports a key the mapping at field does not accept, with the
// nearest known one or the list of them.
func (w *Walker) UnknownKey(k *yaml.Node, field string, known []string) {
	hint := "known fields: " + strings.Join(known, ", ")
	if c := suggest.Closest(k.Value, known); c != "" {
		hint = "did you mean " + c + "?"
	}
	w.add(k, Join(field, k.Value), "unknown field", hint)
}

// Describe names the type of a node for "must be X, got Y" messages.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch t := n.ShortTag(); t {
	case "!!str":
		return "a string"
	case "!!int":
		return "an integer"
	case "!!float":
		return "a number"
	case "!!bool":
		return "a boolean"
	case "!!null":
		return "null"
	case "!!timestamp":
		return "a timestamp"
	default:
		return "a value tagged " + t
	}
}

// IsNull reports whether n is a null scalar (an empty value or ~).
func IsNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// IsString reports whether n is a string scalar.
func IsString(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str"
}

// Join appends a key to a field path.
func Join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}
