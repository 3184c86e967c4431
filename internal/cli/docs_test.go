package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe"
)

// repoRoot is the repository root, seen from this package's directory.
var repoRoot = filepath.Join("..", "..")

// TestCLIReferenceUpToDate regenerates the command-line reference and
// compares it with docs/cli: a command, flag or help text changed without
// `go generate ./internal/cli` fails here.
func TestCLIReferenceUpToDate(t *testing.T) {
	want := Reference()
	dir := filepath.Join(repoRoot, "docs", "cli")
	files, err := filepath.Glob(filepath.Join(dir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	const fix = "run `go generate ./internal/cli` and commit docs/cli"
	for _, path := range files {
		name := filepath.Base(path)
		if _, ok := want[name]; !ok {
			t.Errorf("docs/cli/%s: no such command any more; %s", name, fix)
		}
	}
	for name, text := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		switch {
		case err != nil:
			t.Errorf("docs/cli/%s is missing; %s", name, fix)
		case string(got) != text:
			t.Errorf("docs/cli/%s is out of date; %s", name, fix)
		}
	}
}

// handDocs returns the text of README.md and every page under docs/ but
// the generated reference, which names every command and flag by
// construction.
func handDocs(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, path := range docPages(t) {
		if strings.HasPrefix(filepath.ToSlash(path), filepath.ToSlash(filepath.Join(repoRoot, "docs", "cli"))+"/") {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

// docPages lists README.md and every Markdown file under docs/.
func docPages(t *testing.T) []string {
	t.Helper()
	pages := []string{filepath.Join(repoRoot, "README.md")}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// TestDocsNameEveryCommandAndFlag holds the hand-written docs (README.md
// and docs/ but the generated reference) to the command tree: every
// command is named in backquotes (`store copy …`) and every flag as
// --flag somewhere.
func TestDocsNameEveryCommandAndFlag(t *testing.T) {
	text := handDocs(t)
	cmds := ReferenceCommands()
	paths := make([]string, 0, len(cmds))
	for path := range cmds {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	for _, path := range paths {
		if name := strings.TrimPrefix(path, "promptcanary "); name != path {
			re := regexp.MustCompile("`(promptcanary )?" + regexp.QuoteMeta(name) + "[` ]")
			if !re.MatchString(text) {
				t.Errorf("no page of docs/ names the command %q (as `%s`)", path, name)
			}
		}
		for _, flag := range cmds[path] {
			re := regexp.MustCompile(`--` + regexp.QuoteMeta(flag) + `\b`)
			if !re.MatchString(text) {
				t.Errorf("no page of docs/ names --%s of %q", flag, path)
			}
		}
	}
}

// TestDocsNameEveryConfigKey holds the docs to the keys canary.yaml and
// monitor.yaml accept, as their parsers know them: the keys read by
// package suite, monitor/config and the provider clients (found in their
// source, so a key added there is a key this test asks the docs for; see
// sourceKeys) and the parameters of every registered probe type. A key is
// named in the docs in backquotes (`key`, `key:`, `parent.key`) or as a
// YAML key (key: …).
func TestDocsNameEveryConfigKey(t *testing.T) {
	text := handDocs(t)
	keys := configKeys(t)
	if len(keys) < 60 {
		t.Fatalf("found only %d keys in the parsers' source: has the way keys are listed changed?", len(keys))
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, key := range names {
		if !docNamesKey(text, key) {
			t.Errorf("no page of docs/ names the config key %q (%s)", key, strings.Join(keys[key], ", "))
		}
	}
}

// TestDocsKeyCheckCanFail checks that the key test sees a key go: with
// every mention of a known key taken out of the docs, it is missing.
func TestDocsKeyCheckCanFail(t *testing.T) {
	text := handDocs(t)
	keys := configKeys(t)
	for _, key := range []string{"max_answer_bytes", "resolve_after", "structured_output", "rpm", "embedder"} {
		if _, ok := keys[key]; !ok {
			t.Errorf("the key %q was not found in the parsers' source", key)
			continue
		}
		cut := regexp.MustCompile(`\b`+key+`\b`).ReplaceAllString(text, "gone")
		if docNamesKey(cut, key) {
			t.Errorf("docNamesKey still finds %q once every mention is removed", key)
		}
		if !docNamesKey(text, key) {
			t.Errorf("docNamesKey does not find %q in the docs", key)
		}
	}
}

// configKeys returns every config key of canary.yaml and monitor.yaml
// with where each is read.
func configKeys(t *testing.T) map[string][]string {
	t.Helper()
	keys := map[string][]string{}
	for _, dir := range []string{"suite", filepath.Join("monitor", "config"), "provider"} {
		for key, where := range sourceKeys(t, filepath.Join(repoRoot, dir)) {
			keys[key] = append(keys[key], where...)
		}
	}
	for _, typ := range probe.Types() {
		for _, p := range typ.Params {
			keys[p.Name] = append(keys[p.Name], "probe "+typ.ID)
		}
	}
	for k, where := range keys {
		sort.Strings(where)
		keys[k] = slices.Compact(where)
	}
	return keys
}

// docNamesKey reports whether text names a config key: `key`, `key: …`,
// `parent.key`, or key: at the start of a YAML line or flow mapping.
func docNamesKey(text, key string) bool {
	q := regexp.QuoteMeta(key)
	re := regexp.MustCompile("[`.]" + q + "[`:=. \\[]|(^|[\\s{,(-])" + q + ":")
	return re.MatchString(text)
}

// sourceKeys reads the config keys in the Go source of the packages under
// dir (test files, test-support packages (…test) and testdata left out),
// package by package so that constants resolve. See packageKeys.
func sourceKeys(t *testing.T, dir string) map[string][]string {
	t.Helper()
	keys := map[string][]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); path != dir && (strings.HasSuffix(name, "test") || name == "testdata" || notKeys[name]) {
			return filepath.SkipDir
		}
		for key, file := range packageKeys(t, path) {
			keys[key] = append(keys[key], file)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// keyCalls are the functions a parser hands the keys it accepts, to check
// a key (setting.Read) or to suggest the nearest one for an unknown key
// (UnknownKey, setting.Unknown, suggest.Hint).
var keyCalls = map[string]bool{"UnknownKey": true, "Unknown": true, "Read": true, "Hint": true}

// notKeys are packages whose suggestion lists are not config keys: the
// simulated model's names.
var notKeys = map[string]bool{"sim": true}

// packageKeys reads the config keys of one package directory, each with
// the file that reads it: the strings (or string constants) of every
// []string of keys the package hands a keyCalls function, given inline or
// through a variable; the cases of a switch on a YAML key's value (switch
// e.Key.Value); and the keys of the map literal passed to
// setting.ReadCommon.
func packageKeys(t *testing.T, dir string) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files := parsePackage(t, fset, dir)
	consts := map[string]string{}
	lists := map[string]bool{}       // variables handed to a keyCalls function
	aliases := map[string][]string{} // known := notifierKeys
	alias := func(lhs, rhs ast.Expr) {
		l, ok1 := lhs.(*ast.Ident)
		r, ok2 := rhs.(*ast.Ident)
		if ok1 && ok2 {
			aliases[l.Name] = append(aliases[l.Name], r.Name)
		}
	}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.ValueSpec:
				for i, name := range x.Names {
					if i < len(x.Values) {
						if s, ok := stringLit(x.Values[i]); ok {
							consts[name.Name] = s
						}
						alias(name, x.Values[i])
					}
				}
			case *ast.AssignStmt:
				for i := range x.Lhs {
					if i < len(x.Rhs) {
						alias(x.Lhs[i], x.Rhs[i])
					}
				}
			case *ast.CallExpr:
				if keyCalls[callName(x)] {
					for _, arg := range x.Args {
						if id, ok := arg.(*ast.Ident); ok {
							lists[id.Name] = true
						}
					}
				}
			}
			return true
		})
	}
	for changed := true; changed; {
		changed = false
		for name := range lists {
			for _, other := range aliases[name] {
				if !lists[other] {
					lists[other], changed = true, true
				}
			}
		}
	}
	keys := map[string]string{}
	for _, f := range files {
		file := strings.TrimPrefix(filepath.ToSlash(fset.Position(f.Pos()).Filename), "../../")
		collect := func(n ast.Node) { collectStrings(n, consts, keys, file) }
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.ValueSpec:
				for i, name := range x.Names {
					if lists[name.Name] && i < len(x.Values) && isStringList(x.Values[i]) {
						collect(x.Values[i])
					}
				}
			case *ast.AssignStmt:
				for i, lhs := range x.Lhs {
					if id, ok := lhs.(*ast.Ident); ok && lists[id.Name] && i < len(x.Rhs) && isStringList(x.Rhs[i]) {
						collect(x.Rhs[i])
					}
				}
			case *ast.SwitchStmt:
				if isKeyValue(x.Tag) {
					for _, c := range x.Body.List {
						for _, e := range c.(*ast.CaseClause).List {
							collect(e)
						}
					}
				}
			case *ast.CallExpr:
				if keyCalls[callName(x)] {
					for _, arg := range x.Args {
						if _, ok := arg.(*ast.CompositeLit); ok && isStringList(arg) {
							collect(arg)
						}
					}
				}
				if callName(x) == "ReadCommon" && len(x.Args) == 3 {
					if m, ok := x.Args[2].(*ast.CompositeLit); ok {
						for _, el := range m.Elts {
							if kv, ok := el.(*ast.KeyValueExpr); ok {
								collect(kv.Key)
							}
						}
					}
				}
			}
			return true
		})
	}
	return keys
}

