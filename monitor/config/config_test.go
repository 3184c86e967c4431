package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/telemetry"
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	"github.com/promptcanary/promptcanary/suite"
)

// minimalSuite is a valid canary.yaml without a provider.
const minimalSuite = "name: mini\nprobes: [json_validity]\nprompts:\n  - id: one\n    text: Reply with {}\n"

// writeFiles writes files (path → content) under a fresh directory and
// returns it.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func noEnv(string) string { return "" }

// checkView is a Check without its suite and with its schedule as text,
// for comparisons.
type checkView struct {
	Name, SuitePath, Provider, Schedule string
	Interval                            time.Duration
	Jitter                              float64
	Samples                             int
	Confirm                             bool
	ConfirmAfter                        time.Duration
	Notify                              []string
	Baseline                            string
	MaxErrors, Line                     int
	SuiteName                           string
}

func view(cs []Check) []checkView {
	out := make([]checkView, len(cs))
	for i, c := range cs {
		out[i] = checkView{
			Name: c.Name, SuitePath: c.SuitePath, Provider: c.Provider,
			Schedule: c.Schedule.String(), Interval: c.Schedule.Interval(),
			Jitter: c.Jitter, Samples: c.Samples, Confirm: c.Confirm, ConfirmAfter: c.ConfirmAfter, Notify: c.Notify,
			Baseline: c.Baseline, MaxErrors: c.MaxErrors, Line: c.Line, SuiteName: c.Suite.Name,
		}
	}
	return out
}

func TestLoadFull(t *testing.T) {
	cfg, err := Load("testdata/valid-full.yaml", fixtureEnv)
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := filepath.Abs("testdata")
	ok := filepath.Join(dir, "suites/ok/canary.yaml")
	multi := filepath.Join(dir, "suites/multi/canary.yaml")
	if cfg.Path != filepath.Join(dir, "valid-full.yaml") {
		t.Errorf("Path: got %q, want it absolute", cfg.Path)
	}
	if cfg.Listen != "0.0.0.0:9999" || cfg.BaseURL != "https://canary.example.com/monitor" || cfg.Store != fixtureSecrets["DATABASE_URL"] || cfg.AdminToken != fixtureSecrets["ADMIN_TOKEN"] ||
		cfg.ShutdownGrace != 45*time.Second || cfg.Budget.USDPerDay != 2.5 ||
		cfg.Incidents != (Incidents{ResolveAfter: 3, RepeatInterval: 12 * time.Hour}) {
		t.Errorf("top level: got %+v", cfg)
	}
	// The weekday schedule's longest gap is Friday to Monday across the
	// end of summer time: 73h.
	want := []checkView{
		{"checkout-prod", ok, "openai/gpt-4o-mini", "every 30m", 30 * time.Minute, 0.2, 20, false, 20 * time.Minute, []string{"pager"}, "latest", 3, 18, "ok"},
		{"checkout-prod", ok, "anthropic/claude-haiku-4-5", "every 30m", 30 * time.Minute, 0.2, 20, false, 20 * time.Minute, []string{"pager"}, "latest", 3, 18, "ok"},
		{"multi", multi, "sim/stable", "cron 0 9 * * 1-5 (Europe/Berlin)", 73 * time.Hour, 0.05, 5, true, 2 * time.Hour, []string{}, "3f2b9c1e-7d4a-4e8b-9f10-2a3b4c5d6e7f", 0, 25, "multi"},
		{"multi", multi, "sim/drifted", "cron 0 9 * * 1-5 (Europe/Berlin)", 73 * time.Hour, 0.05, 5, true, 2 * time.Hour, []string{}, "3f2b9c1e-7d4a-4e8b-9f10-2a3b4c5d6e7f", 0, 25, "multi"},
		{"nightly", ok, "sim/stable", "cron @daily (America/New_York)", 25 * time.Hour, 0.05, 20, false, 20 * time.Minute, []string{"oncall", "tracker"}, "latest", 3, 36, "ok"},
	}
	if d := cmp.Diff(want, view(cfg.Checks)); d != "" {
		t.Errorf("checks (-want +got):\n%s", d)
	}
	// One suite file is loaded once, whichever path names it.
	if cfg.Checks[0].Suite != cfg.Checks[4].Suite || cfg.Checks[0].Suite.Path != ok {
		t.Errorf("suite: got %p %p (%q), want one suite at %q", cfg.Checks[0].Suite, cfg.Checks[4].Suite, cfg.Checks[0].Suite.Path, ok)
	}
	wantN := []Notifier{
		{Name: "oncall", Type: "slack", URL: fixtureSecrets["SLACK_WEBHOOK_URL"], MinSeverity: promptcanary.SeverityLow, Line: 40},
		{Name: "hook", Type: "webhook", URL: "https://ops.example.com/canary", Secret: fixtureSecrets["WEBHOOK_SECRET"], MinSeverity: promptcanary.SeverityMedium, Line: 41},
		{Name: "tracker", Type: "github", Repo: "org/app", Token: fixtureSecrets["GITHUB_TOKEN"], Labels: []string{"llm-drift", "canary"}, APIURL: DefaultGitHubAPI, MinSeverity: promptcanary.SeverityLow, Line: 46},
		{Name: "pager", Type: "pagerduty", RoutingKey: fixtureSecrets["PD_ROUTING_KEY"], APIURL: "http://127.0.0.1:8080", MinSeverity: promptcanary.SeverityHigh, Line: 47},
	}
	if d := cmp.Diff(wantN, cfg.Notifiers); d != "" {
		t.Errorf("notifiers (-want +got):\n%s", d)
	}
	content := true
	wantO := OTel{Set: true, Endpoint: "http://otel-collector:4317", Protocol: "grpc",
		Headers: map[string]string{"authorization": "Bearer " + fixtureSecrets["OTLP_TOKEN"]}, Content: &content, Line: 51}
	if d := cmp.Diff(wantO, cfg.OTel); d != "" {
		t.Errorf("otel (-want +got):\n%s", d)
	}
	wantS := []string{
		fixtureSecrets["ADMIN_TOKEN"], fixtureSecrets["DATABASE_URL"], fixtureSecrets["GITHUB_TOKEN"],
		fixtureSecrets["PD_ROUTING_KEY"], fixtureSecrets["SLACK_WEBHOOK_URL"], fixtureSecrets["WEBHOOK_SECRET"],
		fixtureSecrets["OTLP_TOKEN"], "Bearer " + fixtureSecrets["OTLP_TOKEN"],
	}
	slices.Sort(wantS)
	if d := cmp.Diff(wantS, cfg.Secrets()); d != "" {
		t.Errorf("Secrets (-want +got):\n%s", d)
	}
}

