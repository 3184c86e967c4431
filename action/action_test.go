package action

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const (
	testRepo    = "acme/checkout"
	testToken   = "ghs_testTOKEN0123456789abcdefSECRET"
	testPR      = 42
	testVersion = "v0.0.0-test"
	marker      = "<!-- promptcanary-report -->"
)

// binDir holds promptcanary built from this tree, once for all tests.
var binDir string

func TestMain(m *testing.M) {
	code := func() int {
		dir, err := os.MkdirTemp("", "promptcanary-action-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		binDir = dir
		return m.Run()
	}()
	os.Exit(code)
}

// built returns the path of promptcanary built from this tree.
func built(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(binDir, "promptcanary")
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/promptcanary")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// needTools skips on what the action cannot run on here.
func needTools(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the action's test runs the Linux runner's steps")
	}
	for _, tool := range []string{"bash", "curl", "jq", "tar", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (bash scripts/test-deps.sh installs it)", tool)
		}
	}
}

// runnerArch is RUNNER_ARCH and the release's arch for this machine.
func runnerArch(t *testing.T) (string, string) {
	switch runtime.GOARCH {
	case "amd64":
		return "X64", "amd64"
	case "arm64":
		return "ARM64", "arm64"
	}
	t.Skipf("no release archive for %s", runtime.GOARCH)
	return "", ""
}

// release is a stand-in for GitHub's release downloads: the archive and
// SHA256SUMS of one tag under /OWNER/NAME/releases/download/TAG/, each
// answered with a redirect to the file, as github.com does; anything
// else is 404.
func release(t *testing.T, repo, tag string, files map[string][]byte) *httptest.Server {
	t.Helper()
	prefix := "/" + repo + "/releases/download/" + tag + "/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if name, ok := strings.CutPrefix(r.URL.Path, prefix); ok && files[name] != nil {
			http.Redirect(w, r, "/objects/"+tag+"/"+name, http.StatusFound)
			return
		}
		if name, ok := strings.CutPrefix(r.URL.Path, "/objects/"+tag+"/"); ok && files[name] != nil {
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write(files[name])
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// archive packs bin as the release archive of version for linux/arch,
// as scripts/release.sh lays it out (the binary at the top): its name
// and bytes.
func archive(t *testing.T, bin, version, arch string) (string, []byte) {
	t.Helper()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	base := fmt.Sprintf("promptcanary_%s_linux_%s", strings.TrimPrefix(version, "v"), arch)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"README.md", 0o644, []byte("# promptcanary\n")}, {"promptcanary", 0o755, data}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(f.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return base + ".tar.gz", buf.Bytes()
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// workspace is a checkout holding the demo suite (demo/) with a baseline
// of sim/stable, made by the built binary as a user would.
func workspace(t *testing.T, bin string) string {
	t.Helper()
	ws := t.TempDir()
	for _, args := range [][]string{
		{"init", "demo"},
		{"run", "--provider", "sim/stable", "--save-baseline", "--no-progress"},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = ws
		if args[0] == "run" {
			cmd.Dir = filepath.Join(ws, "demo")
		}
		cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY=")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("promptcanary %v: %v\n%s", args, err, out)
		}
	}
	return ws
}

// newJob is a job of a pull_request (or push) event in testRepo, with the
// variables a runner sets, the action at actionRef of
// promptcanary/promptcanary, its source this tree.
func newJob(t *testing.T, ws, event, serverURL, apiURL string) *job {
	t.Helper()
	runnerArch, _ := runnerArch(t)
	tmp := t.TempDir()
	ev := map[string]any{"action": "synchronize", "number": testPR, "pull_request": map[string]any{
		"number": testPR,
		"head":   map[string]any{"sha": "0123456789abcdef0123456789abcdef01234567", "repo": map[string]any{"full_name": testRepo}},
		"base":   map[string]any{"sha": "89abcdef0123456789abcdef0123456789abcdef", "repo": map[string]any{"full_name": testRepo}},
	}}
	if event != "pull_request" {
		ev = map[string]any{"ref": "refs/heads/main", "after": "0123456789abcdef0123456789abcdef01234567"}
	}
	eventPath := filepath.Join(tmp, "event.json")
	data, _ := json.Marshal(ev)
	if err := os.WriteFile(eventPath, data, 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"CI": "true", "GITHUB_ACTIONS": "true", "HOME": os.Getenv("HOME"),
		"GITHUB_WORKSPACE": ws, "GITHUB_REPOSITORY": testRepo, "GITHUB_REPOSITORY_OWNER": "acme",
		"GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": eventPath,
		"GITHUB_SERVER_URL": serverURL, "GITHUB_API_URL": apiURL, "GITHUB_GRAPHQL_URL": apiURL + "/graphql",
		"GITHUB_RUN_ID": "7001", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_RUN_NUMBER": "12", "GITHUB_JOB": "drift",
		"GITHUB_SHA": "fedcba9876543210fedcba9876543210fedcba98", "GITHUB_REF": "refs/pull/42/merge",
		"GITHUB_ACTOR": "octocat", "GITHUB_WORKFLOW": "drift", "GITHUB_ACTION": "__promptcanary_promptcanary",
		"RUNNER_OS": "Linux", "RUNNER_ARCH": runnerArch, "RUNNER_TEMP": tmp, "RUNNER_NAME": "test",
		"RUNNER_TOOL_CACHE": filepath.Join(tmp, "toolcache"),
	}
	// The Go toolchain's own settings, for the build from source.
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN"} {
		if out, err := exec.Command("go", "env", k).Output(); err == nil {
			env[k] = strings.TrimSpace(string(out))
		}
	}
	return &job{
		Env: env, ActionPath: root, ActionRef: testVersion,
		ActionRepository: "promptcanary/promptcanary", Token: testToken,
		Inputs: map[string]string{},
	}
}

