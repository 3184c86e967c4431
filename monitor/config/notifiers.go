package config

import (
	"fmt"
	"github.com/promptcanary/promptcanary/internal/yamlwalk"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/monitor/notify"
)

// The notifier types and their default API base URLs, as the notifiers
// (monitor/notify) define them.
const (
	TypeWebhook   = notify.TypeWebhook
	TypeSlack     = notify.TypeSlack
	TypeGitHub    = notify.TypeGitHub
	TypePagerDuty = notify.TypePagerDuty

	DefaultGitHubAPI    = notify.DefaultGitHubAPI
	DefaultPagerDutyAPI = notify.DefaultPagerDutyAPI
)

// notifierTypes lists the keys each notifier type accepts besides name:
// and type:.
var notifierTypes = map[string][]string{
	TypeWebhook:   {"url", "secret", "min_severity"},
	TypeSlack:     {"webhook_url", "min_severity"},
	TypeGitHub:    {"repo", "token", "labels", "api_url", "min_severity"},
	TypePagerDuty: {"routing_key", "api_url", "min_severity"},
}

// typeNames are the notifier types, sorted.
var typeNames = func() []string {
	names := make([]string, 0, len(notifierTypes))
	for t := range notifierTypes {
		names = append(names, t)
	}
	slices.Sort(names)
	return names
}()

// NotifierTypes returns the notifier types monitor.yaml accepts, sorted.
func NotifierTypes() []string { return slices.Clone(typeNames) }

var notifierKeys = []string{"name", "type", "url", "webhook_url", "secret", "repo", "token", "labels", "routing_key", "api_url", "min_severity"}

// repoRE is a GitHub owner/name.
var repoRE = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}$`)

// The environment variables suggested for each secret.
var secretEnv = map[string]string{
	"secret":      "WEBHOOK_SECRET",
	"webhook_url": "SLACK_WEBHOOK_URL",
	"token":       "GITHUB_TOKEN",
	"routing_key": "PD_ROUTING_KEY",
}

// required are the keys each type needs, with a hint each.
var required = map[string][][2]string{
	TypeWebhook:   {{"url", `the address to POST to, for example url: https://ops.example.com/canary`}},
	TypeSlack:     {{"webhook_url", `an incoming-webhook URL from the environment: webhook_url: "${SLACK_WEBHOOK_URL}"`}},
	TypeGitHub:    {{"repo", "the repository to open issues in, for example repo: org/app"}, {"token", `a token that may write issues: token: "${GITHUB_TOKEN}"`}},
	TypePagerDuty: {{"routing_key", `the Events API v2 integration key: routing_key: "${PD_ROUTING_KEY}"`}},
}

// notifiers reads notifiers:. names are the names of every notifier,
// valid or not, so that notify: lists are not also reported for a
// notifier that has a problem of its own.
func (l *loader) notifiers(n *yaml.Node) (out []Notifier, names []string) {
	seen := map[string]int{}
	for field, item := range l.mappings(n, "notifiers", "notifier", "a mapping with name: and type:", "for example {name: oncall, type: slack, webhook_url: \"${SLACK_WEBHOOK_URL}\"}") {
		nt, ok := l.notifier(item, field, seen)
		if ok {
			out = append(out, nt)
		}
		if nt.Name != "" {
			names = append(names, nt.Name)
		}
	}
	return out, names
}

// notifier reads one notifier entry.
func (l *loader) notifier(item *yaml.Node, field string, seen map[string]int) (Notifier, bool) {
	ps := l.Pairs(item, field)
	nt := Notifier{Line: item.Line, MinSeverity: promptcanary.SeverityLow}
	// The type decides which keys are allowed: read it first.
	nt.Type = l.notifierType(item, field, ps)
	ok := nt.Type != ""
	allowed := notifierTypes[nt.Type]
	for _, e := range ps {
		k, v := e.Key, e.Val
		f := yamlwalk.Join(field, k.Value)
		switch {
		case k.Value == "type":
			continue
		case k.Value == "name":
			nt.Name = l.notifierName(v, f, seen)
			ok = ok && nt.Name != ""
			continue
		case !slices.Contains(notifierKeys, k.Value):
			known := notifierKeys
			if nt.Type != "" {
				known = append([]string{"name", "type"}, allowed...)
			}
			l.UnknownKey(k, field, known)
			ok = false
			continue
		case nt.Type != "" && !slices.Contains(allowed, k.Value):
			l.add(k, f, "not a field of "+nt.Type+" notifiers", nt.Type+" notifiers take: name, type, "+strings.Join(allowed, ", "))
			ok = false
			continue
		}
		if !l.notifierField(&nt, k.Value, v, f) {
			ok = false
		}
	}
	if !hasKey(ps, "name") {
		l.add(item, yamlwalk.Join(field, "name"), "required field is missing", "name the notifier, for example name: oncall, and list that name in the notify: of its checks")
		ok = false
	}
	for _, r := range required[nt.Type] {
		if !hasKey(ps, r[0]) {
			l.add(item, yamlwalk.Join(field, r[0]), "required field is missing", r[1])
			ok = false
		}
	}
	if nt.APIURL == "" {
		switch nt.Type {
		case TypeGitHub:
			nt.APIURL = DefaultGitHubAPI
		case TypePagerDuty:
			nt.APIURL = DefaultPagerDutyAPI
		}
	}
	return nt, ok
}

