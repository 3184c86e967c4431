package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/httpc"
	"github.com/promptcanary/promptcanary/internal/suggest"
)

// The notifier types of monitor.yaml's type: key (the configuration
// declares the keys of each; TestTypesMatchConfig keeps the two lists
// one).
const (
	TypeWebhook   = "webhook"
	TypeSlack     = "slack"
	TypeGitHub    = "github"
	TypePagerDuty = "pagerduty"
)

// constructors builds a notifier of each type from its configuration and
// the shared HTTP client.
var constructors = map[string]func(cfg Config, hc *httpc.Client) (Notifier, error){
	TypeWebhook:   newWebhook,
	TypeSlack:     newSlack,
	TypeGitHub:    newGitHub,
	TypePagerDuty: newPagerDuty,
}

// Types returns the notifier types New knows, sorted.
func Types() []string {
	ts := make([]string, 0, len(constructors))
	for t := range constructors {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return ts
}

// New returns the notifier cfg describes, sending its requests with client
// (nil means a client of its own). Redirects are never followed, so no
// credential is sent to another address; each Send is bounded only by its
// context (Deliver gives every attempt a timeout). The error of a
// bad configuration names the notifier and never holds a secret.
func New(cfg Config, client *http.Client) (Notifier, error) {
	newFn, ok := constructors[cfg.Type]
	if !ok {
		return nil, fmt.Errorf("notifier %q: unknown type %q%s (known: %s)", cfg.Name, cfg.Type, suggest.Hint(cfg.Type, Types()), strings.Join(Types(), ", "))
	}
	if cfg.Name == "" {
		return nil, fmt.Errorf("notifier of type %s: name is empty", cfg.Type)
	}
	if cfg.MinSeverity == "" {
		cfg.MinSeverity = promptcanary.SeverityLow
	}
	if cfg.MinSeverity.Rank() < 0 {
		return nil, fmt.Errorf("notifier %q (%s): unknown min_severity %q (want none, low, medium, high or critical)", cfg.Name, cfg.Type, cfg.MinSeverity)
	}
	secrets := append(urlSecrets(cfg.URL), urlSecrets(cfg.APIURL)...)
	hc := newClient(client, append(secrets, cfg.Secret, cfg.Token, cfg.RoutingKey)...)
	n, err := newFn(cfg, hc)
	if err != nil {
		return nil, fmt.Errorf("notifier %q (%s): %w", cfg.Name, cfg.Type, err)
	}
	return n, nil
}

// base holds what every notifier has: its name and least severity.
type base struct {
	name string
	min  promptcanary.Severity
}

func (b base) Name() string                       { return b.name }
func (b base) MinSeverity() promptcanary.Severity { return b.min }

// checkURL checks that raw is an absolute http(s) URL. Its error never
// quotes the URL, which may be a secret (a Slack webhook) or hold one.
func checkURL(key, raw string) (*url.URL, error) {
	if raw == "" {
		return nil, fmt.Errorf("%s is empty", key)
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse's error quotes the URL: say what is wrong without it.
		return nil, fmt.Errorf("%s is not a valid URL", key)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%s must be an http:// or https:// URL", key)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("%s has no host", key)
	}
	return u, nil
}

// apiURL checks a notifier's api_url raw, def when it is not set, and
// returns it without a final "/" on its path.
func apiURL(raw, def string) (*url.URL, error) {
	if raw == "" {
		raw = def
	}
	api, err := checkURL("api_url", raw)
	if err != nil {
		return nil, err
	}
	api.Path = strings.TrimRight(api.Path, "/")
	return api, nil
}

// Wants reports whether n is to be sent m: a firing message whose severity
// is below n's MinSeverity is not. A resolve is always sent (whether a
// notifier was sent the open is the caller's business), and so is a
// message whose severity is unknown, rather than dropping it silently.
func Wants(n Notifier, m Message) bool {
	if m.Status == promptcanary.NotificationResolved {
		return true
	}
	r := m.Incident.Severity.Rank()
	return r < 0 || r >= n.MinSeverity().Rank()
}

// urlSecrets returns raw and the parts of it that may be credentials
// (a password, query values, long path segments such as the token of a
// Slack webhook), so that a server echoing any of them back has it
// scrubbed from errors.
func urlSecrets(raw string) []string {
	if raw == "" {
		return nil
	}
	out := []string{raw}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	out = append(out, strings.TrimPrefix(raw, u.Scheme+"://"), u.RawQuery)
	if p, ok := u.User.Password(); ok {
		out = append(out, p)
	}
	for _, vs := range u.Query() {
		out = append(out, vs...)
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if len(seg) >= minSecretSegment {
			out = append(out, seg)
		}
	}
	return out
}

// minSecretSegment is the length from which a URL path segment is taken
// for a credential (a Slack webhook's token has 24 characters; its team
// and channel ids are shorter and not secret).
const minSecretSegment = 16

// postJSON posts v, encoded as JSON, to rawURL through hc as op, with the
// headers sign, when set, adds for the body. A body that cannot be
// encoded is an *Error with no status.
func postJSON(ctx context.Context, hc *httpc.Client, op, rawURL string, v any, sign func(h http.Header, body []byte)) (*httpc.Response, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, &Error{Op: op, Message: "encode body: " + hc.Line(err.Error(), 300)}
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if sign != nil {
		sign(h, body)
	}
	return hc.Exchange(ctx, op, http.MethodPost, rawURL, h, body)
}
