package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteReport checks that a report streamed into its file replaces the
// file whole, and that a failed render or write leaves the old file and no
// temporary file behind, with the error of what failed.
func TestWriteReport(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 64<<10) // 1 MiB, many pipe writes
	errRender := errors.New("render failed")
	cases := []struct {
		name    string
		render  func(io.Writer) error
		blocked bool // the target's directory is a file
		want    string
		wantErr string
	}{
		{name: "small", render: func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }, want: "new\n"},
		{name: "large", render: func(w io.Writer) error { _, err := io.WriteString(w, big); return err }, want: big},
		{name: "nothing", render: func(io.Writer) error { return nil }, want: ""},
		{name: "render fails after writing", render: func(w io.Writer) error {
			if _, err := io.WriteString(w, big); err != nil {
				return err
			}
			return errRender
		}, want: "old", wantErr: `render "` + "%s" + `": render failed`},
		{name: "render fails at once", render: func(io.Writer) error { return errRender }, want: "old", wantErr: "render failed"},
		{name: "file cannot be written", render: func(w io.Writer) error {
			_, err := io.WriteString(w, big) // fails once the write gave up
			return err
		}, blocked: true, wantErr: `write "%s": mkdir`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "report.json")
			if c.blocked {
				if err := os.WriteFile(filepath.Join(dir, "sub"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
				path = filepath.Join(dir, "sub", "report.json")
			} else if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := writeReport(path, c.render)
			if c.wantErr != "" {
				want := strings.ReplaceAll(c.wantErr, "%s", path)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("error %v, want one containing %q", err, want)
				}
				if c.blocked {
					return
				}
			} else if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("file holds %d bytes %.20q, want %d bytes %.20q", len(got), got, len(c.want), c.want)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				t.Errorf("directory holds %d files, want only the report", len(entries))
			}
		})
	}
}

// TestErrorLinesAreBounded checks that a huge flag value comes back cut, with
// its length, instead of as an error line as long as the value (issue 19,
// item 20): the CLI's own flag errors pass through quote.Bound like config
// errors do.
func TestErrorLinesAreBounded(t *testing.T) {
	huge := strings.Repeat("9", 6000)
	for _, args := range [][]string{
		{"run", "--max-retry-wait", huge},
		{"store", "prune", "--older-than", huge},
		{"report", "--format", huge, "x.json"},
	} {
		var stderr strings.Builder
		Main(context.Background(), args, Stdio{Out: io.Discard, Err: &stderr})
		out := stderr.String()
		if !strings.Contains(out, "(6,000 characters)") {
			t.Errorf("%s: stderr does not say how long the cut value was:\n%.400s", args[:len(args)-1], out)
		}
		for _, line := range strings.Split(out, "\n") {
			if len(line) > 1200 {
				t.Errorf("%s: a stderr line of %d bytes", args[0], len(line))
			}
		}
	}
}
