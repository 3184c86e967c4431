package format_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/probe/format"
)

// benchObject is a fenced JSON object of about 4 KB with nested values, the
// size of a typical structured answer.
var benchObject = func() string {
	var b strings.Builder
	b.WriteString("```json\n{")
	for i := range 40 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n  \"field_%02d\": {\"text\": \"value number %d with some words\", \"tags\": [1, 2.5, true, null]}", i, i)
	}
	b.WriteString("\n}\n```")
	return b.String()
}()

func bench(b *testing.B, p probe.Probe, content string) {
	b.Helper()
	probetest.Bench(b, p, &promptcanary.Prompt{ID: "p", ExpectedKeywords: []string{"value", "field_39", "absent"}},
		&promptcanary.Response{Content: content})
}

func BenchmarkJSONValidity(b *testing.B) { bench(b, &format.JSONValidity{}, benchObject) }

func BenchmarkJSONSchema(b *testing.B) {
	bench(b, &format.JSONSchema{RequiredKeys: []string{"field_00", "field_20", "field_39", "absent"},
		ForbiddenKeys: []string{"error"}}, benchObject)
}

func BenchmarkJSONKeyOrder(b *testing.B) {
	bench(b, &format.JSONKeyOrder{ExpectedOrder: []string{"field_00", "field_10", "field_30", "field_20"}}, benchObject)
}

func BenchmarkResponseLength(b *testing.B) {
	bench(b, &format.ResponseLength{MinChars: 1, MaxChars: 10000, BaselineChars: 4000}, benchObject)
}

func BenchmarkMarkdownHeaders(b *testing.B) {
	doc := strings.Repeat("## Section\nSome text under the section.\n\n", 50)
	bench(b, &format.MarkdownHeaders{ExpectedHeaders: []string{"Section", "Missing"}}, doc)
}

func BenchmarkKeywordPresence(b *testing.B) {
	bench(b, &format.KeywordPresence{RequiredKeywords: []string{"value number 7", "Field_12"},
		ForbiddenKeywords: []string{"I'm sorry"}}, benchObject)
}

func BenchmarkExpectedKeywords(b *testing.B) { bench(b, &format.ExpectedKeywords{}, benchObject) }