// notifierType reads a notifier's type:; "" means a problem was reported.
func (l *loader) notifierType(item *yaml.Node, field string, ps []kv) string {
	f := yamlwalk.Join(field, "type")
	hint := "one of: " + strings.Join(typeNames, ", ")
	var n *yaml.Node
	for _, e := range ps {
		if e.Key.Value == "type" {
			n = e.Val
		}
	}
	if n == nil {
		l.add(item, f, "required field is missing", hint)
		return ""
	}
	s, ok := l.str(n, f)
	switch {
	case !ok:
		if yamlwalk.IsNull(n) {
			l.add(n, f, "must not be empty", hint)
		}
		return ""
	case notifierTypes[s.val] == nil:
		if c := suggest.Closest(s.val, typeNames); c != "" {
			hint = "did you mean " + c + "? " + hint
		}
		l.add(n, f, fmt.Sprintf("unknown notifier type %q", s.val), hint)
		return ""
	}
	return s.val
}

// notifierName reads a notifier's name: and checks that it is unique; ""
// means a problem was reported.
func (l *loader) notifierName(v *yaml.Node, f string, seen map[string]int) string {
	s, ok := l.str(v, f)
	switch {
	case !ok:
		if yamlwalk.IsNull(v) {
			l.add(v, f, "must not be empty", "name the notifier, for example name: oncall")
		}
		return ""
	case !l.validName(s, f, "oncall"):
		return ""
	}
	if line, dup := seen[s.val]; dup {
		l.add(v, f, fmt.Sprintf("duplicate notifier name %q (also at line %d)", s.val, line), "give each notifier its own name")
		return ""
	}
	seen[s.val] = v.Line
	return s.val
}

// notifierField reads one typed field of a notifier into nt.
func (l *loader) notifierField(nt *Notifier, key string, v *yaml.Node, f string) bool {
	switch key {
	case "url":
		s, ok := l.str(v, f)
		if ok && l.httpURL(s, f) {
			l.keep(s) // a URL from the environment may carry a credential
			nt.URL = s.val
			return true
		}
	case "webhook_url":
		s, ok := l.secret(v, f, secretEnv[key])
		if ok && l.httpURL(s, f) {
			nt.URL = s.val
			return true
		}
	case "api_url":
		s, ok := l.str(v, f)
		if ok && l.httpURL(s, f) {
			l.keep(s)
			nt.APIURL = strings.TrimRight(s.val, "/")
			return true
		}
	case "secret", "token", "routing_key":
		s, ok := l.secret(v, f, secretEnv[key])
		if !ok {
			return false
		}
		if s.val == "" {
			l.add(v, f, "must not be empty", "set "+strings.Join(s.vars, ", ")+" to the value")
			return false
		}
		switch key {
		case "secret":
			nt.Secret = s.val
		case "token":
			nt.Token = s.val
		default:
			nt.RoutingKey = s.val
		}
		return true
	case "repo":
		s, ok := l.str(v, f)
		if !ok {
			if yamlwalk.IsNull(v) {
				l.add(v, f, "must not be empty", "write owner/name, for example repo: org/app")
			}
			return false
		}
		if !repoRE.MatchString(s.val) {
			l.add(v, f, fmt.Sprintf("must be OWNER/NAME, got %q", s.val), "write owner/name, for example repo: org/app")
			return false
		}
		nt.Repo = s.val
		return true
	case "labels":
		labels, set := l.strList(v, f, "remove the empty label")
		if set {
			nt.Labels = labels
		}
		return true
	case "min_severity":
		s, ok := l.str(v, f)
		if !ok {
			return false
		}
		sev, err := promptcanary.ParseSeverity(s.val)
		if err != nil {
			hint := "one of: none, low, medium, high, critical"
			if c := suggest.Closest(s.val, []string{"none", "low", "medium", "high", "critical"}); c != "" {
				hint = "did you mean " + c + "? " + hint
			}
			l.add(v, f, fmt.Sprintf("unknown severity %q", s.val), hint)
			return false
		}
		nt.MinSeverity = sev
		return true
	}
	return false
}

// httpURL checks that s is an absolute http or https URL with a host. The
// value is never quoted: a URL may carry a credential.
func (l *loader) httpURL(s str, field string) bool {
	const hint = "write an absolute URL such as https://ops.example.com/canary"
	where := ""
	if s.fromEnv() {
		where = " (from " + strings.Join(s.vars, ", ") + ")"
	}
	u, err := url.Parse(s.val)
	switch {
	case s.val == "":
		l.add(s.node, field, "must not be empty"+where, hint)
	case err != nil:
		l.add(s.node, field, "invalid URL"+where, hint)
	case u.Scheme != "http" && u.Scheme != "https":
		scheme := u.Scheme
		if scheme == "" || len(scheme) > 16 || s.fromEnv() {
			l.add(s.node, field, "must be an absolute http or https URL"+where, hint)
		} else {
			l.add(s.node, field, fmt.Sprintf("must be an http or https URL, got scheme %q%s", scheme, where), hint)
		}
	case u.Host == "":
		l.add(s.node, field, "must be an absolute URL with a host"+where, hint)
	default:
		return true
	}
	return false
}
