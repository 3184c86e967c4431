package probetest

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/probe"
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
			got := Problems(t, "", tc.File, Testdata(t, tc.File))
			if !slices.Equal(got, tc.Want) {
				t.Errorf("problems:\ngot  %q\nwant %q", got, tc.Want)
			}
		})
	}
}

// Problems parses doc as the suite file name in dir and returns each
// problem's message and hint in turn, with dir cut from the start of the
// messages (a temporary directory's name would make them differ from run
// to run).
// It fails the test unless parsing fails with a *suite.ValidationError.
func Problems(t testing.TB, dir, name, doc string) []string {
	t.Helper()
	_, err := suite.Parse(filepath.Join(dir, name), []byte(doc))
	var ve *suite.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v, want a *suite.ValidationError", err)
	}
	var got []string
	for _, p := range ve.Problems {
		msg := p.Error()
		if dir != "" {
			msg = strings.TrimPrefix(msg, dir+string(filepath.Separator))
		}
		got = append(got, msg, p.Hint)
	}
	return got
}

// Fixture is a realistic response, the file testdata/File of the calling
// package, and the verdict probe ID with parameters Raw must give it.
type Fixture struct {
	File   string
	ID     string
	Raw    map[string]any
	Passed bool
	Score  float64
}

// CheckFixture runs f's probe on its file as the runner does, checks the
// verdict and returns the result.
func CheckFixture(t testing.TB, f Fixture) probe.Result {
	t.Helper()
	res := Run(t, f.ID, f.Raw, Testdata(t, f.File))
	CheckVerdict(t, res, f.Passed, f.Score)
	return res
}

// CheckFixtures checks each of fixtures in a subtest named FILE/ID.
func CheckFixtures(t *testing.T, fixtures []Fixture) {
	t.Helper()
	for _, f := range fixtures {
		t.Run(f.File+"/"+f.ID, func(t *testing.T) { CheckFixture(t, f) })
	}
}