// isStringList reports whether e is a []string literal or an append (to a
// list of keys: known = append(known, settingAPIVersion)).
func isStringList(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.CompositeLit:
		arr, ok := x.Type.(*ast.ArrayType)
		if !ok {
			return false
		}
		id, ok := arr.Elt.(*ast.Ident)
		return ok && id.Name == "string"
	case *ast.CallExpr:
		return callName(x) == "append"
	}
	return false
}

// isKeyValue reports whether e reads a YAML mapping key's value: e.Key.Value
// or k.Value.
func isKeyValue(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Value" {
		return false
	}
	switch x := sel.X.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name == "Key"
	case *ast.Ident:
		return x.Name == "k"
	}
	return false
}

// parsePackage parses the non-test Go files of one directory.
func parsePackage(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// collectStrings adds to keys every string literal and string constant in
// n, found in file. Function literals are not entered: their strings are
// messages, not keys.
func collectStrings(n ast.Node, consts, keys map[string]string, file string) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.BasicLit:
			if s, ok := stringLit(x); ok {
				keys[s] = file
			}
		case *ast.Ident:
			if s, ok := consts[x.Name]; ok {
				keys[s] = file
			}
		}
		return true
	})
}

// callName is the name of the function or method a call calls.
func callName(c *ast.CallExpr) string {
	switch f := c.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// stringLit is the value of a string literal.
func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// pendingPages are pages other branches write, which README.md and docs/
// link to before they arrive: the only links allowed to point nowhere.
var pendingPages = map[string]bool{
	"docs/releases.md":      true,
	"docs/github-action.md": true,
	"docs/opentelemetry.md": true,
}

// TestDocsLinks checks every relative link of README.md and docs/: the
// file it names exists (or is one of pendingPages) and its #anchor is a
// heading of that file.
func TestDocsLinks(t *testing.T) {
	linkRE := regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	for _, page := range docPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel := func(p string) string { r, _ := filepath.Rel(repoRoot, p); return filepath.ToSlash(r) }
		for _, line := range proseLines(string(data)) {
			for _, m := range linkRE.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if regexp.MustCompile(`^[a-z]+:`).MatchString(target) {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				file := page
				if path != "" {
					file = filepath.Join(filepath.Dir(page), path)
				}
				if pendingPages[rel(file)] {
					continue
				}
				text, err := os.ReadFile(file)
				if err != nil {
					t.Errorf("%s: link %q: %s does not exist", rel(page), target, rel(file))
					continue
				}
				if anchor != "" && strings.HasSuffix(file, ".md") && !slices.Contains(anchors(string(text)), anchor) {
					t.Errorf("%s: link %q: %s has no heading #%s", rel(page), target, rel(file), anchor)
				}
			}
		}
	}
}

