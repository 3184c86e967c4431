package suite

import (
	"regexp"
	"strings"

	"github.com/promptcanary/promptcanary/probe"
)

var promptsKey = regexp.MustCompile(`(?m)^prompts:`)

// ExampleFile returns a complete canary.yaml that shows t in use: the
// probe type's example, with a name and, when the example declares none, a
// prompt. It loads without problems, so `promptcanary probes show` can
// print something a user may copy as it is.
func ExampleFile(t probe.Type) string {
	var b strings.Builder
	b.WriteString("name: " + t.ID + "-example\n")
	ex := t.ExampleYAML()
	b.WriteString(ex)
	if !strings.HasSuffix(ex, "\n") {
		b.WriteString("\n")
	}
	if !promptsKey.MatchString(ex) {
		b.WriteString("prompts:\n  - id: capital\n    text: What is the capital of France?\n")
	}
	return b.String()
}
