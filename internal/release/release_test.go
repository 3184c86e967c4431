package release

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestReleaseLinuxAMD64 builds the linux/amd64 release twice (what
// scripts/release.sh does for all six platforms), checks that both give
// the same bytes, then runs the binary from its archive and from the
// unpacked image: `version` and the offline demo on sim/.
func TestReleaseLinuxAMD64(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the release binary; skipped with -short")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("runs the linux/amd64 binary, which needs a linux/amd64 machine")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var dirs [2]string
	var res Result
	for i := range dirs {
		dirs[i] = t.TempDir()
		res, err = Run(t.Context(), Options{
			ModuleDir: "../..", OutDir: dirs[i], Meta: testMeta, Targets: []Target{{"linux", "amd64"}},
			Image: true, CACerts: []byte("certs\n"), Docs: []File{{Name: "README.md", Mode: 0o644, Data: readme}},
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sameFiles(t, dirs[0], dirs[1])
	checkSums(t, dirs[0])
	checkReleaseSBOM(t, filepath.Join(dirs[0], res.SBOM))
	want := "promptcanary v0.0.0-test commit 0123456789ab built 2026-01-02T03:04:05Z go1."

	t.Run("archive", func(t *testing.T) {
		if len(res.Archives) != 1 || res.Archives[0] != "promptcanary_0.0.0-test_linux_amd64.tar.gz" {
			t.Fatalf("archives %q", res.Archives)
		}
		f, err := os.Open(filepath.Join(dirs[0], res.Archives[0]))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		untar(t, zr, dir)
		run := hostRunner(dir, filepath.Join(dir, "promptcanary"))
		for _, args := range [][]string{{"version"}, {"--version"}} {
			if out := runOK(t, run, "", args...); !strings.HasPrefix(out, want) {
				t.Errorf("%s: %q, want %q…", args, out, want)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
			t.Error("the archive has no README.md")
		}
	})

	t.Run("image", func(t *testing.T) {
		idx := openOCIArchive(t, filepath.Join(dirs[0], res.Image), testMeta.Version)
		img := platformImage(t, idx, "amd64")
		checkConfig(t, img, testMeta, "amd64")
		root := extract(t, img)
		bin := filepath.Join(root, filepath.FromSlash(ImageBinary))
		if out := runOK(t, hostRunner(root, bin), "", "version"); !strings.HasPrefix(out, want) {
			t.Errorf("version: %q, want %q…", out, want)
		}
		home := t.TempDir()
		demo(t, hostRunner(home, bin), ".", home)
		if os.Geteuid() != 0 {
			t.Skip("running inside the image's root filesystem as its user needs root (chroot)")
		}
		// As a container runtime would: inside the root filesystem (no
		// libc, no shell), as the image's user, in its working directory.
		demo(t, imageRunner(root), "/home/nonroot", filepath.Join(root, "home", "nonroot"))
	})
}

// runner makes the command that runs promptcanary with args in dir.
type runner func(dir string, args ...string) *exec.Cmd

// hostRunner runs bin on this machine with a clean environment (no keys,
// no colour, a home of its own); a dir of "" means home.
func hostRunner(home, bin string) runner {
	return func(dir string, args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Dir = filepath.Join(home, dir)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "NO_COLOR=1"}
		return cmd
	}
}

// imageRunner runs the image's binary chrooted into its unpacked root
// filesystem as its user, with its environment.
func imageRunner(root string) runner {
	return func(dir string, args ...string) *exec.Cmd {
		cmd := exec.Command(ImageBinary, args...)
		cmd.Dir = dir // inside the chroot
		cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/nonroot", "SSL_CERT_FILE=" + CACertsPath, "NO_COLOR=1"}
		cmd.SysProcAttr = chrootAs(root, NonrootUID)
		return cmd
	}
}

// demo is scripts/demo.sh: scaffold a suite in dir (hostDir on this
// machine), save a baseline on sim/stable, then compare sim/stable (no
// drift) and sim/drifted (drift, exit 1 with --fail-on-drift).
func demo(t *testing.T, run runner, dir, hostDir string) {
	t.Helper()
	runOK(t, run, dir, "init", "demo")
	dir = path.Join(dir, "demo")
	runOK(t, run, dir, "run", "-p", "sim/stable", "--save-baseline", "--no-progress")
	if out := runOK(t, run, dir, "compare", "-p", "sim/stable", "--fail-on-drift", "--no-progress"); !strings.Contains(out, "No drift") {
		t.Errorf("compare sim/stable: %s", out)
	}
	out, err := run(dir, "compare", "-p", "sim/drifted", "--baseline-provider", "sim/stable",
		"--fail-on-drift", "--no-progress", "--output-md", "drift.md").Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "regression") {
		t.Errorf("compare sim/drifted: %v (want exit 1 and a regression)\n%s", err, out)
	}
	md, err := os.ReadFile(filepath.Join(hostDir, "demo", "drift.md"))
	if err != nil || !bytes.Contains(md, []byte("regression")) {
		t.Errorf("drift.md: %v\n%s", err, md)
	}
}

func runOK(t *testing.T, run runner, dir string, args ...string) string {
	t.Helper()
	cmd := run(dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("promptcanary %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return string(out)
}

// sameFiles fails unless a and b hold the same file names with the same bytes.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	names := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	na, nb := names(a), names(b)
	if !slices.Equal(na, nb) {
		t.Fatalf("two builds wrote %q and %q", na, nb)
	}
	for _, n := range na {
		x, _ := os.ReadFile(filepath.Join(a, n))
		y, _ := os.ReadFile(filepath.Join(b, n))
		if !bytes.Equal(x, y) {
			t.Errorf("%s differs between two builds of the same release", n)
		}
	}
}

// checkSums verifies SHA256SUMS as `sha256sum -c` would.
func checkSums(t *testing.T, dir string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 {
		t.Errorf("SHA256SUMS has %d lines, want the archive, SBOM and image:\n%s", len(lines), data)
	}
	for _, line := range lines {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", line)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got := sha256.Sum256(b)
		if hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: SHA256SUMS says %s", name, sum)
		}
	}
}

// checkReleaseSBOM checks the SBOM of a real build against the CycloneDX
// schema and for a module the binary links.
func checkReleaseSBOM(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := cdxSchema(t).Validate(doc); err != nil {
		t.Fatalf("%s is not CycloneDX 1.5: %v", path, err)
	}
	for _, mod := range []string{`"pkg:golang/github.com/spf13/cobra@v1.10.2?type=module"`, `"name": "std"`} {
		if !bytes.Contains(data, []byte(mod)) {
			t.Errorf("the SBOM lists no %s", mod)
		}
	}
}
