package release

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's user: distroless's nonroot.
const (
	NonrootUID = 65532
	// ImageUser is the image's User: nonroot's uid and gid.
	ImageUser = "65532:65532"
	// ImageBinary is where the image keeps the binary, on its PATH.
	ImageBinary = "/usr/local/bin/promptcanary"
)

// CACertsPath is where Debian keeps its CA bundle; the image carries the
// building host's copy there.
const CACertsPath = "/etc/ssl/certs/ca-certificates.crt"

// baseFiles is a distroless-style root filesystem: root and nonroot in
// /etc/passwd and /etc/group, nonroot's home, a world-writable /tmp and,
// when caCerts is not nil, a CA bundle for TLS.
func baseFiles(caCerts []byte) []File {
	dir := func(name string, mode fs.FileMode, id int) File {
		return File{Name: name, Mode: mode, UID: id, GID: id}
	}
	files := []File{
		dir("etc/", 0o755, 0),
		{Name: "etc/passwd", Mode: 0o644, Data: []byte(
			"root:x:0:0:root:/root:/sbin/nologin\n" +
				"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{Name: "etc/group", Mode: 0o644, Data: []byte("root:x:0:\nnonroot:x:65532:\n")},
		{Name: "etc/nsswitch.conf", Mode: 0o644, Data: []byte("hosts: files dns\n")},
		dir("home/", 0o755, 0),
		dir("home/nonroot/", 0o700, NonrootUID),
		dir("root/", 0o700, 0),
		dir("tmp/", 0o777|fs.ModeSticky, 0),
		dir("usr/", 0o755, 0),
		dir("usr/local/", 0o755, 0),
		dir("usr/local/bin/", 0o755, 0),
	}
	if caCerts != nil {
		files = append(files, dir("etc/ssl/", 0o755, 0), dir("etc/ssl/certs/", 0o755, 0),
			File{Name: CACertsPath[1:], Mode: 0o644, Data: caCerts})
	}
	return files
}

// layer is a gzip-compressed OCI layer of files, all at mtime.
func layer(files []File, mtime time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	if err := WriteTarGz(&buf, files, mtime); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

// Labels are the image's OCI annotations
// (https://github.com/opencontainers/image-spec/blob/main/annotations.md).
func Labels(m Meta) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "promptcanary",
		"org.opencontainers.image.description": "Catches silent behavioural drift in LLM providers",
		"org.opencontainers.image.version":     m.Version,
		"org.opencontainers.image.revision":    m.Commit,
		"org.opencontainers.image.created":     m.Time.UTC().Format(time.RFC3339),
		"org.opencontainers.image.source":      Source,
		"org.opencontainers.image.url":         Source,
	}
}

// Image is the image for one linux platform: the base layer, then a
// layer with the binary at ImageBinary, run as nonroot.
func Image(t Target, binary []byte, caCerts []byte, m Meta) (v1.Image, error) {
	base, err := layer(baseFiles(caCerts), m.Time)
	if err != nil {
		return nil, err
	}
	app, err := layer([]File{{Name: ImageBinary[1:], Mode: 0o755, Data: binary}}, m.Time)
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: m.Time.UTC()}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, History: v1.History{Created: created, CreatedBy: "promptcanary release: distroless-style base", Comment: "passwd, group, CA certificates, /tmp"}},
		mutate.Addendum{Layer: app, History: v1.History{Created: created, CreatedBy: "promptcanary release: " + ImageBinary}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = t.OS, t.Arch, created
	if t.Arch == "arm64" {
		cf.Variant = "v8"
	}
	cf.Config = v1.Config{
		Entrypoint: []string{"promptcanary"},
		User:       ImageUser,
		WorkingDir: "/home/nonroot",
		Env: []string{
			"PATH=/usr/local/bin:/usr/bin:/bin",
			"HOME=/home/nonroot",
			"SSL_CERT_FILE=" + CACertsPath,
		},
		Labels: Labels(m),
	}
	return mutate.ConfigFile(img, cf)
}

// Index is the multi-platform image: one image per linux target in
// binaries (GOOS/GOARCH → binary), in the order of targets.
func Index(targets []Target, binaries map[Target][]byte, caCerts []byte, m Meta) (v1.ImageIndex, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, t := range targets {
		if t.OS != "linux" {
			continue
		}
		img, err := Image(t, binaries[t], caCerts, m)
		if err != nil {
			return nil, fmt.Errorf("image for %s: %w", t, err)
		}
		p := &v1.Platform{OS: t.OS, Architecture: t.Arch}
		if t.Arch == "arm64" {
			p.Variant = "v8"
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: p}})
	}
	return mutate.Annotations(idx, Labels(m)).(v1.ImageIndex), nil
}

// WriteOCIArchive writes idx as an OCI image layout
// (https://github.com/opencontainers/image-spec/blob/main/image-layout.md)
// in a tar file at path, tagged m.Version, with fixed timestamps.
func WriteOCIArchive(path string, idx v1.ImageIndex, m Meta) error {
	dir, err := os.MkdirTemp("", "promptcanary-oci-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("OCI layout: %w", err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": m.Version,
	})); err != nil {
		return fmt.Errorf("OCI layout: %w", err)
	}
	files, err := readTree(dir)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := WriteTar(&buf, files, m.Time); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// readTree reads every directory and file under dir as Files named
// relative to it, with modes normalised (0755 directories, 0644 files).
func readTree(dir string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel := filepath.ToSlash(path[len(dir)+1:])
		if d.IsDir() {
			files = append(files, File{Name: rel + "/", Mode: 0o755})
			return nil
		}
		b, err := os.ReadFile(path)
		files = append(files, File{Name: rel, Mode: 0o644, Data: b})
		return err
	})
	return files, err
}
