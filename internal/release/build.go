// Package release builds PromptCanary's release artifacts: reproducible
// archives for each platform, their SHA256SUMS, a CycloneDX SBOM of the Go
// modules and an OCI image, without a Docker daemon. scripts/release.sh
// runs it through ./internal/release/cmd/release.
package release

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Module is the main module's path, the -X stamp's package and the
// image's source.
const Module = "github.com/promptcanary/promptcanary"

// Source is where the code lives, for the image's labels and the SBOM.
const Source = "https://github.com/promptcanary/promptcanary"

// Target is one platform a release is built for.
type Target struct{ OS, Arch string }

// String is the GOOS/GOARCH form, e.g. linux/amd64.
func (t Target) String() string { return t.OS + "/" + t.Arch }

// Targets are the platforms scripts/release.sh builds.
var Targets = []Target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// ParseTarget reads "linux/amd64".
func ParseTarget(s string) (Target, error) {
	os, arch, ok := strings.Cut(s, "/")
	if !ok || os == "" || arch == "" || strings.Contains(arch, "/") {
		return Target{}, fmt.Errorf("target %q: want GOOS/GOARCH, e.g. linux/amd64", s)
	}
	return Target{os, arch}, nil
}

// Meta is what a release stamps into its binaries, archives and image.
type Meta struct {
	Version string    // without a leading v, e.g. 1.2.3 or 0.0.0-test
	Commit  string    // full git commit hash
	Time    time.Time // the commit's time (or SOURCE_DATE_EPOCH): every timestamp of the release
}

// TagVersion is the version with a leading v, as the binary prints it.
func (m Meta) TagVersion() string { return "v" + m.Version }

// binaryName is the executable's file name on t.
func binaryName(t Target) string {
	if t.OS == "windows" {
		return "promptcanary.exe"
	}
	return "promptcanary"
}

// ldflags strips the symbol table and DWARF and stamps version, commit
// and date into internal/buildinfo.
func ldflags(m Meta) string {
	p := Module + "/internal/buildinfo."
	return strings.Join([]string{
		"-s", "-w",
		"-X", p + "Version=" + m.TagVersion(),
		"-X", p + "Commit=" + m.Commit,
		"-X", p + "Date=" + m.Time.UTC().Format(time.RFC3339),
	}, " ")
}

// GoBuild builds ./cmd/promptcanary of the module in dir for t into out:
// static (CGO_ENABLED=0), -trimpath, no VCS stamp but ours, and the
// baseline instruction sets, so that the same commit and toolchain give
// the same bytes on any machine.
func GoBuild(ctx context.Context, dir string, t Target, m Meta, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", ldflags(m), "-o", out, "./cmd/promptcanary")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch,
		"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=-mod=readonly")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s: %w\n%s", t, err, stderr.Bytes())
	}
	return nil
}
