package release

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var testMeta = Meta{Version: "0.0.0-test", Commit: "0123456789abcdef0123456789abcdef01234567",
	Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}

// cdxSchema compiles the CycloneDX 1.5 schema from testdata.
func cdxSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	for _, name := range []string{"bom-1.5.schema.json", "spdx.schema.json", "jsf-0.82.schema.json"} {
		f, err := os.Open(filepath.Join("testdata", "cyclonedx", name))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := c.AddResource("http://cyclonedx.org/schema/"+name, doc); err != nil {
			t.Fatal(err)
		}
	}
	s, err := c.Compile("http://cyclonedx.org/schema/bom-1.5.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The SBOM of several binaries is valid CycloneDX 1.5, names each module
// once with its hash, and is the same whatever the binaries' order. (Test
// binaries carry no module list, so the build information is made here;
// release_test.go checks the SBOM of a real release build.)
func TestSBOM(t *testing.T) {
	amd64 := &debug.BuildInfo{GoVersion: "go1.26.8", Deps: []*debug.Module{
		{Path: "github.com/google/go-containerregistry", Version: "v0.22.1", Sum: "h1:RZuuSYhTvlDvtsK+NkutoCZ//C0X2ebLK8X8l3ULs84="},
		{Path: "golang.org/x/sys", Version: "v0.50.0", Sum: "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="},
		{Path: "example.com/old", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v1.0.1"}},
	}}
	windows := &debug.BuildInfo{GoVersion: "go1.26.8", Deps: []*debug.Module{
		{Path: "golang.org/x/sys", Version: "v0.50.0", Sum: "h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="},
		{Path: "github.com/inconshreveable/mousetrap", Version: "v1.1.0"},
	}}
	a, err := SBOM(testMeta, []*debug.BuildInfo{amd64, windows})
	if err != nil {
		t.Fatal(err)
	}
	b, err := SBOM(testMeta, []*debug.BuildInfo{windows, amd64})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("two SBOMs of the same binaries differ")
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if err := cdxSchema(t).Validate(doc); err != nil {
		t.Fatalf("not CycloneDX 1.5: %v", err)
	}
	var bom cdxBOM
	if err := json.Unmarshal(a, &bom); err != nil {
		t.Fatal(err)
	}
	if bom.Metadata.Timestamp != "2026-01-02T03:04:05Z" || bom.Metadata.Component.Version != "v0.0.0-test" {
		t.Errorf("metadata: %+v", bom.Metadata)
	}
	found := map[string]cdxComponent{}
	for _, c := range bom.Components {
		found[c.Name] = c
	}
	ggcr := found["github.com/google/go-containerregistry"]
	if ggcr.PURL != "pkg:golang/github.com/google/go-containerregistry@v0.22.1?type=module" ||
		len(ggcr.Hashes) != 1 || len(ggcr.Hashes[0].Content) != 64 {
		t.Errorf("go-containerregistry: %+v", ggcr)
	}
	if std := found["std"]; !strings.HasPrefix(std.Version, "go1.") {
		t.Errorf("std: %+v, want the Go version", std)
	}
	if _, ok := found["example.com/fork"]; !ok || found["example.com/old"].Name != "" {
		t.Error("a replaced module is listed under its own name, not its replacement's")
	}
	if len(bom.Components) != 5 {
		t.Errorf("%d components, want std and 4 modules, each once", len(bom.Components))
	}
	if len(bom.Dependencies) != 1 || len(bom.Dependencies[0].DependsOn) != len(bom.Components) {
		t.Errorf("dependencies: %d entries, want the application depending on all %d components", len(bom.Dependencies), len(bom.Components))
	}
}

func TestSBOMNotABinary(t *testing.T) {
	_, err := SBOMOf(testMeta, []string{filepath.Join("testdata", "cyclonedx", "README.md")})
	if err == nil || !strings.Contains(err.Error(), "README.md") {
		t.Errorf("err = %v, want one naming the file", err)
	}
}

func TestPURL(t *testing.T) {
	got := purl("github.com/docker/cli", "v29.7.2+incompatible")
	if want := "pkg:golang/github.com/docker/cli@v29.7.2%2Bincompatible?type=module"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