func TestLoadDefaults(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"canary.yaml":  "provider: sim/stable\n" + minimalSuite,
		"monitor.yaml": "checks:\n  - {name: a, suite: canary.yaml}\n",
	})
	cfg, err := Load(filepath.Join(dir, "monitor.yaml"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Path:          filepath.Join(dir, "monitor.yaml"),
		Listen:        "127.0.0.1:9464",
		Store:         filepath.Join(dir, ".promptcanary/history.db"),
		ShutdownGrace: 30 * time.Second,
		Incidents:     Incidents{ResolveAfter: 2, RepeatInterval: 24 * time.Hour},
	}
	got := *cfg
	got.Checks = nil
	if d := cmp.Diff(want, &got, cmpopts.IgnoreUnexported(Config{})); d != "" {
		t.Errorf("config (-want +got):\n%s", d)
	}
	wantC := []checkView{{"a", filepath.Join(dir, "canary.yaml"), "sim/stable", "every 1h", time.Hour, 0.1, 10, true, 0, nil, "latest", 0, 2, "mini"}}
	if d := cmp.Diff(wantC, view(cfg.Checks)); d != "" {
		t.Errorf("checks (-want +got):\n%s", d)
	}
	if s := cfg.Secrets(); len(s) != 0 {
		t.Errorf("Secrets: got %d values, want none", len(s))
	}
}

