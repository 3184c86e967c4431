package report

import (
	"testing"

	"github.com/promptcanary/promptcanary"
)

// TestAttributionShown checks that every drift report format shows the
// likely cause under the verdict, with its evidence escaped (a served
// model id is the provider's text), and nothing of it when there is none.
func TestAttributionShown(t *testing.T) {
	d := notCompared(promptcanary.StatusStable)
	d.Attribution = &promptcanary.Attribution{Cause: promptcanary.CauseProvider,
		Evidence: []string{`model changed: baseline "m1", now also "<script>x</script>**b**"`}}
	tests := []struct {
		f         Format
		want, not []string
	}{
		{Terminal, []string{`likely cause: provider (model changed: baseline "m1", now also "<script>x</script>**b**").`}, nil},
		{Markdown, []string{`Likely cause: **provider** (model changed: baseline "m1", now also "&lt;script&gt;x&lt;/script&gt;\*\*b\*\*").`}, []string{"<script>"}},
		{HTML, []string{`<span class="badge warn">likely cause</span> <strong>provider</strong>: model changed: baseline &#34;m1&#34;, now also &#34;&lt;script&gt;x&lt;/script&gt;**b**&#34;.`}, []string{"<script>"}},
		{JSON, []string{`"attribution": {`, `"cause": "provider",`}, nil},
		{JUnit, []string{`name="attribution_cause" value="provider"`, `&lt;script&gt;`}, []string{"<script>"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.f), func(t *testing.T) {
			checkOutput(t, render(t, tc.f, nil, d, Options{Width: 400}), tc.want, tc.not)
		})
	}
	d.Attribution = nil
	for _, f := range Formats {
		checkOutput(t, render(t, f, nil, d, Options{Width: 400}), nil, []string{"likely cause", "Likely cause", `"attribution"`})
	}
}
