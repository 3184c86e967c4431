package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary/suite"
)

// problemLines returns each problem of err, which must be a
// *suite.ValidationError, as its message and its hint; it fails t on a
// problem without a file and a line, or whose hint ends in a colon.
func problemLines(t *testing.T, err error) []string {
	t.Helper()
	var ve *suite.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v, want a *suite.ValidationError", err)
	}
	var got []string
	for _, p := range ve.Problems {
		got = append(got, p.Error(), p.Hint)
		if strings.HasSuffix(p.Hint, ":") {
			t.Errorf("problem %q: hint %q ends in a colon: it reads as cut off", p.Error(), p.Hint)
		}
		if p.Line <= 0 || p.File == "" {
			t.Errorf("problem %q: got location %s:%d, want a file and a line", p.Error(), p.File, p.Line)
		}
	}
	return got
}

// TestLoadInvalid loads one testdata/invalid-*.yaml per configuration
// mistake and checks the exact problems and hints a user sees, in order:
// each Want alternates a problem (after "testdata/FILE:", unless it names
// another file) and its hint. Every fixture must have its case.
func TestLoadInvalid(t *testing.T) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		want []string
	}{
		{"invalid-allowed-hosts.yaml", []string{
			"1: allowed_hosts[1]: invalid host name \"https://canary.example.com:9464/\"", "write the name alone, without a scheme, port or path: canary.internal, not https://canary.internal:9464/",
			"1: allowed_hosts[2]: must not be empty", "write a host name such as canary.internal, or \"*\" for any",
		}},
		{"invalid-baseline.yaml", []string{
			"2: checks[0].baseline: invalid baseline \"the good one\"", "write latest, or the id of a saved baseline or run (promptcanary baseline list)",
		}},
		{"invalid-budget.yaml", []string{
			"2: budget.usd_per_day: out of range: got -1, allowed 0 to 1000000", "estimated US dollars per day (UTC), for example 5; 0 for no budget",
			"3: budget.usd_per_month: unknown field", "known fields: usd_per_day",
		}},
		// The upgrade gate: a model to test, a margin in points, and
		// samples enough to decide a pair.
		{"invalid-candidate.yaml", []string{
			"4: checks[0].candidate: must be NAME/MODEL, got \"gpt-5\"", "did you mean openai/gpt-5?",
			"7: checks[1].candidate: must not be empty", "the model to test against the check's provider, NAME/MODEL, for example candidate: openai/gpt-5",
			"11: checks[2].margin: out of range: got 0, allowed above 0 and below 100", "the margin in points between 0 and 100 (exclusive), for example margin: 5",
			"15: checks[3].margin: out of range: got 100, allowed above 0 and below 100", "the margin in points between 0 and 100 (exclusive), for example margin: 5",
			"19: checks[4].margin: must be a number, got a string", "the margin in points between 0 and 100 (exclusive), for example margin: 5",
			"22: checks[5].margin: applies to an upgrade gate, and the check has no candidate", "name the model to test with candidate: NAME/MODEL, or remove margin",
			"26: checks[6].samples: got 1, but the upgrade gate of candidate: needs 2 or more",
			"one sample per prompt cannot show a pair worse or no worse: set samples: 30 on the check, or leave samples: out for 30",
		}},
		{"invalid-check-unknown-key.yaml", []string{
			"4: checks[0].evrey: unknown field", "did you mean every?",
			"5: checks[0].colour: unknown field", "known fields: name, suite, provider, providers, every, cron, tz, jitter, samples, confirm, confirm_after, notify, baseline, max_errors, control, run_level, candidate, margin",
		}},
		// A control is a provider like the check's, and not the check's
		// own (from the check's control: or the defaults').
		{"invalid-control.yaml", []string{
			"4: checks[0].control: \"sim/stable\" (from defaults:, line 2) is the check's provider: it cannot be its own control",
			"name another provider as control:; " + controlHint,
			"10: checks[1].control: must be NAME/MODEL, got \"gpt-4o\"", "did you mean openai/gpt-4o?",
			"14: checks[2].control: \"sim/b\" is the check's provider: it cannot be its own control",
			"name another provider as control:; " + controlHint,
			"18: checks[3].control: must be a string, got a list", "quote the value to make it a string",
		}},
		// A confirmation must come before the check's next slot, from
		// the check's own confirm_after: or the defaults'.
		{"invalid-confirm-after.yaml", []string{
			"4: checks[0].confirm_after: got 45m (from defaults:, line 2), must be shorter than the shortest time between two slots of the check (30m, every 30m)",
			"the next slot would come before the confirmation, and be skipped while the run waits: use less than 30m, for example 7m30s, or 0 to confirm at once",
			"9: checks[1].confirm_after: got 1h, must be shorter than the shortest time between two slots of the check (1h, every 1h)",
			"the next slot would come before the confirmation, and be skipped while the run waits: use less than 1h, for example 15m, or 0 to confirm at once",
			"12: checks[2].confirm_after: invalid duration \"1d\"", "Go durations have no days: write 24h",
			"16: checks[3].confirm_after: got 2h, must be shorter than the shortest time between two slots of the check (1h, cron 0 9,10 * * * (UTC))",
			"the next slot would come before the confirmation, and be skipped while the run waits: use less than 1h, for example 15m, or 0 to confirm at once",
			"19: checks[4].confirm_after: out of range: got -5m, allowed 0s to 8784h", "use a duration from 0s to 8784h",
		}},
		{"invalid-cron.yaml", []string{
			"4: checks[0].cron: invalid cron expression \"0 */2 * *\": expected exactly 5 fields, found 4: [0 */2 * *]", "5 fields: minute hour day month weekday, for example \"0 */2 * * *\" (every two hours) or \"30 9 * * 1-5\" (9:30 on weekdays)",
			"7: checks[1].cron: invalid cron expression \"61 * * * *\": end of range (61) above maximum (59): 61", "5 fields: minute hour day month weekday, for example \"0 */2 * * *\" (every two hours) or \"30 9 * * 1-5\" (9:30 on weekdays)",
			"10: checks[2].cron: cron expression \"0 0 30 2 *\" never fires", "check the day and month fields (there is no February 30)",
			"13: checks[3].cron: invalid cron expression \"@every 1h\"", "write every: instead of cron: \"@every …\"",
		}},
		{"invalid-duplicate-key.yaml", []string{
			"5: checks[0].every: duplicate key (also at line 4)", "remove one of them",
		}},
		{"invalid-duplicate-name.yaml", []string{
			"4: checks[1].name: duplicate check name \"checkout\" (also at line 2)", "give each check its own name; to check several providers with one suite, use providers: [a, b]",
		}},
		{"invalid-duplicate-notifier.yaml", []string{
			"5: notifiers[1].name: duplicate notifier name \"hook\" (also at line 4)", "give each notifier its own name",
		}},
		{"invalid-duration.yaml", []string{
			"2: defaults.every: invalid duration \"1d\"", "Go durations have no days: write 24h",
			"6: checks[0].every: invalid duration \"soon\"", "write a duration with its unit, for example 30s, 15m or 2h",
		}},
		{"invalid-empty.yaml", []string{
			"1: file is empty", "a monitor.yaml needs checks:; `promptcanary init` writes one",
		}},
		// A value read from the environment is never shown, even where it
		// is not a secret: the problem quotes the reference instead.
		{"invalid-env-values.yaml", []string{
			"2: checks[0].name: invalid name \"${SCHEME_SECRET}\"", "use lowercase letters, digits and '-' (at most 63), for example checkout-prod",
			"3: checks[0].suite: suite file \"suites/${NOT_A_URL}/canary.yaml\" not found", "suite: is relative to the directory of monitor.yaml ($DIR)",
			"4: checks[0].every: invalid duration \"${NOT_A_URL}\"", "write a duration with its unit, for example 30s, 15m or 2h",
			"5: checks[0].jitter: invalid jitter \"${SHORT_TOKEN}\"", "a share of the interval from 0 to 50%, written 10% or 0.1",
			"7: notifiers[0].type: unknown notifier type \"${NOT_A_URL}\"", "one of: github, pagerduty, slack, webhook",
		}},
		{"invalid-every-and-cron.yaml", []string{
			"5: checks[0].cron: cannot be used with every: (line 4)", "choose one: every: for a fixed spacing, cron: for times of day",
		}},
		{"invalid-every-range.yaml", []string{
			"4: checks[0].every: out of range: got 500ms, allowed 1s to 8784h", "use a duration from 1s to 8784h, for example 30m",
			"7: checks[1].every: out of range: got 9000h, allowed 1s to 8784h", "use a duration from 1s to 8784h, for example 30m",
			"10: checks[2].every: must be a duration, got an integer", "write a duration with its unit, for example 30s, 15m or 2h",
		}},
		{"invalid-incidents.yaml", []string{
			"4: incidents.resolve_after: out of range: got 0, allowed 1 to 1000", "use a value from 1 to 1000",
			"5: incidents.repeat_interval: out of range: got 10s, allowed 1m to 8784h", "use a duration from 1m to 8784h",
			"6: incidents.resolve: unknown field", "did you mean resolve_after?",
			"7: shutdown_grace: out of range: got 2h, allowed 0s to 1h", "use a duration from 0s to 1h",
		}},
		{"invalid-jitter.yaml", []string{
			"2: checks[0].jitter: out of range: got 60%, allowed 0% to 50%", "a share of the interval from 0 to 50%, written 10% or 0.1",
			"3: checks[1].jitter: out of range: got 10, allowed 0% to 50%", "did you mean 10%? a bare number is a fraction of the interval",
			"4: checks[2].jitter: invalid jitter \"lots\"", "a share of the interval from 0 to 50%, written 10% or 0.1",
			"5: checks[3].jitter: out of range: got -0.1, allowed 0% to 50%", "a share of the interval from 0 to 50%, written 10% or 0.1",
			"6: checks[4].jitter: must be a percentage or a fraction, got a list", "a share of the interval from 0 to 50%, written 10% or 0.1",
		}},
		{"invalid-listen.yaml", []string{
			"1: listen: invalid address \"localhost\"", "write HOST:PORT, for example 127.0.0.1:9464 or :9464 (every interface)",
		}},
		{"invalid-min-severity.yaml", []string{
			"4: notifiers[0].min_severity: unknown severity \"hihg\"", "did you mean high? one of: none, low, medium, high, critical",
		}},
		{"invalid-missing-fields.yaml", []string{
			"2: checks[0].name: required field is missing", "name the check, for example name: checkout-prod",
			"2: checks[0].suite: required field is missing", "name the check's canary.yaml, for example suite: suites/checkout/canary.yaml",
		}},
		{"invalid-name.yaml", []string{
			"2: checks[0].name: invalid name \"Checkout Prod\"", "did you mean checkout-prod? use lowercase letters, digits and '-' (at most 63), for example checkout-prod",
			"4: checks[1].name: invalid name \"-x\"", "did you mean x? use lowercase letters, digits and '-' (at most 63), for example checkout-prod",
			"6: checks[2].name: must not be empty", "use lowercase letters, digits and '-' (at most 63), for example checkout-prod",
		}},
		{"invalid-no-checks.yaml", []string{
			"2: checks: at least one check is required", "add checks: with a name:, a suite: and a provider:; `promptcanary init` writes an example",
		}},
		{"invalid-no-provider.yaml", []string{
			"2: checks[0]: no provider: the check sets none, and suite \"suites/noprov/canary.yaml\" has no provider: or providers:", "add provider: NAME/MODEL to the check, for example provider: sim/stable",
		}},
		{"invalid-notifier-field.yaml", []string{
			"7: notifiers[0].routing_key: not a field of slack notifiers", "slack notifiers take: name, type, webhook_url, min_severity",
			"8: notifiers[0].url: not a field of slack notifiers", "slack notifiers take: name, type, webhook_url, min_severity",
			"12: notifiers[1].routing: unknown field", "did you mean routing_key?",
		}},
		{"invalid-notifier-required.yaml", []string{
			"4: notifiers[0].url: required field is missing", "the address to POST to, for example url: https://ops.example.com/canary",
			"6: notifiers[1].webhook_url: required field is missing", "an incoming-webhook URL from the environment: webhook_url: \"${SLACK_WEBHOOK_URL}\"",
			"8: notifiers[2].repo: required field is missing", "the repository to open issues in, for example repo: org/app",
			"8: notifiers[2].token: required field is missing", "a token that may write issues: token: \"${GITHUB_TOKEN}\"",
			"10: notifiers[3].routing_key: required field is missing", "the Events API v2 integration key: routing_key: \"${PD_ROUTING_KEY}\"",
			"12: notifiers[4].name: required field is missing", "name the notifier, for example name: oncall, and list that name in the notify: of its checks",
		}},
		{"invalid-notifier-type.yaml", []string{
			"5: notifiers[0].type: unknown notifier type \"slak\"", "did you mean slack? one of: github, pagerduty, slack, webhook",
			"7: notifiers[1].type: required field is missing", "one of: github, pagerduty, slack, webhook",
		}},
		{"invalid-numbers.yaml", []string{
			"2: defaults.samples: out of range: got 0, allowed 1 to 10000", "use a value from 1 to 10000",
			"3: defaults.max_errors: out of range: got -1, allowed 0 to 1000000000", "use a value from 0 to 1000000000",
			"7: checks[0].samples: out of range: got 10001, allowed 1 to 10000", "use a value from 1 to 10000",
			"8: checks[0].max_errors: out of range: got 99999999999999999999, allowed 0 to 1000000000", "use a value from 0 to 1000000000",
			"9: checks[0].confirm: must be true or false, got a string", "write true or false, unquoted",
			"10: checks[0].run_level: must be true or false, got a string", "write true or false, unquoted",
		}},
		// otel.headers values are credentials: from the environment only.
		{"invalid-otel.yaml", []string{
			"4: otel.endpoint: not an http:// or https:// URL with a host", "write the collector's OTLP address, for example http://otel-collector:4318 (http/protobuf) or http://otel-collector:4317 (protocol: grpc); https:// for TLS",
			"5: otel.protocol: unknown protocol \"http/json\"", "one of: http/protobuf, grpc",
			"7: otel.headers.authorization: must come from the environment, not be written in the file", "write authorization: \"${OTLP_AUTHORIZATION}\" and set OTLP_AUTHORIZATION where promptcanary serve runs (monitor.yaml is usually committed)",
			"8: otel.headers.bad header: invalid header name \"bad header\"", "use letters, digits and '-', for example authorization or x-api-key",
			"9: otel.content: must be true or false, got a string", "write true or false, unquoted",
			"10: otel.sampler: unknown field", "known fields: endpoint, protocol, headers, content",
		}},
		{"invalid-provider.yaml", []string{
			"4: checks[0].provider: must be NAME/MODEL, got \"gpt-4o\"", "did you mean openai/gpt-4o?",
			"8: checks[1].providers: cannot be used with provider: (line 7)", "use providers: [a, b] alone to check several providers",
			"11: checks[2].providers: must not be empty", "list the providers to check, or leave providers: out to use the suite's",
			"14: checks[3].providers[2]: duplicate provider \"sim/a\" (also checks[3].providers[0])", "list each provider once",
			"17: checks[4].providers: must be a list of NAME/MODEL, got a string", "write a list: [sim/a], or use provider: for one",
		}},
		{"invalid-repo.yaml", []string{
			"4: notifiers[0].repo: must be OWNER/NAME, got \"https://github.com/org/app\"", "write owner/name, for example repo: org/app",
			"4: notifiers[0].labels[1]: must not be empty", "remove the empty label",
		}},
		{"invalid-secret-from-env.yaml", []string{
			"1: admin_token: too short: SHORT_TOKEN holds fewer than 16 characters", "use a random token, for example from `openssl rand -hex 32`",
			"6: notifiers[0].webhook_url: must be an absolute http or https URL (from NOT_A_URL)", "write an absolute URL such as https://ops.example.com/canary",
			"7: notifiers[1].webhook_url: must be an absolute http or https URL (from SCHEME_SECRET)", "write an absolute URL such as https://ops.example.com/canary",
			"8: notifiers[2].url: must be an absolute http or https URL (from NOT_A_URL)", "write an absolute URL such as https://ops.example.com/canary",
		}},
		{"invalid-secret-literal.yaml", []string{
			"1: admin_token: must come from the environment, not be written in the file", "write admin_token: \"${PROMPTCANARY_ADMIN_TOKEN}\" and set PROMPTCANARY_ADMIN_TOKEN where promptcanary serve runs (monitor.yaml is usually committed)",
			"5: notifiers[0].secret: must come from the environment, not be written in the file", "write secret: \"${WEBHOOK_SECRET}\" and set WEBHOOK_SECRET where promptcanary serve runs (monitor.yaml is usually committed)",
			"6: notifiers[1].webhook_url: must come from the environment, not be written in the file", "write webhook_url: \"${SLACK_WEBHOOK_URL}\" and set SLACK_WEBHOOK_URL where promptcanary serve runs (monitor.yaml is usually committed)",
			"7: notifiers[2].token: must come from the environment, not be written in the file", "write token: \"${GITHUB_TOKEN}\" and set GITHUB_TOKEN where promptcanary serve runs (monitor.yaml is usually committed)",
			"8: notifiers[3].routing_key: must come from the environment, not be written in the file", "write routing_key: \"${PD_ROUTING_KEY}\" and set PD_ROUTING_KEY where promptcanary serve runs (monitor.yaml is usually committed)",
		}},
		{"invalid-secret-unset.yaml", []string{
			"1: admin_token: environment variable UNSET_ADMIN_TOKEN is not set", "set it in the environment of promptcanary serve",
			"5: notifiers[0].token: environment variable UNSET_TOKEN is not set", "set it in the environment of promptcanary serve",
			"6: notifiers[1].url: environment variable UNSET_HOST is not set", "set it in the environment of promptcanary serve",
			"6: notifiers[1].secret: invalid ${…} reference: want ${NAME} with NAME made of letters, digits and underscores", "write ${NAME}, for example ${SLACK_WEBHOOK_URL}",
		}},
		{"invalid-suite-invalid.yaml", []string{
			"2: checks[0].suite: invalid suite \"suites/bad/canary.yaml\"", "fix the problems of the suite listed below",
			"testdata/suites/bad/canary.yaml:2: probes[0]: unknown probe type \"json_valdity\"", "did you mean json_validity? run `promptcanary probes` to list them",
			"testdata/suites/bad/canary.yaml:5: prompts[0].text: must not be empty", "write the prompt to send",
			"3: checks[1].suite: invalid suite \"suites/bad/canary.yaml\"", "fix the problems of the suite listed above",
		}},
		{"invalid-suite-missing.yaml", []string{
			"2: checks[0].suite: suite file \"suites/missing/canary.yaml\" not found", "suite: is relative to the directory of monitor.yaml ($DIR)",
			"3: checks[1].suite: cannot read suite \"suites/ok\": not a regular file", "suite: names a canary.yaml file",
		}},
		{"invalid-types.yaml", []string{
			"1: defaults: must be a mapping, got a string", "write key: value lines indented under it, for example every: 1h",
			"3: checks: must be a list, got a mapping", "write one check per line, each starting with '- '",
			"4: notifiers: must be a list, got a string", "write one notifier per line, each starting with '- '",
		}},
		{"invalid-tz-without-cron.yaml", []string{
			"5: checks[0].tz: applies to cron: schedules only", "remove tz:, or schedule the check with a cron: expression",
		}},
		{"invalid-tz.yaml", []string{
			"5: checks[0].tz: unknown time zone \"Mars/Olympus\"", "an IANA time zone name, for example Europe/Berlin or America/New_York; without tz: a cron: schedule runs in UTC",
			"8: checks[1].cron: time zone given twice, by CRON_TZ= and by tz:", "remove one of them",
			"12: checks[2].cron: unknown time zone \"Nowhere/City\"", "an IANA time zone name, for example Europe/Berlin or America/New_York; without tz: a cron: schedule runs in UTC",
		}},
		{"invalid-unquoted-cron.yaml", []string{
			"4:11: invalid YAML: did not find expected alphabetic or numeric character", `quote a value that starts with '*', for example cron: "*/5 * * * *"`,
		}},
		{"invalid-unknown-key.yaml", []string{
			"1: lisen: unknown field", "did you mean listen?",
		}},
		{"invalid-unknown-notifier.yaml", []string{
			"2: defaults.notify[0]: unknown notifier \"oncal\"", "did you mean oncall?",
			"6: checks[0].notify[0]: unknown notifier \"hook\"", "did you mean hooks?",
			"6: checks[0].notify[1]: unknown notifier \"pager\"", "known notifiers: oncall, hooks",
		}},
		{"invalid-url.yaml", []string{
			"4: notifiers[0].url: must be an http or https URL, got scheme \"ftp\"", "write an absolute URL such as https://ops.example.com/canary",
			"5: notifiers[1].url: must be an absolute http or https URL", "write an absolute URL such as https://ops.example.com/canary",
			"6: notifiers[2].url: must be an absolute URL with a host", "write an absolute URL such as https://ops.example.com/canary",
			"7: notifiers[3].api_url: must be an absolute http or https URL", "write an absolute URL such as https://ops.example.com/canary",
			"8: notifiers[4].url: invalid URL", "write an absolute URL such as https://ops.example.com/canary",
			"9: base_url: must be an absolute http or https URL", "write an absolute URL such as https://ops.example.com/canary",
		}},
		{"invalid-yaml.yaml", []string{
			"3:4: invalid YAML: did not find expected '-' indicator", "line this up with the keys or list items it belongs with: check its indentation",
		}},
		// go.yaml.in/yaml said line 2, the line above the checks: list.
		{"invalid-yaml-deep.yaml", []string{
			"11:3: invalid YAML: did not find expected '-' indicator", "line this up with the keys or list items it belongs with: check its indentation",
		}},
		{"invalid-yaml-tab.yaml", []string{
			"4:1: invalid YAML: tab character in the indentation", "indent with spaces: YAML does not allow tabs in indentation",
		}},
		{"invalid-nul.yaml", []string{
			"3:33: NUL byte: the file is not UTF-8 text", "is it a binary file, or text saved in another encoding? save it as UTF-8 text",
		}},
	}
	files, err := filepath.Glob("testdata/invalid-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(tests) {
		t.Errorf("got %d testdata/invalid-*.yaml files, want one per case (%d)", len(files), len(tests))
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			cfg, err := Load(path, fixtureEnv)
			if cfg != nil {
				t.Errorf("got a config, want nil")
			}
			got := problemLines(t, err)
			want := make([]string, len(tc.want))
			for i, w := range tc.want {
				w = strings.ReplaceAll(w, "$DIR", dir)
				if i%2 == 0 && !strings.HasPrefix(w, "testdata/") {
					w = path + ":" + w
				}
				want[i] = w
			}
			if !slices.Equal(got, want) {
				t.Errorf("problems:\ngot  %q\nwant %q", got, want)
			}
		})
	}
}