// TestREADMELinksEveryPage checks that README.md, the front door, links
// every page of docs/ (of the generated reference, its first page).
func TestREADMELinksEveryPage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	for _, page := range docPages(t)[1:] {
		rel, _ := filepath.Rel(repoRoot, page)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "docs/cli/") && rel != "docs/cli/promptcanary.md" {
			continue
		}
		if !strings.Contains(readme, "]("+rel+")") && !strings.Contains(readme, "]("+rel+"#") {
			t.Errorf("README.md does not link %s from its \"Where to read on\"", rel)
		}
	}
	for page := range pendingPages {
		if !strings.Contains(readme, "]("+page+")") {
			t.Errorf("README.md does not link %s", page)
		}
	}
}

// proseLines returns the lines of a Markdown text outside fenced code
// blocks, with inline code spans taken out.
func proseLines(text string) []string {
	var out []string
	fence := false
	code := regexp.MustCompile("`[^`]*`")
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
			continue
		}
		if !fence {
			out = append(out, code.ReplaceAllString(line, ""))
		}
	}
	return out
}

// anchors returns the anchors GitHub gives the headings of a Markdown
// text: lower case, punctuation dropped, spaces as hyphens.
func anchors(text string) []string {
	var out []string
	fence := false
	drop := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
			continue
		}
		if !fence && strings.HasPrefix(line, "#") {
			h := strings.TrimLeft(line, "#")
			if !strings.HasPrefix(h, " ") {
				continue
			}
			h = drop.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), "")
			out = append(out, strings.ReplaceAll(h, " ", "-"))
		}
	}
	return out
}
