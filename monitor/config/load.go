package config

import (
	"fmt"
	"github.com/promptcanary/promptcanary/internal/yamlwalk"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary/suite"
)

// The defaults of monitor.yaml.
const (
	DefaultListen         = "127.0.0.1:9464"
	DefaultStore          = ".promptcanary/history.db"
	DefaultEvery          = time.Hour
	DefaultJitter         = 0.1
	DefaultSamples        = 10
	DefaultBaseline       = "latest"
	DefaultResolveAfter   = 2
	DefaultRepeatInterval = 24 * time.Hour
	DefaultShutdownGrace  = 30 * time.Second
)

// Bounds of the settings that promptcanary's shared limits do not cover.
const (
	// MaxJitter bounds jitter: a fraction of the interval.
	MaxJitter = 0.5
	// MaxResolveAfter bounds incidents.resolve_after.
	MaxResolveAfter = 1000
	// MinRepeatInterval and MaxRepeatInterval bound incidents.repeat_interval.
	MinRepeatInterval = time.Minute
	MaxRepeatInterval = 366 * 24 * time.Hour
	// MaxShutdownGrace bounds shutdown_grace.
	MaxShutdownGrace = time.Hour
	// MaxUSDPerDay bounds budget.usd_per_day.
	MaxUSDPerDay = 1_000_000.0
	// MinAdminToken is the shortest admin_token accepted, in bytes.
	MinAdminToken = 16
)

var topKeys = []string{"listen", "base_url", "allowed_hosts", "store", "admin_token", "shutdown_grace", "budget", "defaults", "checks", "notifiers", "incidents", "otel"}

// Load reads and validates the monitor configuration at path, expanding
// ${NAME} references with getenv and loading every check's suite (the
// probes the suites use must be registered). A configuration mistake is
// reported as a *suite.ValidationError whose problems read
// "monitor.yaml:12: checks[0].every: …", each with a hint, every mistake
// at once; an invalid suite's own problems follow the problem of the check
// that names it. A file that cannot be read is a plain wrapped error. No
// error ever contains a value read from the environment or a secret
// written in the file.
func Load(path string, getenv func(string) string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read monitor config %q: %w", path, err)
	}
	return parse(path, data, getenv)
}

// parse validates data as the monitor configuration at path.
func parse(path string, data []byte, getenv func(string) string) (*Config, error) {
	return parseWith(path, data, getenv, loadSuite)
}

// parseWith is parse with the function that loads a suite file (abs) for
// the problems naming it shown.
func parseWith(path string, data []byte, getenv func(string) string, load func(abs, shown string) (*suite.Suite, error)) (*Config, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("read monitor config %q: %w", path, err)
	}
	w := newWalker(path, getenv)
	l := &loader{walker: w, abs: abs, shown: filepath.Dir(path), dir: filepath.Dir(abs), suites: map[string]*loadedSuite{}, loadSuite: load}
	cfg := l.load(data)
	if probs := w.problems(); len(probs) > 0 {
		return nil, &suite.ValidationError{Problems: probs}
	}
	return cfg, nil
}

// loader builds a Config from monitor.yaml's nodes.
type loader struct {
	*walker
	abs   string // monitor.yaml, absolute
	dir   string // its directory, absolute
	shown string // its directory as the caller named it, for suite messages
	// suites are the suites loaded, by absolute path.
	suites    map[string]*loadedSuite
	loadSuite func(abs, shown string) (*suite.Suite, error)
}

// loadedSuite is a suite file loaded once for every check that names it.
type loadedSuite struct {
	s   *suite.Suite
	err error
}

func (l *loader) load(data []byte) *Config {
	root := l.decode(data)
	if root == nil {
		return nil
	}
	doc := l.Resolve(root)
	if doc.Kind != yaml.MappingNode {
		l.add(doc, "", "top level must be a mapping, got "+yamlwalk.Describe(doc), "a monitor.yaml has checks:, notifiers: and other key: value lines")
		return nil
	}
	cfg := &Config{
		Path:          l.abs,
		Listen:        DefaultListen,
		Store:         filepath.Join(l.dir, DefaultStore),
		ShutdownGrace: DefaultShutdownGrace,
		Incidents:     Incidents{ResolveAfter: DefaultResolveAfter, RepeatInterval: DefaultRepeatInterval},
	}
	var defaultsVal, checksKey, checksVal, notifiersVal *yaml.Node
	for _, e := range l.Pairs(doc, "") {
		k, v := e.Key, e.Val
		switch k.Value {
		case "defaults":
			defaultsVal = v
		case "checks":
			checksKey, checksVal = k, v
		case "notifiers":
			notifiersVal = v
		default:
			if !l.setting(cfg, k.Value, v) {
				l.UnknownKey(k, "", topKeys)
			}
		}
	}
	var names []string
	if notifiersVal != nil {
		cfg.Notifiers, names = l.notifiers(notifiersVal)
	}
	defaults := settings{}
	if defaultsVal != nil {
		defaults, _ = l.settings(defaultsVal, "defaults", defaultKeys, names)
	}
	if checksVal != nil {
		cfg.Checks = l.checks(checksVal, defaults, names)
	}
	if len(cfg.Checks) == 0 && (checksVal == nil || yamlwalk.IsNull(checksVal) || checksVal.Kind == yaml.SequenceNode && len(checksVal.Content) == 0) {
		where := checksKey
		if where == nil {
			where = doc
		}
		l.add(where, "checks", "at least one check is required", "add checks: with a name:, a suite: and a provider:; `promptcanary init` writes an example")
	}
	cfg.secrets = l.secrets
	return cfg
}

