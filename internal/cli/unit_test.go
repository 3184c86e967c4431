package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

func TestProgressBar(t *testing.T) {
	var buf bytes.Buffer
	p := newProgressBar(&buf, "suite")
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return t0 }
	p.update(1, 4)
	p.update(2, 4) // within 100 ms of the last draw: skipped
	p.update(4, 4) // the last call is always drawn
	p.finish()
	got := buf.String()
	want := "\rsuite [#######-----------------------] 1/4 calls" +
		"\rsuite [##############################] 4/4 calls" +
		"\r\033[K"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	buf.Reset()
	p.finish()
	if buf.Len() != 0 {
		t.Errorf("got %q after a second finish, want nothing", buf.String())
	}
}

func TestColorFor(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		w    any
		want bool
	}{
		{"buffer is not a terminal", nil, &bytes.Buffer{}, false},
		{"NO_COLOR wins", map[string]string{"NO_COLOR": "1"}, &bytes.Buffer{}, false},
		{"a regular file is not a terminal", nil, os.NewFile(0, os.DevNull), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &app{getenv: func(k string) string { return tc.env[k] }}
			w, _ := tc.w.(interface{ Write([]byte) (int, error) })
			if got := a.colorFor(w); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOutputsSuffixed(t *testing.T) {
	o := outputs{json: "out/drift.json", md: "drift.md"}
	got := o.suffixed("openai/gpt-4o:latest")
	if got.json != "out/drift.openai-gpt-4o-latest.json" || got.md != "drift.openai-gpt-4o-latest.md" || got.html != "" {
		t.Errorf("got %+v", got)
	}
	if !strings.HasSuffix(o.json, "drift.json") {
		t.Error("suffixed changed its receiver")
	}
}