// TestSecretsNeverInErrors loads every invalid fixture and checks that no
// value of the environment, and no secret written literally in a
// fixture, appears in a problem or a hint.
func TestSecretsNeverInErrors(t *testing.T) {
	literals := []string{
		"0123456789abcdef0123456789abcdef", "hook-secret-literal-1", "T000/B000/literal",
		"ghp_literalliteralliteral", "literal-routing-key-0001",
	}
	secrets := append([]string{"xoxbsecret", "scheme-secret-rest"}, literals...)
	for _, v := range fixtureSecrets {
		secrets = append(secrets, v)
	}
	files, err := filepath.Glob("testdata/invalid-*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	getenv := func(name string) string {
		read[name] = true
		return fixtureEnv(name)
	}
	var all string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all += string(b)
		_, err = Load(f, getenv)
		var ve *suite.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("%s: got %v, want a *suite.ValidationError", f, err)
		}
		text := err.Error()
		for _, p := range ve.Problems {
			text += "\n" + p.Hint
		}
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s: a secret appears in the problems:\n%s", f, text)
			}
		}
	}
	// The check above can fail: the fixtures hold the literal secrets and
	// read the secret variables.
	for _, s := range literals {
		if !strings.Contains(all, s) {
			t.Errorf("no fixture holds the literal secret %q", s)
		}
	}
	for _, name := range []string{"SHORT_TOKEN", "NOT_A_URL", "SCHEME_SECRET", "SLACK_WEBHOOK_URL", "GITHUB_TOKEN", "PD_ROUTING_KEY"} {
		if !read[name] {
			t.Errorf("no fixture reads %s", name)
		}
	}
}
