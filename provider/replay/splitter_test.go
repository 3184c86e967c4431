package replay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
)

// split reads data with a Splitter and decodes every line, stopping at the
// first error, as a caller on one goroutine would.
func split(data, name string) ([]*promptcanary.Response, []int, error) {
	s := NewSplitter(strings.NewReader(data), name)
	var out []*promptcanary.Response
	var lines []int
	var b Batch
	for {
		err := s.Next(&b)
		if errors.Is(err, io.EOF) {
			if s.Offset() != int64(len(data)) {
				return nil, nil, fmt.Errorf("offset %d at the end, want %d", s.Offset(), len(data))
			}
			return out, lines, nil
		}
		if err != nil {
			return out, lines, err
		}
		for i := range b.Len() {
			r, err := b.Decode(i)
			if err != nil {
				return out, lines, err
			}
			out = append(out, r)
			lines = append(lines, b.Line(i))
		}
	}
}

// TestSplitterAgreesWithStream checks the Splitter and Batch.Decode against
// Stream on every testdata file and on a file of many batches: the same
// responses in file order (the implicit sample index excepted), and the
// same first error.
func TestSplitterAgreesWithStream(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("testdata: %v (%d files)", err, len(files))
	}
	inputs := map[string]string{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(file)] = string(data)
	}
	var long strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&long, "{\"prompt_id\": \"p%d\", \"content\": %q, \"sample\": %d}\n", i%7, strings.Repeat("x", i%1500), i/7)
		if i%100 == 0 {
			long.WriteString("\n") // a blank line: not a line of its own
		}
	}
	inputs["long"] = long.String()
	inputs["long-bad"] = long.String() + "{\"prompt_id\": 3}\n"
	for name, data := range inputs {
		t.Run(name, func(t *testing.T) {
			var want []*promptcanary.Response
			serr := Stream(strings.NewReader(data), name, func(r *promptcanary.Response) error {
				want = append(want, r)
				return nil
			})
			got, lines, gerr := split(data, name)
			if fmt.Sprint(gerr) != fmt.Sprint(serr) {
				t.Fatalf("error: got %v, want %v", gerr, serr)
			}
			if serr != nil {
				return
			}
			if len(got) != len(want) {
				t.Fatalf("%d responses, want %d", len(got), len(want))
			}
			for i := range got {
				if i > 0 && lines[i] <= lines[i-1] {
					t.Fatalf("line %d after line %d", lines[i], lines[i-1])
				}
				w := *want[i]
				if !strings.HasPrefix(name, "long") {
					// Lines without "sample" mix with lines with one: the
					// implicit index is Stream's alone.
					w.Sample = got[i].Sample
				}
				if diff := cmp.Diff(&w, got[i]); diff != "" {
					t.Errorf("response %d (-Stream +Splitter):\n%s", i, diff)
				}
			}
		})
	}
}
