package format_test

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/format"
)

func TestMarkdownHeaders(t *testing.T) {
	reportHeaders := strs("Quarterly Report", "Summary", "Risks", "Next Steps")
	runCases(t, "markdown_headers", []evalCase{
		{name: "all present ignoring case", params: map[string]any{"expected_headers": list("summary", "RISKS")},
			content: "@report.md", pass: true, score: 1,
			meta:    map[string]any{"found_headers": reportHeaders, "missing_headers": strs()},
			details: "Found 4 headers; all 2 expected headers are present"},
		{name: "one of two missing", params: map[string]any{"expected_headers": list("Summary", "Conclusion")},
			content: "@report.md", score: 0.5,
			meta:    map[string]any{"found_headers": reportHeaders, "missing_headers": strs("Conclusion")},
			details: `missing "Conclusion"`},
		{name: "case sensitive mismatch", params: map[string]any{"expected_headers": list("summary", "Risks"), "case_sensitive": true},
			content: "@report.md", score: 0.5,
			meta: map[string]any{"found_headers": reportHeaders, "missing_headers": strs("summary")}},
		{name: "missing keeps the configured spelling", params: map[string]any{"expected_headers": list("Outlook")},
			content: "# OUTLOOK 2025", score: 0,
			meta: map[string]any{"found_headers": strs("OUTLOOK 2025"), "missing_headers": strs("Outlook")}},
		{name: "seven hashes and no space are not headers",
			params:  map[string]any{"expected_headers": list("Not a header (seven hashes)", "NoSpace is not a header either")},
			content: "@report.md", score: 0},
		{name: "a hash inside a line is not a header", params: map[string]any{"expected_headers": list("Title")},
			content: "Text # Title", score: 0, meta: map[string]any{"found_headers": strs(), "missing_headers": strs("Title")}},
		{name: "all six levels", params: map[string]any{"expected_headers": list("One", "Six")},
			content: "# One\n###### Six", pass: true, score: 1},
		{name: "tab after hashes and trimmed text", params: map[string]any{"expected_headers": list("Tabbed")},
			content: "##\tTabbed   ", pass: true, score: 1,
			meta: map[string]any{"found_headers": strs("Tabbed"), "missing_headers": strs()}},
		{name: "CRLF line endings and unicode case", params: map[string]any{"expected_headers": list("RÉSUMÉ", "summary")},
			content: "@crlf.md", pass: true, score: 1,
			meta: map[string]any{"found_headers": strs("Summary", "Résumé"), "missing_headers": strs()}},
		{name: "whole text must match", params: map[string]any{"expected_headers": list("Summary")},
			content: "## Summary of results", score: 0},
		{name: "duplicate expectation counts twice", params: map[string]any{"expected_headers": list("A", "A", "B")},
			content: "# A", score: 2.0 / 3,
			meta: map[string]any{"found_headers": strs("A"), "missing_headers": strs("B")}},
		{name: "none expected", built: &format.MarkdownHeaders{}, content: "no headers", pass: true, score: 1,
			meta: map[string]any{"found_headers": strs(), "missing_headers": strs()}},
		{name: "empty content", params: map[string]any{"expected_headers": list("A")}, content: "", score: 0},
	})
}

func TestMarkdownHeadersConfig(t *testing.T) {
	runConfigCases(t, "markdown_headers", []configCase{
		{name: "missing expected_headers", want: []string{"expected_headers"}, msg: "required parameter is missing"},
		{name: "case_sensitive not a bool", params: map[string]any{"expected_headers": list("A"), "case_sensitive": "no"},
			want: []string{"case_sensitive"}, msg: "must be a boolean"},
		{name: "nothing to check", params: map[string]any{"expected_headers": list()},
			want: []string{"expected_headers"}, msg: "nothing to check: expected_headers is empty"},
		{name: "empty header", params: map[string]any{"expected_headers": list("A", "")},
			want: []string{"expected_headers[1]"}, msg: "must not be empty"},
	})
}
