package release

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// untar unpacks a tar stream of regular files and directories into dir
// with their modes (and, as root, their owners), refusing names that
// leave it.
func untar(t *testing.T, r io.Reader, dir string) {
	t.Helper()
	eachTarEntry(t, r, func(h *tar.Header, tr *tar.Reader) {
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(path, filepath.Clean(dir)+string(filepath.Separator)) {
			t.Fatalf("tar entry %q leaves the directory", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(path, tarMode(h)); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			data, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, os.FileMode(h.Mode).Perm()); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("tar entry %q: unexpected type %c", h.Name, h.Typeflag)
		}
		if os.Geteuid() == 0 { // owners as in the tar, for chrootAs
			if err := os.Lchown(path, h.Uid, h.Gid); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// tarMode is a tar header's permissions with its sticky bit.
func tarMode(h *tar.Header) os.FileMode {
	m := os.FileMode(h.Mode).Perm()
	if h.Mode&0o1000 != 0 {
		m |= os.ModeSticky
	}
	return m
}

// openOCIArchive unpacks an OCI layout tarball and returns the image
// index its index.json points at, tagged version.
func openOCIArchive(t *testing.T, path, version string) v1.ImageIndex {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	untar(t, f, dir)
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	im, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 1 || im.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != version {
		t.Fatalf("index.json: %+v, want one index tagged %s", im.Manifests, version)
	}
	idx, err := top.ImageIndex(im.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

// platformImage returns idx's image for linux/arch.
func platformImage(t *testing.T, idx v1.ImageIndex, arch string) v1.Image {
	t.Helper()
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range im.Manifests {
		if d.Platform != nil && d.Platform.OS == "linux" && d.Platform.Architecture == arch {
			img, err := idx.Image(d.Digest)
			if err != nil {
				t.Fatal(err)
			}
			return img
		}
	}
	t.Fatalf("no linux/%s image in the index", arch)
	return nil
}

// checkConfig checks the image's user, entrypoint and labels.
func checkConfig(t *testing.T, img v1.Image, m Meta, arch string) {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if c.User != "65532:65532" || strings.Join(c.Entrypoint, " ") != "promptcanary" || cf.Architecture != arch || cf.OS != "linux" {
		t.Errorf("config: user %q entrypoint %q platform %s/%s", c.User, c.Entrypoint, cf.OS, cf.Architecture)
	}
	if !cf.Created.Equal(m.Time) {
		t.Errorf("created %v, want the commit's time %v", cf.Created, m.Time)
	}
	for k, v := range map[string]string{
		"org.opencontainers.image.version":  m.Version,
		"org.opencontainers.image.revision": m.Commit,
		"org.opencontainers.image.source":   Source,
		"org.opencontainers.image.created":  m.Time.Format("2006-01-02T15:04:05Z"),
		"org.opencontainers.image.title":    "promptcanary",
	} {
		if c.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], v)
		}
	}
}

// extract unpacks img's root filesystem into a new directory.
func extract(t *testing.T, img v1.Image) string {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil { // as a container's /
		t.Fatal(err)
	}
	untar(t, rc, root)
	return root
}

// The index holds one image per linux target (darwin is left out), each
// with the base files and its own binary, and writing it twice gives the
// same tarball.
func TestImageIndex(t *testing.T) {
	bins := map[Target][]byte{
		{"linux", "amd64"}: []byte("amd64 binary"), {"linux", "arm64"}: []byte("arm64 binary"),
		{"darwin", "arm64"}: []byte("darwin binary"),
	}
	targets := []Target{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "arm64"}}
	dir := t.TempDir()
	var tarballs [2][]byte
	for i := range tarballs {
		idx, err := Index(targets, bins, []byte("certs"), testMeta)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "oci.tar")
		if err := WriteOCIArchive(path, idx, testMeta); err != nil {
			t.Fatal(err)
		}
		if tarballs[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(tarballs[0], tarballs[1]) {
		t.Fatal("two OCI tarballs of the same release differ")
	}
	idx := openOCIArchive(t, filepath.Join(dir, "oci.tar"), testMeta.Version)
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(im.Manifests) != 2 || im.Annotations["org.opencontainers.image.revision"] != testMeta.Commit {
		t.Fatalf("index: %d manifests, annotations %v; want 2 (linux only) and the labels", len(im.Manifests), im.Annotations)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		img := platformImage(t, idx, arch)
		checkConfig(t, img, testMeta, arch)
		root := extract(t, img)
		for name, want := range map[string]string{
			"usr/local/bin/promptcanary":        arch + " binary",
			"etc/ssl/certs/ca-certificates.crt": "certs",
		} {
			got, err := os.ReadFile(filepath.Join(root, name))
			if err != nil || string(got) != want {
				t.Errorf("%s: %q, %v; want %q", name, got, err, want)
			}
		}
		passwd, _ := os.ReadFile(filepath.Join(root, "etc", "passwd"))
		if !strings.Contains(string(passwd), "nonroot:x:65532:65532:") {
			t.Errorf("/etc/passwd has no nonroot user 65532:\n%s", passwd)
		}
	}
}

// The image's /tmp is world-writable and sticky, and nonroot owns its home.
func TestImageBaseModes(t *testing.T) {
	img, err := Image(Target{"linux", "amd64"}, []byte("x"), nil, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	rc := mutate.Extract(img)
	defer rc.Close()
	seen := map[string]*tar.Header{}
	eachTarEntry(t, rc, func(h *tar.Header, _ *tar.Reader) { seen[strings.TrimSuffix(h.Name, "/")] = h })
	if h := seen["tmp"]; h == nil || h.Mode&0o7777 != 0o1777 {
		t.Errorf("tmp/: %+v, want mode 1777", h)
	}
	if h := seen["home/nonroot"]; h == nil || h.Uid != NonrootUID || h.Gid != NonrootUID {
		t.Errorf("home/nonroot/: %+v, want owned by 65532", h)
	}
	if _, ok := seen["etc/ssl/certs/ca-certificates.crt"]; ok {
		t.Error("a CA bundle in an image built without one")
	}
}

// eachTarEntry calls fn with every header of the tar stream r, and the
// reader positioned at the entry's content.
func eachTarEntry(t *testing.T, r io.Reader, fn func(h *tar.Header, tr *tar.Reader)) {
	t.Helper()
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		fn(h, tr)
	}
}
