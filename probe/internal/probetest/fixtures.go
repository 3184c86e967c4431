package probetest

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/promptcanary/promptcanary/suite"
)

// Invalid is one testdata/invalid-*.yaml suite and what loading it must
// report: each problem's Error() and hint, alternating.
type Invalid struct {
	File string
	Want []string
}

// CheckInvalidFiles loads each testdata/invalid-*.yaml suite of the
// calling package and checks the exact problems and hints a user sees.
// Every file must have its case, and every case its file.
func CheckInvalidFiles(t *testing.T, cases []Invalid) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("testdata", "invalid-*.yaml"))
	if len(files) != len(cases) {
		t.Errorf("got %d testdata/invalid-*.yaml files, want one per case (%d)", len(files), len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.File, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.File))
			if err != nil {
				t.Fatal(err)
			}
			_, err = suite.Parse(tc.File, b)
			var ve *suite.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a *suite.ValidationError", err)
			}
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.Error(), p.Hint)
			}
			if !slices.Equal(got, tc.Want) {
				t.Errorf("problems:\ngot  %q\nwant %q", got, tc.Want)
			}
		})
	}
}