// TestPaths loads monitor.yaml by a relative path from another working
// directory: every path is resolved against the file's directory and
// made absolute.
func TestPaths(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"ops/suites/a/canary.yaml": "provider: sim/stable\n" + minimalSuite,
		"elsewhere/canary.yaml":    "provider: sim/stable\n" + minimalSuite,
		"ops/monitor.yaml":         "store: data/h.db\nchecks:\n  - {name: a, suite: suites/a/canary.yaml}\n  - {name: b, suite: ABS}\n",
	})
	abs := filepath.Join(root, "elsewhere/canary.yaml")
	m := filepath.Join(root, "ops/monitor.yaml")
	b, _ := os.ReadFile(m)
	if err := os.WriteFile(m, []byte(strings.Replace(string(b), "ABS", abs, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "cwd"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, "cwd"))
	cfg, err := Load("../ops/monitor.yaml", noEnv)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{cfg.Path, cfg.Store, cfg.Checks[0].SuitePath, cfg.Checks[0].Suite.Path, cfg.Checks[1].SuitePath}
	want := []string{m, filepath.Join(root, "ops/data/h.db"), filepath.Join(root, "ops/suites/a/canary.yaml"), filepath.Join(root, "ops/suites/a/canary.yaml"), abs}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("paths (-want +got):\n%s", d)
	}
	// An invalid suite is named relative to the working directory, as the
	// monitor.yaml was.
	if err := os.WriteFile(filepath.Join(root, "ops/suites/a/canary.yaml"), []byte("prompts: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load("../ops/monitor.yaml", noEnv)
	if err == nil || !strings.Contains(err.Error(), "\n../ops/suites/a/canary.yaml:1: prompts: at least one prompt is required") {
		t.Errorf("got %v, want the suite's problem named ../ops/suites/a/canary.yaml", err)
	}
}

// TestProviders covers where a check's providers come from.
func TestProviders(t *testing.T) {
	const multi = "providers:\n  - id: sim/one\n  - id: sim/two\nprovider: sim/ignored\n" + minimalSuite
	tests := []struct {
		name, suite, check string
		want               []string
	}{
		{"provider", minimalSuite, "provider: sim/x", []string{"sim/x"}},
		{"providers", minimalSuite, "providers: [sim/x, sim/y, sim/z]", []string{"sim/x", "sim/y", "sim/z"}},
		{"suite provider", "provider: sim/s\n" + minimalSuite, "", []string{"sim/s"}},
		{"suite providers win over its provider", multi, "", []string{"sim/one", "sim/two"}},
		{"the check's provider wins", multi, "provider: sim/x", []string{"sim/x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check := "  - name: c\n    suite: canary.yaml\n    every: 10m\n"
			if tc.check != "" {
				check += "    " + tc.check + "\n"
			}
			dir := writeFiles(t, map[string]string{"canary.yaml": tc.suite, "monitor.yaml": "checks:\n" + check})
			cfg, err := Load(filepath.Join(dir, "monitor.yaml"), noEnv)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range cfg.Checks {
				got = append(got, c.Provider)
				if c.Name != "c" || c.Schedule.String() != "every 10m" {
					t.Errorf("got check %q %s, want c every 10m", c.Name, c.Schedule)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got providers %q, want %q", got, tc.want)
			}
		})
	}
}

// TestSettingsMerge checks that a check's own settings win over defaults:
// field by field, and that a check's every: replaces the defaults' cron:.
func TestSettingsMerge(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"canary.yaml": "provider: sim/s\n" + minimalSuite,
		"monitor.yaml": `defaults: {cron: "*/15 * * * *", tz: Asia/Tokyo, jitter: 0, samples: 4, notify: [n]}
notifiers: [{name: n, type: webhook, url: "http://127.0.0.1:1/x"}]
checks:
  - {name: inherit, suite: canary.yaml}
  - {name: own-every, suite: canary.yaml, every: 5m, samples: 6}
  - {name: own-tz, suite: canary.yaml, tz: UTC, jitter: 50%}
  - {name: prefixed, suite: canary.yaml, cron: "CRON_TZ=Europe/Paris 0 0 * * *"}
`,
	})
	cfg, err := Load(filepath.Join(dir, "monitor.yaml"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Schedule string
		Jitter   float64
		Samples  int
		Notify   []string
	}
	var got []row
	for _, c := range cfg.Checks {
		got = append(got, row{c.Schedule.String(), c.Jitter, c.Samples, c.Notify})
	}
	want := []row{
		{"cron */15 * * * * (Asia/Tokyo)", 0, 4, []string{"n"}},
		{"every 5m", 0, 6, []string{"n"}},
		{"cron */15 * * * * (UTC)", 0.5, 4, []string{"n"}},
		{"cron 0 0 * * * (Europe/Paris)", 0, 4, []string{"n"}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("checks (-want +got):\n%s", d)
	}
	// Expanded checks do not share their Notify slice.
	cfg.Checks[0].Notify[0] = "changed"
	if cfg.Checks[1].Notify[0] != "n" {
		t.Error("checks share their Notify slice")
	}
}

// TestSecrets checks what Secrets returns: every secret field, and URLs
// and DSNs from the environment with the variables' values, never values
// that are not secret.
func TestSecrets(t *testing.T) {
	env := map[string]string{
		"HOOK_HOST": "hooks.internal.example", "HOOK_SECRET": "hook-secret-value",
		"LISTEN": "127.0.0.1:7000", "STATE": "state/h.db",
	}
	dir := writeFiles(t, map[string]string{
		"canary.yaml": "provider: sim/s\n" + minimalSuite,
		"monitor.yaml": `listen: "${LISTEN}"
store: "${STATE}"
checks: [{name: a, suite: canary.yaml}]
notifiers:
  - {name: hook, type: webhook, url: "https://${HOOK_HOST}/canary", secret: "${HOOK_SECRET}"}
  - {name: plain, type: webhook, url: "https://literal.example/canary"}
`,
	})
	cfg, err := Load(filepath.Join(dir, "monitor.yaml"), func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hook-secret-value", "hooks.internal.example", "https://hooks.internal.example/canary"}
	if d := cmp.Diff(want, cfg.Secrets()); d != "" {
		t.Errorf("Secrets (-want +got):\n%s", d)
	}
	if cfg.Listen != "127.0.0.1:7000" || cfg.Store != filepath.Join(dir, "state/h.db") {
		t.Errorf("got listen %q store %q, want the expanded values", cfg.Listen, cfg.Store)
	}
	// A Config built by hand reports its secret fields too.
	hand := &Config{AdminToken: "admin-secret", Notifiers: []Notifier{{Type: TypeSlack, URL: "https://slack/x"}, {Type: TypeWebhook, URL: "https://not-secret"}}}
	if d := cmp.Diff([]string{"admin-secret", "https://slack/x"}, hand.Secrets()); d != "" {
		t.Errorf("Secrets of a hand-built config (-want +got):\n%s", d)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "monitor.yaml"), noEnv)
	if err == nil || !os.IsNotExist(err) && !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("got %v, want a not-found error", err)
	}
	if _, ok := err.(*suite.ValidationError); ok {
		t.Error("got a ValidationError for a missing file, want a read error")
	}
}

func TestScaffoldLoads(t *testing.T) {
	for _, rel := range []string{"canary.yaml", "suites/checkout/canary.yaml", "my suite/canary.yaml", `we"ird: dir/canary.yaml`} {
		t.Run(rel, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{rel: minimalSuite, "monitor.yaml": string(Scaffold(rel))})
			cfg, err := Load(filepath.Join(dir, "monitor.yaml"), noEnv)
			if err != nil {
				t.Fatalf("scaffold does not load:\n%v\n%s", err, Scaffold(rel))
			}
			if len(cfg.Checks) != 1 {
				t.Fatalf("got %d checks, want 1", len(cfg.Checks))
			}
			c := cfg.Checks[0]
			if c.Provider != "sim/stable" || c.SuitePath != filepath.Join(dir, rel) || c.Schedule.String() != "every 1h" || c.Samples != 10 || !c.Confirm {
				t.Errorf("got check %+v", c)
			}
		})
	}
	// With every commented line switched on and the variables set, it
	// still loads: the examples in the comments are valid.
	text := string(Scaffold("canary.yaml"))
	for _, r := range [][2]string{{"\n# admin_token:", "\nadmin_token:"}, {"\n# budget:", "\nbudget:"}, {"\n  # notify:", "\n  notify:"},
		{"\n    # every:", "\n    every:"}, {"\n# notifiers:", "\nnotifiers:"}, {"\n#   ", "\n  "}} {
		if !strings.Contains(text, r[0]) {
			t.Fatalf("scaffold has no %q", r[0])
		}
		text = strings.ReplaceAll(text, r[0], r[1])
	}
	dir := writeFiles(t, map[string]string{"canary.yaml": minimalSuite, "monitor.yaml": text})
	env := map[string]string{"PROMPTCANARY_ADMIN_TOKEN": "0123456789abcdef0123", "PROMPTCANARY_WEBHOOK_SECRET": "s3cret-s3cret",
		"SLACK_WEBHOOK_URL": "https://hooks.slack.example/x", "GITHUB_TOKEN": "ghp_x", "PD_ROUTING_KEY": "rk"}
	cfg, err := Load(filepath.Join(dir, "monitor.yaml"), func(k string) string { return env[k] })
	if err != nil {
		t.Fatalf("scaffold with every option on does not load:\n%v\n%s", err, text)
	}
	if len(cfg.Notifiers) != 4 || cfg.AdminToken == "" || cfg.Budget.USDPerDay != 5 || cfg.Checks[0].Schedule.String() != "every 30m" || !slices.Equal(cfg.Checks[0].Notify, []string{"oncall"}) {
		t.Errorf("got %+v", cfg)
	}
}

