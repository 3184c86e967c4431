package schema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/probe/schema"
)

// benchOrder is a fenced order of about 4 KB; with bad set every tenth item
// breaks the schema at two places.
func benchOrder(bad bool) string {
	var b strings.Builder
	b.WriteString("```json\n{\"id\": \"ord-1234\", \"total\": 1520.5, \"email\": \"a@example.com\", \"items\": [")
	for i := range 40 {
		if i > 0 {
			b.WriteString(",")
		}
		qty := i%5 + 1
		sku := fmt.Sprintf("%q", fmt.Sprintf("sku-%03d", i))
		if bad && i%10 == 0 {
			qty, sku = 0, "42"
		}
		fmt.Fprintf(&b, "\n  {\"sku\": %s, \"qty\": %d, \"note\": \"item number %d with a few words\"}", sku, qty, i)
	}
	b.WriteString("\n]}\n```")
	return b.String()
}

func benchEvaluate(b *testing.B, content string) {
	p, err := schema.New(schema.Config{Schema: schemaMap(b, orderSchema)})
	if err != nil {
		b.Fatal(err)
	}
	probetest.Bench(b, p, &promptcanary.Prompt{ID: "p"}, &promptcanary.Response{Content: content})
}

func BenchmarkEvaluateValid(b *testing.B)   { benchEvaluate(b, benchOrder(false)) }
func BenchmarkEvaluateInvalid(b *testing.B) { benchEvaluate(b, benchOrder(true)) }
func BenchmarkEvaluateNotJSON(b *testing.B) {
	benchEvaluate(b, "Sure! Here is your order: "+benchOrder(false))
}

// BenchmarkCompile measures loading the schema, paid once per suite load.
func BenchmarkCompile(b *testing.B) {
	m := schemaMap(b, orderSchema)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schema.New(schema.Config{Schema: m}); err != nil {
			b.Fatal(err)
		}
	}
}
