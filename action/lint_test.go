package action

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// actionlint is the linter the action's workflows are checked with,
// pinned so a new release cannot fail an old commit.
const actionlint = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"

var examples = []string{
	"../docs/examples/github-action-pull-request.yml",
	"../docs/examples/github-action-monitor-schedule.yml",
}

var (
	inputRef  = regexp.MustCompile(`\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}`)
	stepRef   = regexp.MustCompile(`steps\.([A-Za-z0-9_-]+)\.outputs\.`)
	scriptRef = regexp.MustCompile(`^bash "\$PC_ACTION_PATH/(action/[a-z]+\.sh)"$`)
)

// TestActionMetadata checks action.yml against the metadata syntax
// (https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax):
// strict keys (loadAction), a description for every input and output,
// composite run steps with a shell, unique step ids, every ${{ inputs.X }}
// declared, every output read from a step that exists, every script
// present and valid bash (and clean under shellcheck, when installed),
// and every uses: pinned.
func TestActionMetadata(t *testing.T) {
	meta := loadAction(t, "../action.yml")
	if meta.Name == "" || meta.Description == "" || meta.Runs.Using != "composite" {
		t.Errorf("name %q, description %q, runs.using %q: want both set and composite", meta.Name, meta.Description, meta.Runs.Using)
	}
	for name, in := range meta.Inputs {
		if in.Description == "" {
			t.Errorf("input %s has no description", name)
		}
	}
	data, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range inputRef.FindAllStringSubmatch(string(data), -1) {
		if _, ok := meta.Inputs[m[1]]; !ok {
			t.Errorf("%s names an input that is not declared", m[0])
		}
	}
	ids := map[string]bool{}
	for _, st := range meta.Runs.Steps {
		if st.ID != "" {
			if ids[st.ID] {
				t.Errorf("step id %s is used twice", st.ID)
			}
			ids[st.ID] = true
		}
		switch {
		case st.Uses != "" && st.Run != "":
			t.Errorf("step %q has both uses and run", st.Name)
		case st.Uses != "":
			checkPinned(t, st)
		case st.Shell == "":
			t.Errorf("step %q: a composite action's run step needs shell", st.Name)
		default:
			checkScript(t, st)
		}
	}
	for name, out := range meta.Outputs {
		m := stepRef.FindStringSubmatch(out.Value)
		if out.Description == "" || m == nil || !ids[m[1]] {
			t.Errorf("output %s: description %q, value %q: want a description and a step's output", name, out.Description, out.Value)
		}
	}
}

// checkScript checks a run step calls one script of action/ that bash
// can parse.
func checkScript(t *testing.T, st actionStep) {
	t.Helper()
	m := scriptRef.FindStringSubmatch(strings.TrimSpace(st.Run))
	if m == nil {
		t.Errorf("step %q: run is %q; keep the logic in action/*.sh so it is tested", st.Name, st.Run)
		return
	}
	if out, err := exec.Command("bash", "-n", filepath.Join("..", m[1])).CombinedOutput(); err != nil {
		t.Errorf("%s: %v\n%s", m[1], err, out)
	}
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Logf("shellcheck is not installed: %s checked with bash -n only", m[1])
		return
	}
	if out, err := exec.Command("shellcheck", filepath.Join("..", m[1])).CombinedOutput(); err != nil {
		t.Errorf("shellcheck %s: %v\n%s", m[1], err, out)
	}
}

// TestDocsShowTheExamplesAndEveryInput keeps docs/github-action.md true:
// it holds the example workflows as they are linted, and names every
// input and output of action.yml.
func TestDocsShowTheExamplesAndEveryInput(t *testing.T) {
	doc, err := os.ReadFile("../docs/github-action.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		data, err := os.ReadFile(ex)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "```yaml\n"+string(data)+"```") {
			t.Errorf("docs/github-action.md does not show %s as it is", ex)
		}
	}
	meta := loadAction(t, "../action.yml")
	for name := range meta.Inputs {
		if !strings.Contains(string(doc), "| `"+name+"` |") {
			t.Errorf("docs/github-action.md: no row for input %s", name)
		}
	}
	for name := range meta.Outputs {
		if !strings.Contains(string(doc), "| `"+name+"` |") {
			t.Errorf("docs/github-action.md: no row for output %s", name)
		}
	}
}

// TestActionlint lints the example workflows with actionlint, the action
// used as a local action (uses: ./) so that actionlint also checks
// action.yml and the inputs the examples pass. A workflow passing an
// input action.yml does not have must fail, so the lint is known to run.
func TestActionlint(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: actionlint is fetched and built")
	}
	if out, err := exec.Command("go", "run", actionlint, "-version").CombinedOutput(); err != nil {
		t.Skipf("cannot fetch %s (%v): %s", actionlint, err, out)
	}
	action, err := os.ReadFile("../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var workflows []string
	for _, ex := range examples {
		data, err := os.ReadFile(ex)
		if err != nil {
			t.Fatal(err)
		}
		local := regexp.MustCompile(`promptcanary/promptcanary@\S+`).ReplaceAllString(string(data), "./")
		if local == string(data) {
			t.Fatalf("%s does not use promptcanary/promptcanary@REF", ex)
		}
		workflows = append(workflows, local)
	}
	if out, err := lint(t, action, workflows); err != nil {
		t.Fatalf("actionlint: %v\n%s", err, out)
	}
	broken := strings.Replace(workflows[0], "fail-on-drift: high", "fail-on-drift: high\n          no-such-input: 1", 1)
	out, err := lint(t, action, []string{broken})
	if err == nil || !strings.Contains(out, "no-such-input") {
		t.Fatalf("actionlint passed a workflow giving an undeclared input: %v\n%s", err, out)
	}
}

// lint runs actionlint over a project holding action.yml and workflows.
func lint(t *testing.T, action []byte, workflows []string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	wf := filepath.Join(dir, ".github", "workflows")
	if err := os.MkdirAll(wf, 0o755); err != nil {
		t.Fatal(err)
	}
	// actionlint finds the project by .git and .github/workflows.
	files := map[string][]byte{filepath.Join(dir, ".git"): nil, filepath.Join(dir, "action.yml"): action}
	for i, w := range workflows {
		files[filepath.Join(wf, "example"+string(rune('a'+i))+".yml")] = []byte(w)
	}
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "run", actionlint, "-no-color", "-oneline")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}