// releaseOf serves this tree's binary as release testVersion, with sums
// as SHA256SUMS (nil: the right ones).
func releaseOf(t *testing.T, sums func(name string, data []byte) string) *httptest.Server {
	t.Helper()
	_, arch := runnerArch(t)
	name, data := archive(t, built(t), testVersion, arch)
	text := fmt.Sprintf("%s  %s\n%s  promptcanary_%s_windows_amd64.zip\n", sha(data), name, sha([]byte("other")), strings.TrimPrefix(testVersion, "v"))
	if sums != nil {
		text = sums(name, data)
	}
	return release(t, "promptcanary/promptcanary", testVersion, map[string][]byte{name: data, "SHA256SUMS": []byte(text)})
}

// fullRun is what a test of a whole run needs: the action's metadata, a
// workspace with the demo suite and the binary, and this tree's release.
// It skips the test when the tools a run takes are missing.
func fullRun(t *testing.T) (*actionMeta, string, *httptest.Server) {
	t.Helper()
	needTools(t)
	return loadAction(t, "../action.yml"), workspace(t, built(t)), releaseOf(t, nil)
}

func TestPullRequestCommentCreatedUpdatedNeverDuplicated(t *testing.T) {
	meta, ws, rel := fullRun(t)
	gh := newFakeGitHub(t, testRepo, testToken, testPR)
	// 150 comments of others: the action's own lands on page 2 of 100,
	// so finding it again needs the Link header. One quotes the marker
	// in its text, one is another job's (another key): neither is ours.
	for i := 0; i < 150; i++ {
		body := fmt.Sprintf("review comment %d", i)
		switch i {
		case 10:
			body = "what is `" + marker + "` for?"
		case 20:
			body = "<!-- promptcanary-report key=openai -->\nanother job's report"
		}
		gh.add(testPR, "octocat", body)
	}

	drifted := map[string]string{
		"working-directory": "demo", "provider": "sim/drifted",
		"args": "--baseline-provider sim/stable", "fail-on-drift": "any",
	}
	for run := 1; run <= 2; run++ {
		j := newJob(t, ws, "pull_request", rel.URL, gh.srv.URL)
		j.Inputs = drifted
		res := j.run(t, meta)
		t.Logf("run %d log:\n%s", run, res.Log)
		if res.Failed != "Gate on the verdict" {
			t.Fatalf("run %d: failed step %q, want the gate to fail on drift", run, res.Failed)
		}
		checkOutputs(t, res, "1", "critical")
		if !strings.Contains(res.Summary, "Drift detected") {
			t.Errorf("run %d: step summary lacks the report:\n%s", run, res.Summary)
		}
		ours := gh.comments(testPR, "Drift detected")
		if len(ours) != 1 || !strings.HasPrefix(ours[0].Body, marker+"\n") {
			t.Fatalf("run %d: %d comments with the report, want 1 starting with the marker", run, len(ours))
		}
		if !strings.Contains(ours[0].Body, "exited 1 (severity critical) at 0123456") {
			t.Errorf("run %d: comment lacks its footer:\n%s", run, ours[0].Body)
		}
		if strings.Contains(res.Log, testToken) {
			t.Fatalf("run %d: the token is in the log", run)
		}
		if want := []string{"actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f"}; fmt.Sprint(res.Skipped) != fmt.Sprint(want) {
			t.Errorf("uses steps %v, want %v", res.Skipped, want)
		}
	}
	if got := gh.count("POST"); got != 1 {
		t.Errorf("%d POSTs, want 1 (created once)", got)
	}
	if got := gh.count("PATCH"); got != 1 {
		t.Errorf("%d PATCHes, want 1 (the second run updates)", got)
	}

	j := newJob(t, ws, "pull_request", rel.URL, gh.srv.URL)
	j.Inputs = map[string]string{"working-directory": "demo", "provider": "sim/stable"}
	res := j.run(t, meta)
	t.Logf("clean run log:\n%s", res.Log)
	if res.Failed != "" {
		t.Fatalf("clean compare: step %q failed", res.Failed)
	}
	checkOutputs(t, res, "0", "none")
	all := gh.comments(testPR, marker)
	if len(all) != 2 { // ours and the one quoting the marker
		t.Fatalf("%d comments hold the marker, want ours and the quote", len(all))
	}
	ours := gh.comments(testPR, marker+"\n")
	if len(ours) != 1 || !strings.Contains(ours[0].Body, "No drift") || strings.Contains(ours[0].Body, "Drift detected") {
		t.Fatalf("after a clean compare the comment says:\n%v", ours)
	}
	if got := len(gh.comments(testPR, "")); got != 151 {
		t.Errorf("%d comments on the pull request, want 151", got)
	}
	if got := gh.count("POST"); got != 1 {
		t.Errorf("%d POSTs, want 1", got)
	}
}

