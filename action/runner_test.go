package action

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The runner's side of a composite action, as far as action.yml uses it:
// https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax
// (runs.steps of a composite action), the workflow commands' files
// https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands
// (GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY) and the bash shell
// https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idstepsshell
// ("bash --noprofile --norc -eo pipefail {0}").

// actionMeta is action.yml; decoded with KnownFields, so a key the
// metadata syntax does not have fails the test.
type actionMeta struct {
	Name        string                 `yaml:"name"`
	Description string                 `yaml:"description"`
	Author      string                 `yaml:"author"`
	Branding    map[string]string      `yaml:"branding"`
	Inputs      map[string]actionInput `yaml:"inputs"`
	Outputs     map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionInput struct {
	Description        string `yaml:"description"`
	Required           bool   `yaml:"required"`
	Default            string `yaml:"default"`
	DeprecationMessage string `yaml:"deprecationMessage"`
}

type actionStep struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Shell            string            `yaml:"shell"`
	Run              string            `yaml:"run"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Env              map[string]string `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
	// UsesComment is the comment on the uses: line (the pinned version).
	UsesComment string `yaml:"-"`
}

// loadAction reads and strictly decodes action.yml.
func loadAction(t *testing.T, path string) *actionMeta {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var meta actionMeta
	if err := dec.Decode(&meta); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	comments := usesComments(&root)
	for i := range meta.Runs.Steps {
		meta.Runs.Steps[i].UsesComment = comments[meta.Runs.Steps[i].Uses]
	}
	return &meta
}

