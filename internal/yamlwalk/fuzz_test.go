package yamlwalk

import (
	"bytes"
	"regexp"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzDecode feeds arbitrary bytes to Decode: it must never panic, and
// every problem it reports (a syntax error, a NUL byte, invalid UTF-8)
// must have a line inside the file, and a column inside that line.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		"a: 1\n", "a:\n  b: 1\n c: 2\n", "a: [1, 2\nb: 3\n", "a: \"x\n", "a:\n\tb: 1\n",
		"a: b: c\n", "a\nb: 1\n", "- a\n - b\n", "a: 'it's'\n", "a: x\x00y\n", "\xff\xfea\x00:\x00 \x001\x00",
		"\xef\xbb\xbfa: \"b\n", "a: \xe9\n", "a: \x1b\n", "a: 1\n---\nb: [\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		w := &Walker{}
		w.Report = func(n *yaml.Node, field, msg, hint string) {
			if n == nil || n.Line < 1 || msg == "" || hint == "" {
				t.Fatalf("problem %q (hint %q) at %v, want a line, a message and a hint", msg, hint, n)
			}
			// Lines and columns count the text Decode read: UTF-16 is
			// decoded first, so only a UTF-8 file is checked here.
			if bytes.HasPrefix(data, bomUTF16LE) || bytes.HasPrefix(data, bomUTF16BE) {
				return
			}
			// Lines are broken where the YAML parser breaks them (CR, LF,
			// CR LF, NEL, LS, PS), for syntax errors as for every node.
			lines := parserBreaks.Split(string(bytes.TrimPrefix(data, bomUTF8)), -1)
			if n.Line > len(lines) || n.Column > len(lines[n.Line-1])+1 {
				t.Fatalf("problem %q at %d:%d, outside the file's %d lines", msg, n.Line, n.Column, len(lines))
			}
		}
		w.Decode(data, "write something", nil)
	})
}

// parserBreaks matches the line breaks go.yaml.in/yaml counts lines at.
var parserBreaks = regexp.MustCompile("\r\n|[\r\n\u0085\u2028\u2029]")
