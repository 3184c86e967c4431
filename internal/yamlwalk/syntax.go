package yamlwalk

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// yamlErrRE splits a YAML syntax error into its line, when it has one, and
// its message.
var yamlErrRE = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

// The hints of syntax errors, by the mistake found.
const (
	tabHint          = "indent with spaces: YAML does not allow tabs in indentation"
	quoteHint        = `close the quote, or quote the text with the other kind of quote if it holds this one`
	afterQuoteHint   = `a quoted value ends at its closing quote: quote the whole value (a ' inside '…' is written '')`
	colonHint        = `quote a value that holds ": ", for example text: "Note: this"`
	indentHint       = "line this up with the keys or list items it belongs with: check its indentation"
	missingColonHint = "add ':' after the key, or indent this line under the key it continues"
	aliasHint        = "quote a value that starts with '*': YAML reads *name as an alias"
	syntaxHint       = "check the indentation and quoting on this line and the one before"
	generalSyntax    = "check the YAML syntax"
)

// MaxLocate is the largest file, in bytes, whose syntax error is located
// by parsing its prefixes (a few dozen of them); in a larger one the
// error is reported where go.yaml.in/yaml reports it.
const MaxLocate = 256 << 10

// syntax is a located YAML syntax error.
type syntax struct {
	line, col int // 1-based; col 0 when unknown
	msg, hint string
}

// syntaxError reports a YAML syntax error at the line and column of the
// offending token (go.yaml.in/yaml reports the line of the enclosing block,
// often far above), with a hint for that line.
func (w *Walker) syntaxError(err error, data []byte, lineHint func([]byte) string) {
	m := yamlErrRE.FindStringSubmatch(err.Error())
	if m == nil {
		w.add(nil, "", "invalid YAML: "+err.Error(), generalSyntax)
		return
	}
	reported, _ := strconv.Atoi(m[1])
	s := locate(data, m[2], reported)
	if s.line == 0 {
		w.add(nil, "", "invalid YAML: "+m[2], generalSyntax)
		return
	}
	if lineHint != nil {
		if h := lineHint(lineAt(data, s.line)); h != "" {
			s.hint = h
		}
	}
	w.add(&yaml.Node{Line: s.line, Column: s.col}, "", "invalid YAML: "+s.msg, s.hint)
}

// parseError returns the message of the first syntax error in data, every
// document read, without its "yaml: line N: " prefix; "" when data parses.
func parseError(data []byte) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return ""
			}
			if m := yamlErrRE.FindStringSubmatch(err.Error()); m != nil {
				return m[2]
			}
			return err.Error()
		}
	}
}

// locate finds the token that makes data fail with msg: the first line
// whose prefix of the file fails with that same message, then the first
// byte of that line whose prefix does. A prefix that ends inside a
// multi-line quote or bracket fails too, but with another message, so it
// is not taken for the mistake. reported is the line go.yaml.in/yaml gave,
// at or just above the enclosing block, where the search starts.
func locate(data []byte, msg string, reported int) syntax {
	if len(data) > MaxLocate {
		return syntax{line: reported, msg: msg, hint: syntaxHint}
	}
	starts := lineStarts(data)
	n := len(starts)
	prefix := func(k int) []byte { // the first k lines
		if k >= n {
			return data
		}
		return data[:starts[k]]
	}
	same := func(b []byte) bool { return parseError(b) == msg }
	if !same(data) {
		return syntax{line: reported, msg: msg, hint: syntaxHint}
	}
	lo := reported - 2
	if lo < 0 || lo >= n || same(prefix(lo)) {
		lo = 0
	}
	// Gallop from lo, then halve: invariant !same(prefix(lo)), same(prefix(hi)).
	hi := lo + 1
	for step := 1; hi < n && !same(prefix(hi)); step *= 2 {
		lo, hi = hi, min(hi+2*step, n)
	}
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; same(prefix(mid)) {
			hi = mid
		} else {
			lo = mid
		}
	}
	base := starts[hi-1]
	text := trimBreak(prefix(hi)[base:])
	// The first byte of the line whose prefix fails: l never fails, h does.
	l, h := 0, len(text)
	if !same(data[:base+h]) {
		h++
	}
	for h-l > 1 {
		if mid := (l + h) / 2; same(data[:base+mid]) {
			h = mid
		} else {
			l = mid
		}
	}
	return explain(text, min(h-1, len(text)), hi, msg)
}

// lineStarts returns the offset of each line of data, lines broken where
// go.yaml.in/yaml counts them (see breakLen), so that a located syntax
// error has the line number the parser gives every node.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i := 0; i < len(data); {
		n := breakLen(data, i)
		if n == 0 {
			i++
			continue
		}
		if i += n; i < len(data) {
			starts = append(starts, i)
		}
	}
	return starts
}

