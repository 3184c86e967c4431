package yamlwalk

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// walk decodes src and reads every pair of its root mapping, returning the
// keys found and the problems reported as "line:col field: msg (hint)".
func walk(src string) (keys []string, problems []string) {
	w := &Walker{}
	w.Report = func(n *yaml.Node, field, msg, hint string) {
		line, col := 0, 0
		if n != nil {
			line, col = n.Line, n.Column
		}
		problems = append(problems, fmt.Sprintf("%d:%d %s: %s (%s)", line, col, field, msg, hint))
	}
	root := w.Decode([]byte(src), "write something", func(line []byte) string {
		if strings.Contains(string(line), "*") {
			return "quote the star"
		}
		return ""
	})
	if root == nil {
		return nil, problems
	}
	for _, e := range w.Mapping(root, "", "write a mapping") {
		keys = append(keys, e.Key.Value+"="+e.Val.Value)
		if e.Key.Value == "list" {
			w.Items(e.Val, "list", "a list", "write a list")
		}
	}
	return keys, problems
}

func TestWalker(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		keys     string
		problems string
	}{
		{"plain", "a: 1\nb: x\n", "a=1 b=x", ""},
		{"empty", "", "", "1:0 : file is empty (write something)"},
		{"two documents", "a: 1\n---\nb: 2\n", "a=1", "2:0 : only one YAML document is allowed (remove the --- separator and what follows)"},
		{"syntax error with a line hint", "a: 1\nb: *\n", "", "2:4 : invalid YAML: did not find expected alphabetic or numeric character (quote the star)"},
		{"syntax error located", "a:\n  b: 1\n  c: 2\n d: 3\n", "", "4:2 : invalid YAML: did not find expected key (line this up with the keys or list items it belongs with: check its indentation)"},
		{"syntax error with CRLF line ends", "a:\r\n  b: 1\r\n  c: 2\r\n d: 3", "", "4:2 : invalid YAML: did not find expected key (line this up with the keys or list items it belongs with: check its indentation)"},
		{"unclosed quote on the last line", "a: 1\nb: 'x", "", "2:4 : invalid YAML: this quote is never closed (close the quote, or quote the text with the other kind of quote if it holds this one)"},
		// Past MaxLocate the error stays where go.yaml.in/yaml puts it.
		{"syntax error in a large file", "a:\n  b: " + strings.Repeat("x", MaxLocate) + "\n  c: 2\n d: 3\n", "", "3:0 : invalid YAML: did not find expected key (check the indentation and quoting on this line and the one before)"},
		{"UTF-16 read", "\xff\xfea\x00:\x00 \x001\x00\n\x00", "a=1", ""},
		{"UTF-16 with a surrogate pair", "\xfe\xff\x00a\x00:\x00 \xd8\x3d\xde\x00", "a=😀", ""},
		{"UTF-16 with a lone surrogate", "\xff\xfea\x00:\x00\n\x00b\x00:\x00 \x00\x00\xd8", "", "2:4 : invalid UTF-16: a lone surrogate or a cut last character (save the file as UTF-8 text)"},
		{"UTF-16 cut short", "\xff\xfea\x00:\x00 \x001", "", "1:4 : invalid UTF-16: a lone surrogate or a cut last character (save the file as UTF-8 text)"},
		{"NUL byte", "a: 1\nb: x\x00y\n", "", "2:5 : NUL byte: the file is not UTF-8 text (is it a binary file, or text saved in another encoding? save it as UTF-8 text)"},
		{"duplicate key", "a: 1\na: 2\n", "a=1", "2:1 a: duplicate key (also at line 1) (remove one of them)"},
		{"merge: explicit keys win", "base: &b {a: 1, c: 3}\nx: {<<: *b, a: 2}\na: 9\n<<: *b\n", "base= x= a=9 c=3", ""},
		{"merge of a string", "<<: hello\n", "", "1:5 <<: must be a mapping or a list of mappings, got a string (merge a mapping with <<: *anchor)"},
		{"key that is a list", "[a]: 1\n", "", "1:1 : keys must be plain names, got a list (use a plain word as the key)"},
		{"list of the wrong type", "list: 3\n", "list=3", "1:7 list: must be a list, got an integer (write a list)"},
		{"root of the wrong type", "- a\n", "", "1:1 : must be a mapping, got a list (write a mapping)"},
		{"billion laughs", laughs(), "", "TooLarge"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			keys, problems := walk(tc.src)
			if got := strings.Join(keys, " "); got != tc.keys && tc.problems != "TooLarge" {
				t.Errorf("keys: got %q, want %q", got, tc.keys)
			}
			got := strings.Join(problems, "\n")
			if tc.problems == "TooLarge" {
				if len(problems) != 1 || !strings.Contains(got, TooLarge) {
					t.Errorf("problems: got %q, want one %q", got, TooLarge)
				}
				return
			}
			if got != tc.problems {
				t.Errorf("problems:\ngot  %q\nwant %q", got, tc.problems)
			}
		})
	}
}

