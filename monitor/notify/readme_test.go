package notify_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/monitor/notify"
)

// webhookSection returns the section of docs/notifiers.md on the webhook
// body and its signature, and its fenced code blocks by language.
func webhookSection(t *testing.T) (string, map[string]string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "notifiers.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "\n## The webhook body\n")
	if !ok {
		t.Fatal("docs/notifiers.md has no section \"## The webhook body\"")
	}
	// The section ends at the next heading of its level, or at the end.
	sec, _, _ = strings.Cut(sec, "\n## ")
	blocks := map[string]string{}
	rest := sec
	for {
		var open, body string
		if _, open, ok = strings.Cut(rest, "\n```"); !ok {
			break
		}
		lang, after, _ := strings.Cut(open, "\n")
		if body, rest, ok = strings.Cut(after, "\n```"); !ok {
			t.Fatal("docs/notifiers.md: a code block is not closed")
		}
		if lang != "" {
			blocks[lang] = body
		}
	}
	return sec, blocks
}

// TestREADMEWebhookSignature holds the four verification examples of
// docs/notifiers.md (once in the README) to VerifyWebhook: the Go line is
// the one ExampleVerifyWebhook compiles and runs, the Python and Node functions (run when python3 and
// node are installed) give VerifyWebhook's answer on every case of
// verifyCases, and the openssl line computes the documented v1.
func TestREADMEWebhookSignature(t *testing.T) {
	sec, blocks := webhookSection(t)
	for _, want := range []string{"**5 minutes**", readmeBody, readmeSecret, "t=1700000000", "v1=" + readmeV1, "X-PromptCanary-Webhook-Signature", "next release"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the webhook section of docs/notifiers.md does not say %q", want)
		}
	}
	for _, lang := range []string{"python", "js", "go", "sh"} {
		if blocks[lang] == "" {
			t.Fatalf("the webhook section of docs/notifiers.md has no %s example", lang)
		}
	}
	t.Run("go", func(t *testing.T) {
		example, err := os.ReadFile("example_test.go")
		if err != nil {
			t.Fatal(err)
		}
		if line := strings.TrimSpace(blocks["go"]); !bytes.Contains(example, []byte(line)) {
			t.Errorf("the Go example of docs/notifiers.md is not the line ExampleVerifyWebhook runs:\n%s", line)
		}
	})
	t.Run("python", func(t *testing.T) {
		runVerifier(t, "python3", "-c", blocks["python"]+`
import json, sys
for c in json.load(sys.stdin):
    print("true" if verify(c["body"].encode(), c["secret"], c["header"], c["now"]) else "false")
`)
	})
	t.Run("node", func(t *testing.T) {
		runVerifier(t, "node", "-e", blocks["js"]+`
let input = "";
process.stdin.on("data", (d) => (input += d)).on("end", () => {
  for (const c of JSON.parse(input)) console.log(verify(Buffer.from(c.body), c.secret, c.header, c.now) ? "true" : "false");
});
`)
	})
	t.Run("openssl", func(t *testing.T) {
		needs(t, "sh", "-c", "command -v openssl")
		cmd := exec.Command("sh", "-c", blocks["sh"])
		cmd.Env = append(os.Environ(), "T=1700000000", "BODY="+readmeBody, "HOOK_SECRET="+readmeSecret)
		out, err := cmd.CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != "v1="+readmeV1 {
			t.Errorf("got %q, %v, want v1=%s", got, err, readmeV1)
		}
	})
}

// runVerifier runs script (an example of docs/notifiers.md and a driver
// reading the cases as JSON on stdin, printing true or false for each)
// with the interpreter interp (evalFlag runs a one-line program, to see that it
// works) and compares its answers with VerifyWebhook's.
func runVerifier(t *testing.T, interp, evalFlag, script string) {
	t.Helper()
	needs(t, interp, evalFlag, "0")
	cases := verifyCases()
	type jsonCase struct {
		Body   string `json:"body"`
		Secret string `json:"secret"`
		Header string `json:"header"`
		Now    int64  `json:"now"`
	}
	in := make([]jsonCase, len(cases))
	for i, c := range cases {
		in[i] = jsonCase{c.body, c.secret, c.header, c.now}
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "verify")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(interp, path)
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", interp, err, out)
	}
	got := strings.Fields(string(out))
	if len(got) != len(cases) {
		t.Fatalf("%s answered %q for %d cases", interp, got, len(cases))
	}
	for i, c := range cases {
		want := "false"
		if c.want == nil {
			want = "true"
		}
		if got[i] != want {
			t.Errorf("%s: case %q: got %s, want %s", interp, c.name, got[i], want)
		}
	}
}

// needs skips the test unless the command runs.
func needs(t *testing.T, name string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("no %s: %v", name, err)
	}
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Skipf("%s does not run: %v %s", name, err, out)
	}
}

// TestREADMEWebhookBodyExample holds the example body of
// docs/notifiers.md to WebhookBody: it decodes with no key the body does
// not have, and names every key the body has, attribution included.
func TestREADMEWebhookBodyExample(t *testing.T) {
	_, blocks := webhookSection(t)
	doc := blocks["json"]
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.DisallowUnknownFields()
	var b notify.WebhookBody
	if err := dec.Decode(&b); err != nil {
		t.Fatalf("the example body of docs/notifiers.md is not a webhook body: %v", err)
	}
	var documented map[string]any
	if err := json.Unmarshal([]byte(doc), &documented); err != nil {
		t.Fatal(err)
	}
	sent, err := json.Marshal(notify.WebhookBody{})
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]any
	if err := json.Unmarshal(sent, &all); err != nil {
		t.Fatal(err)
	}
	for k := range all {
		if _, ok := documented[k]; !ok {
			t.Errorf("the example body of docs/notifiers.md lacks the key %q", k)
		}
	}
	if b.Attribution == nil || b.Attribution.Cause == "" || len(b.Attribution.Evidence) == 0 {
		t.Errorf("the example body's attribution %+v, want a cause with its evidence", b.Attribution)
	}
}
