package format

import (
	"context"
	"strconv"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/internal/text"
)

// previewChars is how many characters of the response the probes keep as a
// preview in their metadata.
const previewChars = 200

// JSONValidity passes when the response, once a surrounding Markdown code
// fence is removed, is one valid JSON value of any type. It has no
// parameters.
type JSONValidity struct{}

var _ probe.Probe = (*JSONValidity)(nil)

func init() {
	probe.Register(probe.Type{
		ID:          "json_validity",
		Name:        "JSON Validity",
		Category:    promptcanary.CategoryFormat,
		Description: "Checks that the response parses as valid JSON.",
		Example: `probes:
  - type: json_validity
`,
		New: func(probe.Params) (probe.Probe, error) { return &JSONValidity{}, nil },
	})
}

// Evaluate parses the fence-stripped response. Valid JSON passes with score
// 1; otherwise the result fails with score 0, the details name the parse
// error and its byte offset (json.SyntaxError.Offset), and the metadata holds "error" and
// "raw_content_preview" (the first 200 characters of the parsed text).
func (*JSONValidity) Evaluate(_ context.Context, in probe.Input) probe.Result {
	r := in.Response
	content := text.StripFences(r.Content)
	doc := validateJSON(content)
	if doc.err == nil {
		return probe.Result{Passed: true, Score: 1,
			Details:  validDetails(doc.kind),
			Metadata: map[string]any{}}
	}
	msg := doc.err.Error()
	details := "Response is not valid JSON: " + msg + "."
	if off, ok := errorOffset(doc.err); ok {
		// The offset is json.SyntaxError.Offset: the bytes read when the
		// error was found, so the offending byte is the off-th one.
		details = "Response is not valid JSON: " + msg + " (byte offset " + strconv.FormatInt(off, 10) + ")."
	}
	return probe.Result{Details: details, Metadata: map[string]any{
		"error":               msg,
		"raw_content_preview": text.Preview(content, previewChars),
	}}
}

// validDetails returns the details of valid JSON of a kind, without
// building the string.
func validDetails(kind string) string {
	switch kind {
	case "object":
		return "Response is valid JSON (object)."
	case "array":
		return "Response is valid JSON (array)."
	case "string":
		return "Response is valid JSON (string)."
	case "number":
		return "Response is valid JSON (number)."
	case "boolean":
		return "Response is valid JSON (boolean)."
	case "null":
		return "Response is valid JSON (null)."
	}
	return "Response is valid JSON (" + kind + ")."
}
