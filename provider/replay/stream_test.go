package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/promptcanary/promptcanary"
)

// TestStreamAgreesWithParse checks Stream against Parse on every testdata
// file: the same responses in file order from a valid file, and Parse's
// first error from an invalid one (a duplicate excepted: Stream does not
// look for them).
func TestStreamAgreesWithParse(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("testdata: %v (%d files)", err, len(files))
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			rp, perr := Parse(strings.NewReader(string(data)), name)
			var got []*promptcanary.Response
			serr := Stream(strings.NewReader(string(data)), name, func(r *promptcanary.Response) error {
				got = append(got, r)
				return nil
			})
			switch {
			case name == "duplicate-sample.jsonl":
				if serr != nil {
					t.Errorf("Stream: %v, want no error (duplicates are not detected)", serr)
				}
			case perr != nil:
				first := strings.SplitN(perr.Error(), "\n", 2)[0]
				if serr == nil || serr.Error() != first {
					t.Errorf("Stream error: got %v, want %q", serr, first)
				}
			case serr != nil:
				t.Errorf("Stream: %v, want no error", serr)
			default:
				if len(got) != len(rp.responses) {
					t.Fatalf("Stream: %d responses, Parse %d", len(got), len(rp.responses))
				}
				for _, r := range got {
					want := rp.responses[key{r.PromptID, r.Sample}]
					if diff := cmp.Diff(want, r); diff != "" {
						t.Errorf("response %s/%d (-Parse +Stream):\n%s", r.PromptID, r.Sample, diff)
					}
				}
			}
		})
	}
}

// FuzzStream checks Stream against Parse on any input: the same responses
// when Parse accepts it, Parse's first error otherwise (unless that error
// is a duplicate, which Stream does not look for).
func FuzzStream(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, data string) {
		rp, perr := Parse(strings.NewReader(data), "f")
		var got []*promptcanary.Response
		serr := Stream(strings.NewReader(data), "f", func(r *promptcanary.Response) error {
			got = append(got, r)
			return nil
		})
		if perr != nil {
			first := strings.SplitN(perr.Error(), "\n", 2)[0]
			if strings.Contains(perr.Error(), "duplicate response") {
				return
			}
			if serr == nil || serr.Error() != first {
				t.Fatalf("Stream error: got %v, want %q", serr, first)
			}
			return
		}
		if serr != nil {
			t.Fatalf("Stream: %v, want no error", serr)
		}
		if len(got) != len(rp.responses) {
			t.Fatalf("Stream: %d responses, Parse %d", len(got), len(rp.responses))
		}
		for _, r := range got {
			if diff := cmp.Diff(rp.responses[key{r.PromptID, r.Sample}], r); diff != "" {
				t.Fatalf("response %s/%d (-Parse +Stream):\n%s", r.PromptID, r.Sample, diff)
			}
		}
	})
}
