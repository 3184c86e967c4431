package release

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options says what Run builds.
type Options struct {
	ModuleDir string   // the module's root (go.mod)
	OutDir    string   // where the artifacts go, e.g. dist
	Meta      Meta     // version, commit and time
	Targets   []Target // platforms to build archives for; nil means Targets
	// Image builds the OCI image from the linux targets.
	Image bool
	// CACerts is the CA bundle the image carries; nil leaves TLS
	// without roots in the image.
	CACerts []byte
	// Docs are extra files every archive carries beside the binary
	// (README.md, CHANGELOG.md), by name.
	Docs []File
	Log  io.Writer // progress, one line per artifact; nil for none
}

// Result names what Run wrote, as paths under OutDir.
type Result struct {
	Archives []string
	SBOM     string
	Image    string // "" without Options.Image
	Sums     string
}

// ArchiveName is the archive's file name for t, e.g.
// promptcanary_1.2.3_linux_amd64.tar.gz (.zip for windows).
func ArchiveName(version string, t Target) string {
	ext := ".tar.gz"
	if t.OS == "windows" {
		ext = ".zip"
	}
	return "promptcanary_" + version + "_" + t.OS + "_" + t.Arch + ext
}

// Run builds every target, writes its archive, the SBOM, the image and
// SHA256SUMS into OutDir.
func Run(ctx context.Context, o Options) (Result, error) {
	var res Result
	if err := o.Meta.check(); err != nil {
		return res, err
	}
	targets := o.Targets
	if targets == nil {
		targets = Targets
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return res, err
	}
	bindir, err := os.MkdirTemp("", "promptcanary-release-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(bindir)
	var bins []string
	linux := map[Target][]byte{}
	for _, t := range targets {
		start := time.Now()
		bin := filepath.Join(bindir, t.OS+"_"+t.Arch, binaryName(t))
		if err := GoBuild(ctx, o.ModuleDir, t, o.Meta, bin); err != nil {
			return res, err
		}
		bins = append(bins, bin)
		data, err := os.ReadFile(bin)
		if err != nil {
			return res, err
		}
		if t.OS == "linux" {
			linux[t] = data
		}
		name := ArchiveName(o.Meta.Version, t)
		files := append([]File{{Name: binaryName(t), Mode: 0o755, Data: data}}, o.Docs...)
		if err := writeArchive(filepath.Join(o.OutDir, name), t, files, o.Meta.Time); err != nil {
			return res, err
		}
		res.Archives = append(res.Archives, name)
		o.logf("%s (built in %s)", name, time.Since(start).Round(time.Second))
	}
	sbom, err := SBOMOf(o.Meta, bins)
	if err != nil {
		return res, err
	}
	res.SBOM = "promptcanary_" + o.Meta.Version + "_sbom.cdx.json"
	if err := os.WriteFile(filepath.Join(o.OutDir, res.SBOM), sbom, 0o644); err != nil {
		return res, err
	}
	o.logf("%s", res.SBOM)
	if o.Image {
		if res.Image, err = o.writeImage(targets, linux); err != nil {
			return res, err
		}
	}
	res.Sums = "SHA256SUMS"
	all := append(slices.Clone(res.Archives), res.SBOM)
	if res.Image != "" {
		all = append(all, res.Image)
	}
	if err := WriteSums(o.OutDir, res.Sums, all); err != nil {
		return res, err
	}
	o.logf("%s", res.Sums)
	return res, nil
}

// writeImage writes the OCI image of the linux binaries into OutDir and
// returns its file name.
func (o Options) writeImage(targets []Target, linux map[Target][]byte) (string, error) {
	if len(linux) == 0 {
		return "", errors.New("image: no linux target to build it from; add linux/amd64 or linux/arm64")
	}
	idx, err := Index(targets, linux, o.CACerts, o.Meta)
	if err != nil {
		return "", err
	}
	name := "promptcanary_" + o.Meta.Version + "_oci.tar"
	if err := WriteOCIArchive(filepath.Join(o.OutDir, name), idx, o.Meta); err != nil {
		return "", err
	}
	o.logf("%s", name)
	return name, nil
}

func (o Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

func (m Meta) check() error {
	switch {
	case m.Version == "" || strings.HasPrefix(m.Version, "v") || strings.ContainsAny(m.Version, "/\\ "):
		return fmt.Errorf("version %q: want a semantic version without a leading v, e.g. 1.2.3 or 0.0.0-test", m.Version)
	case m.Commit == "":
		return errors.New("commit: empty; hint: run from a git clone, or pass -commit")
	case m.Time.IsZero():
		return errors.New("time: zero; hint: set SOURCE_DATE_EPOCH or pass -date")
	}
	return nil
}

// writeArchive writes files as a tar.gz, or a zip for windows, at path.
func writeArchive(path string, t Target, files []File, mtime time.Time) error {
	var buf bytes.Buffer
	var err error
	if t.OS == "windows" {
		err = WriteZip(&buf, files, mtime)
	} else {
		err = WriteTarGz(&buf, files, mtime)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// WriteSums writes name in dir: the SHA-256 of each file in names, in
// the format `sha256sum -c` reads, sorted by file name.
func WriteSums(dir, name string, names []string) error {
	var b strings.Builder
	for _, n := range slices.Sorted(slices.Values(names)) {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		b.WriteString(hex.EncodeToString(sum[:]) + "  " + n + "\n")
	}
	return os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644)
}