// checkOutputs checks the action's outputs after a run.
func checkOutputs(t *testing.T, res *result, exitCode, severity string) {
	t.Helper()
	if res.Outputs["exit-code"] != exitCode || res.Outputs["severity"] != severity {
		t.Errorf("outputs exit-code %q severity %q, want %q %q", res.Outputs["exit-code"], res.Outputs["severity"], exitCode, severity)
	}
	md, err := os.ReadFile(res.Outputs["report-path"])
	if err != nil {
		t.Fatalf("output report-path: %v", err)
	}
	if !strings.HasPrefix(string(md), "## ") {
		t.Errorf("report-path %s is not the Markdown report", res.Outputs["report-path"])
	}
	html := filepath.Join(filepath.Dir(res.Outputs["report-path"]), "drift.html")
	if b, err := os.ReadFile(html); err != nil || !bytes.Contains(b, []byte("<html")) {
		t.Errorf("no HTML report beside report-path: %v", err)
	}
}

// setEvent rewrites the job's event file with edit applied.
func setEvent(t *testing.T, j *job, edit func(ev map[string]any)) {
	t.Helper()
	path := j.Env["GITHUB_EVENT_PATH"]
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	edit(ev)
	data, _ = json.Marshal(ev)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestInstallRefusesABadChecksum(t *testing.T) {
	needTools(t)
	meta := loadAction(t, "../action.yml")
	ws := t.TempDir()
	for _, tc := range []struct {
		name, want string
		sums       func(name string, data []byte) string
	}{
		{"mismatch", "checksum mismatch for promptcanary_0.0.0-test_linux_", func(name string, data []byte) string {
			return sha(append(data, 0)) + "  " + name + "\n"
		}},
		{"not listed", "SHA256SUMS of release v0.0.0-test lists no promptcanary_0.0.0-test_linux_", func(string, []byte) string {
			return sha([]byte("x")) + "  promptcanary_0.0.0-test_darwin_arm64.tar.gz\n"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rel := releaseOf(t, tc.sums)
			gh := newFakeGitHub(t, testRepo, testToken, testPR)
			j := newJob(t, ws, "pull_request", rel.URL, gh.srv.URL)
			res := j.run(t, meta)
			if res.Failed != "Install promptcanary" || !strings.Contains(res.Log, tc.want) {
				t.Fatalf("failed step %q, want the install to fail with %q; log:\n%s", res.Failed, tc.want, res.Log)
			}
			if strings.Contains(res.Log, "building the action's source") {
				t.Errorf("a bad checksum fell back to building from source:\n%s", res.Log)
			}
			if _, err := os.Stat(filepath.Join(j.Env["RUNNER_TEMP"], "promptcanary-bin", "promptcanary")); err == nil {
				t.Errorf("the binary was installed despite the bad checksum")
			}
			gh.wantNoCalls(t, "after a failed install")
		})
	}
}

func TestInstallBuildsAnUnreleasedRef(t *testing.T) {
	needTools(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	meta := loadAction(t, "../action.yml")
	ws := workspace(t, built(t))
	rel := releaseOf(t, nil) // has v0.0.0-test only
	gh := newFakeGitHub(t, testRepo, testToken, testPR)
	j := newJob(t, ws, "push", rel.URL, gh.srv.URL)
	j.Inputs = map[string]string{"version": "v9.9.9", "working-directory": "demo", "provider": "sim/stable"}
	res := j.run(t, meta)
	if res.Failed != "" {
		t.Fatalf("step %q failed:\n%s", res.Failed, res.Log)
	}
	for _, want := range []string{"v9.9.9 has no release archive", "building the action's source (v9.9.9)", "event push is not a pull request: no comment"} {
		if !strings.Contains(res.Log, want) {
			t.Errorf("log lacks %q:\n%s", want, res.Log)
		}
	}
	checkOutputs(t, res, "0", "none")
	if !strings.Contains(res.Summary, "No drift") {
		t.Errorf("summary lacks the report:\n%s", res.Summary)
	}
	gh.wantNoCalls(t, "on a push event")
}

func TestCommentRefusals(t *testing.T) {
	meta, ws, rel := fullRun(t)
	clean := map[string]string{"working-directory": "demo", "provider": "sim/stable"}
	for _, tc := range []struct {
		name   string
		edit   func(j *job, gh *fakeGitHub)
		failed string
		want   string
	}{
		{"wrong token", func(j *job, _ *fakeGitHub) { j.Token = "ghs_wrong" },
			"Comment on the pull request", "HTTP 401: Bad credentials (check the github-token input)"},
		{"another repository", func(j *job, _ *fakeGitHub) { j.Env["GITHUB_REPOSITORY"] = "acme/other" },
			"Comment on the pull request", "HTTP 404: Not Found (repository acme/other or pull request #42 not found"},
		{"read-only token", func(_ *job, gh *fakeGitHub) { gh.readOnly = true },
			"Comment on the pull request", "HTTP 403: Resource not accessible by integration (the token needs pull-requests: write"},
		{"fork with a read-only token", func(j *job, gh *fakeGitHub) {
			gh.readOnly = true
			setEvent(t, j, func(ev map[string]any) {
				ev["pull_request"].(map[string]any)["head"].(map[string]any)["repo"] = map[string]any{"full_name": "someone/checkout"}
			})
		}, "", "::warning title=promptcanary comment::comment on pull request #42: HTTP 403 on a pull request from a fork"},
		{"comment off", func(j *job, _ *fakeGitHub) { j.Inputs["comment"] = "false" },
			"", "input comment is false: no comment"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh := newFakeGitHub(t, testRepo, testToken, testPR)
			j := newJob(t, ws, "pull_request", rel.URL, gh.srv.URL)
			j.Inputs = map[string]string{}
			for k, v := range clean {
				j.Inputs[k] = v
			}
			tc.edit(j, gh)
			res := j.run(t, meta)
			if res.Failed != tc.failed || !strings.Contains(res.Log, tc.want) {
				t.Fatalf("failed step %q, want %q with %q; log:\n%s", res.Failed, tc.failed, tc.want, res.Log)
			}
			if strings.Contains(res.Log, testToken) {
				t.Fatal("the token is in the log")
			}
			if got := len(gh.comments(testPR, "")); got != 0 {
				t.Errorf("%d comments, want none", got)
			}
			checkOutputs(t, res, "0", "none")
		})
	}
}

func TestInstallOnly(t *testing.T) {
	needTools(t)
	meta := loadAction(t, "../action.yml")
	rel := releaseOf(t, nil)
	gh := newFakeGitHub(t, testRepo, testToken, testPR)
	j := newJob(t, t.TempDir(), "pull_request", rel.URL, gh.srv.URL)
	j.Inputs = map[string]string{"install-only": "true"}
	res := j.run(t, meta)
	if res.Failed != "" || !strings.Contains(res.Log, "install-only: nothing compared") {
		t.Fatalf("step %q failed, or compared:\n%s", res.Failed, res.Log)
	}
	if len(res.Path) != 1 {
		t.Fatalf("PATH additions %v, want the install directory", res.Path)
	}
	out, err := exec.Command(filepath.Join(res.Path[0], "promptcanary"), "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "promptcanary ") {
		t.Errorf("promptcanary on PATH: %v %s", err, out)
	}
	for name, v := range res.Outputs {
		if v != "" {
			t.Errorf("output %s = %q, want empty with install-only", name, v)
		}
	}
	gh.wantNoCalls(t, "with install-only")
}

func TestInputsAndErrorsReachTheComment(t *testing.T) {
	meta, ws, rel := fullRun(t)
	for _, tc := range []struct {
		name   string
		inputs map[string]string
		code   string
		log    string
	}{
		{"samples and args", map[string]string{"samples": "2", "args": "--max-errors 1  --tag  nosuchtag", "fail-on-drift": "false"},
			"2", "--samples 2 --max-errors 1 --tag nosuchtag"},
		{"bad fail-on-drift", map[string]string{"fail-on-drift": "sometimes"},
			"2", "input fail-on-drift is 'sometimes'; use any, low, medium, high, critical or false"},
		{"bad samples", map[string]string{"samples": "0"},
			"2", "input samples is '0'; use a whole number of 1 or more"},
		{"missing suite", map[string]string{"config": "nosuch.yaml"},
			"2", "nosuch.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh := newFakeGitHub(t, testRepo, testToken, testPR)
			j := newJob(t, ws, "pull_request", rel.URL, gh.srv.URL)
			j.Inputs = map[string]string{"working-directory": "demo", "provider": "sim/stable"}
			for k, v := range tc.inputs {
				j.Inputs[k] = v
			}
			res := j.run(t, meta)
			if res.Failed != "Gate on the verdict" || res.Outputs["exit-code"] != tc.code || !strings.Contains(res.Log, tc.log) {
				t.Fatalf("failed step %q, exit-code %q, want the gate to fail with %s and the log to say %q:\n%s",
					res.Failed, res.Outputs["exit-code"], tc.code, tc.log, res.Log)
			}
			if res.Outputs["severity"] != "" || res.Outputs["report-path"] != "" {
				t.Errorf("outputs %v: want no severity and no report-path without a report", res.Outputs)
			}
			c := gh.comments(testPR, marker+"\n")
			if len(c) != 1 || !strings.Contains(c[0].Body, "No drift report: `promptcanary compare` exited "+tc.code) {
				t.Fatalf("comments %v, want one saying there is no report", c)
			}
			if !strings.Contains(res.Summary, "No drift report") {
				t.Errorf("summary %q does not say there is no report", res.Summary)
			}
		})
	}
}