// TestLinesCountBreaksAsTheParser: a syntax error (and a character that
// is not text) is on the line go.yaml.in/yaml gives the same place,
// whatever the file's line breaks: CR, CR LF, NEL, LS and PS break lines
// for the parser as LF does.
func TestLinesCountBreaksAsTheParser(t *testing.T) {
	for _, br := range []string{"\n", "\r", "\r\n", "\r\r\n", "\n\r", "\u0085", "\u2028", "\u2029"} {
		t.Run(fmt.Sprintf("%q", br), func(t *testing.T) {
			// The parser's line of d, in the same file but valid.
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte("a:"+br+"  b: 1"+br+"  c: 2"+br+"d: 3"+br), &doc); err != nil {
				t.Fatal(err)
			}
			d := doc.Content[0].Content[2]
			if d.Value != "d" {
				t.Fatalf("got key %q, want d", d.Value)
			}
			for _, tc := range []struct{ src, want string }{
				{"a:" + br + "  b: 1" + br + "  c: 2" + br + " d: 3" + br, fmt.Sprintf("%d:2 : invalid YAML: did not find expected key", d.Line)},
				{"a:" + br + "  b: 1" + br + "  c: 2" + br + "d: *" + br, fmt.Sprintf("%d:4 : invalid YAML: did not find expected alphabetic or numeric character", d.Line)},
				{"a:" + br + "  b: 1" + br + "  c: 2" + br + "d: x\x00" + br, fmt.Sprintf("%d:5 : NUL byte", d.Line)},
			} {
				_, problems := walk(tc.src)
				if len(problems) != 1 || !strings.HasPrefix(problems[0], tc.want) {
					t.Errorf("%q: got %q, want one problem %q…", tc.src, problems, tc.want)
				}
			}
		})
	}
}

// laughs is a small document whose merge keys expand past MaxVisits.
func laughs() string {
	var b strings.Builder
	b.WriteString("l0: &l0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8}\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "l%d: &l%d {<<: [", i, i)
		for j := range 8 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*l%d", i-1)
		}
		b.WriteString("]}\n")
	}
	b.WriteString("<<: *l9\n")
	return b.String()
}

func TestEnterStopsTheWalkOnce(t *testing.T) {
	var problems []string
	w := &Walker{Report: func(_ *yaml.Node, field, msg, _ string) { problems = append(problems, field+": "+msg) }}
	n := &yaml.Node{Line: 1, Column: 1}
	depth := 0
	for w.Enter(n, "deep") {
		depth++
	}
	w.Enter(n, "deeper")
	if depth != MaxDepth || len(problems) != 1 || problems[0] != "deep: "+TooDeep || !w.Overrun {
		t.Errorf("got depth %d, problems %q, overrun %v; want %d, one %q, true", depth, problems, w.Overrun, MaxDepth, TooDeep)
	}
}

// BenchmarkDecodeSyntaxError decodes a suite-like file of MaxLocate bytes
// with a key mis-indented on its last line, the worst case of the search
// for the offending token (a few dozen parses of prefixes of the file),
// beside the parse of the same file without the mistake.
func BenchmarkDecodeSyntaxError(b *testing.B) {
	var src strings.Builder
	src.WriteString("prompts:\n")
	for i := 0; src.Len() < MaxLocate-64; i++ {
		fmt.Fprintf(&src, "  - id: q%d\n    text: What is %d + %d?\n", i, i, i)
	}
	valid := src.String() + "  - id: last\n    text: indented\n"
	broken := src.String() + "  - id: last\n   text: mis-indented\n"
	for _, bc := range []struct{ name, src, want string }{
		{"valid", valid, ""},
		{"mistake on the last line", broken, "did not find expected '-' indicator"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.src)))
			for b.Loop() {
				got := ""
				w := &Walker{Report: func(n *yaml.Node, _, msg, _ string) { got = fmt.Sprintf("%d:%d %s", n.Line, n.Column, msg) }}
				w.Decode([]byte(bc.src), "", nil)
				if !strings.HasSuffix(got, bc.want) || bc.want != "" && strings.HasPrefix(got, "1:") {
					b.Fatalf("got %q, want %q", got, bc.want)
				}
			}
		})
	}
}