// allowed_hosts keeps host names in lower case, "*" as it is.
func TestAllowedHosts(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"suite/canary.yaml": minimalSuite,
		"monitor.yaml":      "allowed_hosts: [Canary.Internal, \"*\"]\nchecks:\n  - {name: ok, suite: suite/canary.yaml, provider: sim/stable}\n",
	})
	cfg, err := Load(filepath.Join(dir, "monitor.yaml"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"canary.internal", "*"}; !slices.Equal(cfg.AllowedHosts, want) {
		t.Errorf("got %q, want %q", cfg.AllowedHosts, want)
	}
}

// TestOTelApply: otel: in monitor.yaml overrides the OpenTelemetry
// variables key by key, and an endpoint gets the traces path the protocol
// needs.
func TestOTelApply(t *testing.T) {
	yes := true
	env := telemetry.Config{Endpoint: "http://env:4318/v1/traces", Protocol: telemetry.ProtocolHTTP, Headers: map[string]string{"a": "b"}}
	tests := []struct {
		name string
		o    OTel
		want telemetry.Config
	}{
		{"no otel: keeps the environment", OTel{}, env},
		{"endpoint: the traces path appended", OTel{Set: true, Endpoint: "http://c:4318"},
			telemetry.Config{Endpoint: "http://c:4318/v1/traces", Protocol: telemetry.ProtocolHTTP, Headers: map[string]string{"a": "b"}}},
		{"endpoint with the traces path kept", OTel{Set: true, Endpoint: "http://c:4318/v1/traces"},
			telemetry.Config{Endpoint: "http://c:4318/v1/traces", Protocol: telemetry.ProtocolHTTP, Headers: map[string]string{"a": "b"}}},
		{"grpc, headers and content", OTel{Set: true, Endpoint: "http://c:4317", Protocol: "grpc", Headers: map[string]string{"x": "y"}, Content: &yes},
			telemetry.Config{Endpoint: "http://c:4317", Protocol: telemetry.ProtocolGRPC, Headers: map[string]string{"x": "y"}, Content: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, tc.o.Apply(env)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestLoadControl reads control: from a check and from defaults:, a
// check's own replacing the defaults', each provider of providers:
// getting the check's.
func TestLoadControl(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"canary.yaml": "provider: sim/stable\n" + minimalSuite,
		"monitor.yaml": `defaults: {control: openai/gpt-4o-2024-08-06}
checks:
  - {name: alias, suite: canary.yaml, provider: openai/gpt-4o}
  - name: app
    suite: canary.yaml
    providers: [http/checkout-bot, http/checkout-bot-canary]
    control: openai/gpt-4o-mini
  - {name: plain, suite: canary.yaml, control: ~}
`,
	})
	cfg, err := Load(filepath.Join(dir, "monitor.yaml"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	type cc struct {
		Name, Provider, Control string
		ControlLine             int
	}
	var got []cc
	for _, c := range cfg.Checks {
		got = append(got, cc{c.Name, c.Provider, c.Control, c.ControlLine})
	}
	want := []cc{
		{"alias", "openai/gpt-4o", "openai/gpt-4o-2024-08-06", 1},
		{"app", "http/checkout-bot", "openai/gpt-4o-mini", 7},
		{"app", "http/checkout-bot-canary", "openai/gpt-4o-mini", 7},
		{"plain", "sim/stable", "openai/gpt-4o-2024-08-06", 1},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("controls (-want +got):\n%s", d)
	}
}

// run_level: is off unless set, and a check's own setting wins over
// defaults:.
func TestLoadRunLevel(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"canary.yaml":  "provider: sim/stable\n" + minimalSuite,
		"monitor.yaml": "defaults: {run_level: true}\nchecks:\n  - {name: a, suite: canary.yaml}\n  - {name: b, suite: canary.yaml, run_level: false}\n",
		"off.yaml":     "checks:\n  - {name: a, suite: canary.yaml}\n  - {name: b, suite: canary.yaml, run_level: true}\n",
	})
	for file, want := range map[string][]bool{"monitor.yaml": {true, false}, "off.yaml": {false, true}} {
		cfg, err := Load(filepath.Join(dir, file), noEnv)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cfg.Checks {
			if c.RunLevel != want[i] {
				t.Errorf("%s: check %s: RunLevel %v, want %v", file, c.Name, c.RunLevel, want[i])
			}
		}
	}
}