// usesComments maps every uses: value in the document to its line comment.
func usesComments(n *yaml.Node) map[string]string {
	out := map[string]string{}
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == "uses" {
					out[n.Content[i+1].Value] = n.Content[i+1].LineComment
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return out
}

// job is one use of the action in a job: the runner's variables and the
// action's inputs.
type job struct {
	// Env is what the runner sets (GITHUB_*, RUNNER_*), PATH excluded.
	Env map[string]string
	// Inputs are the with: of the workflow's step.
	Inputs map[string]string
	// ActionPath is github.action_path; Token github.token.
	ActionPath, ActionRef, ActionRepository, Token string
}

// result is what one use of the action left behind.
type result struct {
	Outputs map[string]string
	Summary string
	Log     string
	// Failed is the name of the step that failed, "" when none did.
	Failed string
	// Skipped lists the uses: steps, which are checked but not run.
	Skipped []string
	// Path lists the directories the steps added to PATH (GITHUB_PATH).
	Path []string
}

var exprPattern = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// expand replaces ${{ … }} with inputs.X, github.X and steps.ID.outputs.X;
// any other expression fails the test, so one the harness cannot
// evaluate is never taken as empty.
func (j *job) expand(t *testing.T, s string, inputs map[string]string, steps map[string]map[string]string) string {
	t.Helper()
	return exprPattern.ReplaceAllStringFunc(s, func(m string) string {
		e := exprPattern.FindStringSubmatch(m)[1]
		parts := strings.Split(e, ".")
		switch {
		case len(parts) == 2 && parts[0] == "inputs":
			v, ok := inputs[parts[1]]
			if !ok {
				t.Fatalf("action.yml: %s names an input that is not declared", m)
			}
			return v
		case len(parts) == 2 && parts[0] == "github":
			switch parts[1] {
			case "action_path":
				return j.ActionPath
			case "action_ref":
				return j.ActionRef
			case "action_repository":
				return j.ActionRepository
			case "token":
				return j.Token
			}
		case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
			return steps[parts[1]][parts[3]]
		}
		t.Fatalf("action.yml: the test harness cannot evaluate %s", m)
		return ""
	})
}

// run runs the action's steps in order, as a runner does: uses: steps are
// checked for pinning and skipped, a failed step skips the rest.
func (j *job) run(t *testing.T, meta *actionMeta) *result {
	t.Helper()
	if meta.Runs.Using != "composite" {
		t.Fatalf("runs.using is %q, want composite", meta.Runs.Using)
	}
	inputs := map[string]string{}
	for name, in := range meta.Inputs {
		inputs[name] = j.expand(t, in.Default, nil, nil)
	}
	for name, v := range j.Inputs {
		if _, ok := meta.Inputs[name]; !ok {
			t.Fatalf("with: %s is not an input of action.yml", name)
		}
		inputs[name] = v
	}
	res := &result{Outputs: map[string]string{}}
	steps := map[string]map[string]string{}
	var log strings.Builder
	var extraPath []string
	for i, st := range meta.Runs.Steps {
		if st.Uses != "" {
			checkPinned(t, st)
			res.Skipped = append(res.Skipped, st.Uses)
			continue
		}
		outputs, summary, paths, err := j.runStep(t, i, st, inputs, steps, extraPath, &log)
		res.Summary += summary
		extraPath = append(paths, extraPath...)
		if st.ID != "" {
			steps[st.ID] = outputs
		}
		if err != nil {
			res.Failed = st.Name
			fmt.Fprintf(&log, "step %q failed: %v\n", st.Name, err)
			break
		}
	}
	for name, out := range meta.Outputs {
		res.Outputs[name] = j.expand(t, out.Value, inputs, steps)
	}
	res.Log = log.String()
	res.Path = extraPath
	return res
}

// runStep runs one run: step with bash and reads back the files the
// runner gives it.
func (j *job) runStep(t *testing.T, i int, st actionStep, inputs map[string]string, steps map[string]map[string]string, extraPath []string, log *strings.Builder) (map[string]string, string, []string, error) {
	t.Helper()
	if st.Shell != "bash" {
		t.Fatalf("step %q: shell is %q; a composite action's run step needs shell: bash here", st.Name, st.Shell)
	}
	if st.If != "" {
		t.Fatalf("step %q: if: on a run step is not evaluated by the test harness; decide in the script", st.Name)
	}
	if strings.Contains(st.Run, "${{") {
		t.Fatalf("step %q: ${{ }} inside run: (script injection); pass values through env:", st.Name)
	}
	dir := t.TempDir()
	files := map[string]string{}
	for _, f := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_PATH", "GITHUB_ENV"} {
		files[f] = filepath.Join(dir, f)
		if err := os.WriteFile(files[f], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(dir, "step.sh")
	if err := os.WriteFile(script, []byte(st.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = j.Env["GITHUB_WORKSPACE"]
	if wd := j.expand(t, st.WorkingDirectory, inputs, steps); wd != "" {
		cmd.Dir = filepath.Join(cmd.Dir, wd)
	}
	env := map[string]string{"PATH": strings.Join(append(extraPath, os.Getenv("PATH")), string(os.PathListSeparator))}
	for k, v := range j.Env {
		env[k] = v
	}
	for k, v := range files {
		env[k] = v
	}
	env["GITHUB_ACTION_PATH"] = j.ActionPath
	for k, v := range st.Env {
		env[k] = j.expand(t, v, inputs, steps)
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	fmt.Fprintf(log, "== step %d %q\n%s", i, st.Name, out.String())
	outputs := readOutputs(t, files["GITHUB_OUTPUT"])
	summary, _ := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	var paths []string
	if p, _ := os.ReadFile(files["GITHUB_PATH"]); len(p) > 0 {
		paths = strings.Fields(string(p))
	}
	return outputs, string(summary), paths, err
}

// readOutputs parses a GITHUB_OUTPUT file: name=value lines and
// name<<DELIMITER blocks.
func readOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var lines []string
			for sc.Scan() && sc.Text() != delim {
				lines = append(lines, sc.Text())
			}
			out[name] = strings.Join(lines, "\n")
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT: line %q is neither name=value nor name<<DELIMITER", line)
		}
		out[name] = value
	}
	return out
}

var pinnedUses = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[^@]+)?@[0-9a-f]{40}$`)
var versionComment = regexp.MustCompile(`^# v[0-9]+\.[0-9]+\.[0-9]+$`)

// checkPinned fails unless a uses: names a full commit SHA with the
// version it is in a comment (# vX.Y.Z), as GitHub's security hardening
// guide advises: https://docs.github.com/en/actions/security-for-github-actions/security-guides/security-hardening-for-github-actions#using-third-party-actions
func checkPinned(t *testing.T, st actionStep) {
	t.Helper()
	if !pinnedUses.MatchString(st.Uses) {
		t.Errorf("step %q: uses %q is not pinned to a full commit SHA", st.Name, st.Uses)
	}
	if !versionComment.MatchString(st.UsesComment) {
		t.Errorf("step %q: uses %q has comment %q, want the version as # vX.Y.Z", st.Name, st.Uses, st.UsesComment)
	}
}
