package release

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"
)

// The CycloneDX 1.5 JSON format (https://cyclonedx.org/docs/1.5/json/),
// only the fields the SBOM fills.
type cdxBOM struct {
	BOMFormat    string          `json:"bomFormat"`
	SpecVersion  string          `json:"specVersion"`
	SerialNumber string          `json:"serialNumber"`
	Version      int             `json:"version"`
	Metadata     cdxMetadata     `json:"metadata"`
	Components   []cdxComponent  `json:"components"`
	Dependencies []cdxDependency `json:"dependencies"`
}

type cdxMetadata struct {
	Timestamp string       `json:"timestamp"`
	Tools     cdxTools     `json:"tools"`
	Component cdxComponent `json:"component"`
}

type cdxTools struct {
	Components []cdxComponent `json:"components"`
}

type cdxComponent struct {
	BOMRef             string           `json:"bom-ref,omitempty"`
	Type               string           `json:"type"`
	Name               string           `json:"name"`
	Version            string           `json:"version,omitempty"`
	PURL               string           `json:"purl,omitempty"`
	Hashes             []cdxHash        `json:"hashes,omitempty"`
	ExternalReferences []cdxExternalRef `json:"externalReferences,omitempty"`
}

type cdxHash struct {
	Alg     string `json:"alg"`
	Content string `json:"content"`
}

type cdxExternalRef struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type cdxDependency struct {
	Ref       string   `json:"ref"`
	DependsOn []string `json:"dependsOn"`
}

// purl is a Go module's package URL, as cyclonedx-gomod writes it
// (https://github.com/package-url/purl-spec, type golang).
func purl(path, version string) string {
	return "pkg:golang/" + path + "@" + strings.ReplaceAll(version, "+", "%2B") + "?type=module"
}

// h1Hash turns a go.sum "h1:" hash (base64 SHA-256 of the module's file
// list) into a CycloneDX SHA-256 hash, as cyclonedx-gomod does; nil when
// the sum is not an h1 hash.
func h1Hash(sum string) []cdxHash {
	b64, ok := strings.CutPrefix(sum, "h1:")
	if !ok {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) != sha256.Size {
		return nil
	}
	return []cdxHash{{Alg: "SHA-256", Content: hex.EncodeToString(raw)}}
}

// SBOMOf returns the SBOM (see SBOM) of the binaries at the given paths,
// from their build information.
func SBOMOf(m Meta, binaries []string) ([]byte, error) {
	var infos []*debug.BuildInfo
	for _, bin := range binaries {
		bi, err := buildinfo.ReadFile(bin)
		if err != nil {
			return nil, fmt.Errorf("SBOM: read the build information of %s: %w", bin, err)
		}
		infos = append(infos, bi)
	}
	return SBOM(m, infos)
}

// SBOM returns a CycloneDX 1.5 JSON SBOM of the Go modules linked into
// binaries with the given build information (as `go version -m` shows
// it) plus the Go standard library, sorted, with m's time as its
// timestamp and a serial number derived from m: the same release gives
// the same bytes. Build information does not say which module needs
// which, so the dependency graph lists every module under the
// application and leaves the modules' own dependencies unknown.
func SBOM(m Meta, infos []*debug.BuildInfo) ([]byte, error) {
	mods := map[string]*debug.Module{}
	goVersion := ""
	for _, bi := range infos {
		goVersion = bi.GoVersion
		for _, d := range bi.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			mods[d.Path+"@"+d.Version] = d
		}
	}
	root := cdxComponent{
		BOMRef: purl(Module, m.TagVersion()), Type: "application", Name: Module,
		Version: m.TagVersion(), PURL: purl(Module, m.TagVersion()),
		ExternalReferences: []cdxExternalRef{{Type: "vcs", URL: Source}},
	}
	var comps []cdxComponent
	if goVersion != "" {
		comps = append(comps, cdxComponent{BOMRef: purl("std", goVersion), Type: "library",
			Name: "std", Version: goVersion, PURL: purl("std", goVersion)})
	}
	for _, d := range mods {
		comps = append(comps, cdxComponent{BOMRef: purl(d.Path, d.Version), Type: "library",
			Name: d.Path, Version: d.Version, PURL: purl(d.Path, d.Version), Hashes: h1Hash(d.Sum)})
	}
	slices.SortFunc(comps, func(a, b cdxComponent) int { return strings.Compare(a.BOMRef, b.BOMRef) })
	refs := make([]string, len(comps))
	for i, c := range comps {
		refs[i] = c.BOMRef
	}
	bom := cdxBOM{
		BOMFormat: "CycloneDX", SpecVersion: "1.5", Version: 1,
		SerialNumber: serialNumber(m),
		Metadata: cdxMetadata{
			Timestamp: m.Time.UTC().Format(time.RFC3339),
			Tools: cdxTools{Components: []cdxComponent{{Type: "application",
				Name: "promptcanary release (internal/release)", Version: m.TagVersion()}}},
			Component: root,
		},
		Components:   comps,
		Dependencies: []cdxDependency{{Ref: root.BOMRef, DependsOn: refs}},
	}
	out, err := json.MarshalIndent(bom, "", "  ")
	return append(out, '\n'), err
}

// serialNumber is a version-5-style UUID URN derived from the release's
// version and commit, so that rebuilding a release does not change it.
func serialNumber(m Meta) string {
	h := sha256.Sum256([]byte("promptcanary sbom " + m.Version + " " + m.Commit))
	u := h[:16]
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	x := hex.EncodeToString(u)
	return "urn:uuid:" + x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}