// setting reads the top-level setting key of value v into cfg; it
// reports false when key is none.
func (l *loader) setting(cfg *Config, key string, v *yaml.Node) bool {
	switch key {
	case "listen":
		if s, ok := l.str(v, "listen"); ok && l.listen(s) {
			cfg.Listen = s.val
		}
	case "base_url":
		if s, ok := l.str(v, "base_url"); ok && l.httpURL(s, "base_url") {
			cfg.BaseURL = strings.TrimRight(s.val, "/")
		}
	case "allowed_hosts":
		cfg.AllowedHosts = l.allowedHosts(v)
	case "store":
		if s, ok := l.str(v, "store"); ok {
			cfg.Store = l.store(s)
		}
	case "admin_token":
		if s, ok := l.secret(v, "admin_token", "PROMPTCANARY_ADMIN_TOKEN"); ok {
			if len(s.val) < MinAdminToken {
				l.add(v, "admin_token", fmt.Sprintf("too short: %s holds fewer than %d characters", strings.Join(s.vars, ", "), MinAdminToken),
					"use a random token, for example from `openssl rand -hex 32`")
			} else {
				cfg.AdminToken = s.val
			}
		}
	case "shutdown_grace":
		if d := l.duration(v, "shutdown_grace", 0, MaxShutdownGrace, ""); d != nil {
			cfg.ShutdownGrace = *d
		}
	case "budget":
		cfg.Budget = l.budget(v)
	case "incidents":
		l.incidents(v, &cfg.Incidents)
	case "otel":
		cfg.OTel = l.otel(v)
	default:
		return false
	}
	return true
}

// listen validates listen:, a host:port address.
func (l *loader) listen(s str) bool {
	host, port, err := net.SplitHostPort(s.val)
	if err == nil {
		p, perr := strconv.Atoi(port)
		if perr == nil && p >= 0 && p <= 65535 && !strings.ContainsAny(host, " /") {
			return true
		}
	}
	msg := fmt.Sprintf("invalid address %q", s.val)
	if s.fromEnv() {
		msg = "invalid address in " + strings.Join(s.vars, ", ")
	}
	l.add(s.node, "listen", msg, "write HOST:PORT, for example 127.0.0.1:9464 or :9464 (every interface)")
	return false
}

// allowedHosts validates allowed_hosts:, the host names (no port) the
// dashboard answers to besides its own, or "*" for any. Names are kept in
// lower case.
func (l *loader) allowedHosts(n *yaml.Node) []string {
	names, _ := l.strList(n, "allowed_hosts", "write a host name such as canary.internal, or \"*\" for any")
	out := names[:0]
	for i, name := range names {
		if name != "*" && (strings.ContainsAny(name, " /:@?#*") || strings.ContainsFunc(name, unicode.IsControl)) {
			l.add(l.Resolve(n.Content[i]), fmt.Sprintf("allowed_hosts[%d]", i), fmt.Sprintf("invalid host name %q", name),
				"write the name alone, without a scheme, port or path: canary.internal, not https://canary.internal:9464/")
			continue
		}
		out = append(out, strings.ToLower(name))
	}
	return out
}

// store resolves store:: a DSN (postgres://…) as written, a path against
// monitor.yaml's directory. A DSN read from the environment is a secret
// (it may hold a password).
func (l *loader) store(s str) string {
	if strings.Contains(s.val, "://") {
		l.keep(s)
		return s.val
	}
	if s.val == "" {
		l.add(s.node, "store", "must not be empty", "leave store: out for "+DefaultStore+" beside monitor.yaml")
		return ""
	}
	return l.resolvePath(s.val)
}

// resolvePath resolves p against monitor.yaml's directory.
func (l *loader) resolvePath(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(l.dir, p)
}

func (l *loader) budget(n *yaml.Node) Budget {
	var b Budget
	for _, e := range l.Mapping(n, "budget", "write budget: {usd_per_day: 5}") {
		switch e.Key.Value {
		case "usd_per_day":
			if f := l.number(e.Val, "budget.usd_per_day", 0, MaxUSDPerDay, "estimated US dollars per day (UTC), for example 5; 0 for no budget"); f != nil {
				b.USDPerDay = *f
			}
		default:
			l.UnknownKey(e.Key, "budget", []string{"usd_per_day"})
		}
	}
	return b
}

func (l *loader) incidents(n *yaml.Node, in *Incidents) {
	for _, e := range l.Mapping(n, "incidents", "write incidents: {resolve_after: 2, repeat_interval: 24h}") {
		switch e.Key.Value {
		case "resolve_after":
			if v := l.integer(e.Val, "incidents.resolve_after", 1, MaxResolveAfter); v != nil {
				in.ResolveAfter = *v
			}
		case "repeat_interval":
			if d := l.duration(e.Val, "incidents.repeat_interval", MinRepeatInterval, MaxRepeatInterval, ""); d != nil {
				in.RepeatInterval = *d
			}
		default:
			l.UnknownKey(e.Key, "incidents", []string{"resolve_after", "repeat_interval"})
		}
	}
}

// Secrets returns every secret value the configuration read: admin_token,
// otel.headers, the notifiers' secret, token, routing_key and Slack
// webhook_url, and any url, webhook_url, api_url, otel.endpoint or store
// DSN that came from the environment,
// each whole and as the values of the variables it was built from;
// sorted, without duplicates. Pass them to redact.Set.
func (c *Config) Secrets() []string {
	if c == nil {
		return nil
	}
	out := slices.Clone(c.secrets)
	if c.AdminToken != "" {
		out = append(out, c.AdminToken)
	}
	for _, n := range c.Notifiers {
		out = append(out, n.Secret, n.Token, n.RoutingKey)
		if n.Type == "slack" {
			out = append(out, n.URL)
		}
	}
	out = slices.DeleteFunc(out, func(s string) bool { return s == "" })
	slices.Sort(out)
	return slices.Compact(out)
}
