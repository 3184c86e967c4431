package schema_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/promptcanary/promptcanary"
	_ "github.com/promptcanary/promptcanary/probe/schema"
	"github.com/promptcanary/promptcanary/suite"
)

// TestSchemaFileContentIsHashed: editing the schema file changes the
// prompt's hash (the baseline becomes stale instead of showing drift), and
// the same suite in another directory hashes alike.
func TestSchemaFileContentIsHashed(t *testing.T) {
	yaml := "name: s\nprobes:\n  - type: json_schema_full\n    schema_file: order.json\nprompts:\n  - {id: p, text: hi}\n"
	hash := func(dir, schema string) string {
		t.Helper()
		os.WriteFile(filepath.Join(dir, "order.json"), []byte(schema), 0o644)
		path := filepath.Join(dir, "canary.yaml")
		os.WriteFile(path, []byte(yaml), 0o644)
		st, err := suite.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Plan(promptcanary.ProviderConfig{ModelID: "sim/stable"}, 1).PromptHashes["p"]
	}
	a := hash(t.TempDir(), `{"type": "object", "required": ["id"]}`)
	b := hash(t.TempDir(), `{"type": "object", "required": ["id"]}`)
	c := hash(t.TempDir(), `{"type": "object", "required": ["id", "total"]}`)
	if a == "" || a != b {
		t.Errorf("got hashes %q and %q for the same schema in two directories, want equal", a, b)
	}
	if a == c {
		t.Errorf("got hash %q for two different schema files, want them to differ", a)
	}
}
