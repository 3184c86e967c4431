package custom

import (
	"math"
	"testing"
)

// FuzzParseExecOutput reads arbitrary command output: never a panic, and
// what is accepted has a verdict and a score in [0,1].
func FuzzParseExecOutput(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `{"passed": true}`, `{"passed": false, "score": 0.5, "details": "d", "metadata": {"a": [1]}}`,
		`{"passed": true, "score": 2}`, `{"passed": true} x`, `{"passed": true}{}`, `{"pass": 1}`,
		`{"passed": true, "score": 1e400}`, `{"passed": null}`, "looks fine", "\xff{", `{"passed": true, "metadata": null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, err := parseExecOutput(b)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if out.Passed == nil {
			t.Fatalf("accepted %q without passed", b)
		}
		if s := out.Score; s != nil && (math.IsNaN(*s) || *s < 0 || *s > 1) {
			t.Fatalf("accepted %q with score %v", b, *s)
		}
	})
}