// breakLen returns the length in bytes of the line break at data[i:], 0
// when there is none. go.yaml.in/yaml breaks lines at LF, CR, CR LF (one
// break), NEL (U+0085), LS (U+2028) and PS (U+2029).
func breakLen(data []byte, i int) int {
	switch c := data[i]; {
	case c == '\n':
		return 1
	case c == '\r':
		if i+1 < len(data) && data[i+1] == '\n' {
			return 2
		}
		return 1
	case c == 0xc2 && i+1 < len(data) && data[i+1] == 0x85:
		return 2
	case c == 0xe2 && i+2 < len(data) && data[i+1] == 0x80 && (data[i+2] == 0xa8 || data[i+2] == 0xa9):
		return 3
	}
	return 0
}

// trimBreak returns line without the line break it ends with, if any.
func trimBreak(line []byte) []byte {
	for i := max(len(line)-3, 0); i < len(line); i++ {
		if n := breakLen(line, i); n > 0 && i+n == len(line) {
			return line[:i]
		}
	}
	return line
}

// lineAt returns line (1-based) of data without its line break.
func lineAt(data []byte, line int) []byte {
	starts := lineStarts(data)
	if line < 1 || line > len(starts) {
		return nil
	}
	end := len(data)
	if line < len(starts) {
		end = starts[line]
	}
	return trimBreak(data[starts[line-1]:end])
}

// explain words the mistake found at byte at of text, line line, and
// chooses its column (as PyYAML does: the token in error, or the quote or
// bracket that is never closed) and its hint.
func explain(text []byte, at, line int, msg string) syntax {
	first := len(text) - len(bytes.TrimLeft(text, " \t"))
	s := syntax{line: line, msg: msg, hint: syntaxHint}
	col := at
	switch {
	case strings.Contains(msg, "tab character") || at < len(text) && text[at] == '\t':
		s.msg, s.hint = "tab character in the indentation", tabHint
	case msg == "found unexpected end of stream" && at < len(text) && (text[at] == '"' || text[at] == '\''):
		s.msg, s.hint = "this quote is never closed", quoteHint
	case strings.HasPrefix(msg, "did not find expected ',' or "):
		closer := msg[len(msg)-2]
		open := map[byte]byte{']': '[', '}': '{'}[closer]
		if i := unclosed(text[:min(at+1, len(text))], open, closer); i >= 0 {
			col = i
			s.msg, s.hint = fmt.Sprintf("this %c is never closed", open), fmt.Sprintf("close it with %c, or quote the value if the %c is text", closer, open)
			if bytes.Contains(text[i:], []byte{'?', closer}) {
				// YAML reads "?" before the closer as a key indicator:
				// {role: user, content: Is it raining?} never closes.
				s.hint = fmt.Sprintf("quote a value that ends in ? inside %c %c, for example {content: \"Is it raining?\"}", open, closer)
			}
		}
	case msg == "could not find expected ':'":
		s.hint = missingColonHint
	case strings.HasPrefix(msg, "did not find expected alphabetic or numeric character"):
		s.hint = aliasHint
	case strings.HasPrefix(msg, "mapping values are not allowed"):
		s.hint = colonHint
		if firstKey(text, first, at) {
			col, s.hint = first, indentHint
		}
	case strings.HasPrefix(msg, "did not find expected key"), strings.HasPrefix(msg, "did not find expected '-' indicator"):
		switch {
		case firstKey(text, first, at):
			col, s.hint = first, indentHint
		case bytes.ContainsAny(text[:at], `"'`):
			s.hint = afterQuoteHint
		case at < len(text) && (text[at] == ']' || text[at] == '}'):
			s.hint = fmt.Sprintf("this %c closes nothing: remove it, or quote the value if it is text", text[at])
		}
	}
	s.col = utf8.RuneCount(text[:min(col, len(text))]) + 1
	return s
}

// firstKey reports whether byte at of text ends the first word of the
// line (from first): the ':' after a key, or the word itself.
func firstKey(text []byte, first, at int) bool {
	if at <= first {
		return at == first
	}
	word := text[first:min(at, len(text))]
	return !bytes.ContainsAny(word, " \t\"'[]{}:#") && !bytes.HasPrefix(word, []byte("-"))
}

// unclosed returns the offset of the innermost open bracket in text that is not
// closed, skipping quoted text, or -1.
func unclosed(text []byte, open, closer byte) int {
	var stack []int
	var quote byte
	for i, c := range text {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == open:
			stack = append(stack, i)
		case c == closer && len(stack) > 0:
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) == 0 {
		return -1
	}
	return stack[len(stack)-1]
}