// TestCommentCutToGitHubsLimit runs the comment script alone with a
// report longer than GitHub takes (in characters, not bytes): the comment
// is cut, says so, and the stand-in accepts it.
func TestCommentCutToGitHubsLimit(t *testing.T) {
	needTools(t)
	gh := newFakeGitHub(t, testRepo, testToken, testPR)
	j := newJob(t, t.TempDir(), "pull_request", "http://127.0.0.1:1", gh.srv.URL)
	report := filepath.Join(t.TempDir(), "drift.md")
	if err := os.WriteFile(report, []byte("## report\n\n"+strings.Repeat("é", maxCommentChars)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "../action/comment.sh")
	for k, v := range j.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "PATH="+os.Getenv("PATH"), "GITHUB_TOKEN="+testToken, "PC_REPORT="+report, "PC_EXIT_CODE=1", "PC_SEVERITY=high")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("comment.sh: %v\n%s", err, out)
	}
	c := gh.comments(testPR, marker)
	if len(c) != 1 {
		t.Fatalf("%d comments, want 1:\n%s", len(c), out)
	}
	n := len([]rune(c[0].Body))
	if n > maxCommentChars || n < maxCommentChars-200 || !strings.Contains(c[0].Body, "cut to fit GitHub's comment limit") ||
		!strings.HasSuffix(c[0].Body, "</sub>") {
		t.Errorf("comment of %d characters, ending %q", n, c[0].Body[len(c[0].Body)-300:])
	}
}
