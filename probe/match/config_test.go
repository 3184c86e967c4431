package match

import (
	"testing"

	"github.com/promptcanary/promptcanary/probe/internal/probetest"
)

// TestConfigErrors loads each testdata/invalid-*.yaml suite and checks the
// exact problems and hints a user sees.
func TestConfigErrors(t *testing.T) {
	const regexHint = "patterns use RE2 syntax (Go regexp): no lookahead, lookbehind or backreferences; in YAML, single-quote a pattern so backslashes stay as written"
	probetest.CheckInvalidFiles(t, []probetest.Invalid{
		{File: "invalid-regex-bad-pattern.yaml", Want: []string{
			"invalid-regex-bad-pattern.yaml:4: probes[0] (regex).must_match[0]: error parsing regexp: invalid named capture: `(?<=\\$)\\d+`",
			"RE2 has no lookbehind (?<=…) or (?<!…); match the preceding text as well, or check it with a second pattern",
			"invalid-regex-bad-pattern.yaml:4: probes[0] (regex).must_match[1]: error parsing regexp: missing closing ): `(unclosed`",
			regexHint,
			"invalid-regex-bad-pattern.yaml:5: probes[0] (regex).must_not_match[0]: error parsing regexp: invalid escape sequence: `\\1`",
			"RE2 has no backreferences (\\1); spell out the repeated text",
			"invalid-regex-bad-pattern.yaml:5: probes[0] (regex).must_not_match[1]: error parsing regexp: invalid or unsupported Perl syntax: `(?!`",
			"RE2 has no lookahead (?=…) or (?!…); list the text that must not follow in must_not_match instead",
		}},
		{File: "invalid-regex-flags.yaml", Want: []string{
			"invalid-regex-flags.yaml:5: probes[0] (regex).flags: unknown flag 'x'",
			"use any of i (ignore case), m (multi-line) and s (dot matches a line break), for example flags: im",
		}},
		{File: "invalid-regex-empty.yaml", Want: []string{
			"invalid-regex-empty.yaml:3: probes[0] (regex): nothing to check: must_match and must_not_match are both empty",
			"list at least one pattern, for example must_match: ['^\\{']",
		}},
		{File: "invalid-regex-repeat.yaml", Want: []string{
			"invalid-regex-repeat.yaml:4: probes[0] (regex).must_match[1]: must not be empty",
			"an empty pattern matches every response; remove it",
			`invalid-regex-repeat.yaml:5: probes[0] (regex).must_not_match[0]: pattern "^\\{" repeats must_match[0]`,
			"list each pattern once; a pattern cannot both match and not match",
		}},
		{File: "invalid-contains-missing.yaml", Want: []string{
			"invalid-contains-missing.yaml:3: probes[0] (contains).values: required parameter is missing",
			"the strings the response contains; none may be empty",
			`invalid-contains-missing.yaml:4: probes[0] (contains).mode: invalid value "every"`,
			"use one of: any, all",
		}},
		{File: "invalid-contains-values.yaml", Want: []string{
			"invalid-contains-values.yaml:4: probes[0] (contains).values[1]: must not be empty",
			"an empty value occurs in every response; remove it",
			`invalid-contains-values.yaml:4: probes[0] (contains).values[2]: value "paris" repeats values[0]`,
			"list each value once (case_sensitive is false, so values that differ only in case repeat)",
		}},
		{File: "invalid-equals-all.yaml", Want: []string{
			`invalid-equals-all.yaml:5: probes[0] (equals).mode: no response can match both "yes" and "no", as mode all requires`,
			"use mode: any to accept any of the values, or one probe per value",
		}},
		{File: "invalid-equals-trim.yaml", Want: []string{
			`invalid-equals-trim.yaml:4: probes[0] (equals).values[0]: value " yes" has surrounding white space, which the trimmed response never has`,
			"remove the white space from the value, or set trim: false",
		}},
		{File: "invalid-starts-with-all.yaml", Want: []string{
			`invalid-starts-with-all.yaml:5: probes[0] (starts_with).mode: no response can match both "{" and "[", as mode all requires`,
			"use mode: any to accept any of the values, or one probe per value",
		}},
		{File: "invalid-ends-with-trim.yaml", Want: []string{
			`invalid-ends-with-trim.yaml:4: probes[0] (ends_with).values[0]: value "}\n" has trailing white space, which the trimmed response never has`,
			"remove the white space from the value, or set trim: false",
		}},
		{File: "invalid-not-type.yaml", Want: []string{
			`invalid-not-type.yaml:5: probes[0] (starts_with).not: must be a boolean, got string "yes please"`,
			"invert the verdict: with any, pass when no value holds (score = share that do not); with all, pass when some value does not hold",
			"invalid-not-type.yaml:6: probes[0] (starts_with).case_sensitve: unknown parameter for starts_with",
			"did you mean case_sensitive?",
		}},
	})
}
