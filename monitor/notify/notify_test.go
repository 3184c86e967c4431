package notify_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/monitor/notify"
)

func TestNewErrors(t *testing.T) {
	const secretPath = "/services/T024BE7LD/B08J1KQ2H/" + slackToken
	tests := []struct {
		name string
		cfg  config.Notifier
		want string
	}{
		{"unknown type", config.Notifier{Name: "oncall", Type: "slak"}, `notifier "oncall": unknown type "slak" (did you mean slack?) (known: github, pagerduty, slack, webhook)`},
		{"unknown type far off", config.Notifier{Name: "x", Type: "email"}, `notifier "x": unknown type "email" (known: github, pagerduty, slack, webhook)`},
		{"no name", config.Notifier{Type: "slack", URL: "https://hooks.slack.com" + secretPath}, `notifier of type slack: name is empty`},
		{"bad severity", config.Notifier{Name: "p", Type: "pagerduty", RoutingKey: pdKey, MinSeverity: "urgent"}, `notifier "p" (pagerduty): unknown min_severity "urgent" (want none, low, medium, high or critical)`},
		{"slack without url", config.Notifier{Name: "oncall", Type: "slack"}, `notifier "oncall" (slack): webhook_url is empty`},
		{"slack url without scheme", config.Notifier{Name: "oncall", Type: "slack", URL: "hooks.slack.com" + secretPath}, `notifier "oncall" (slack): webhook_url must be an http:// or https:// URL`},
		{"slack url unparsable", config.Notifier{Name: "oncall", Type: "slack", URL: "https://hooks.slack.com/%zz" + secretPath}, `notifier "oncall" (slack): webhook_url is not a valid URL`},
		{"webhook without host", config.Notifier{Name: "hook", Type: "webhook", URL: "https:///canary?token=" + slackToken}, `notifier "hook" (webhook): url has no host`},
		{"github repo", config.Notifier{Name: "tracker", Type: "github", Repo: "app", Token: ghToken}, `notifier "tracker" (github): repo "app" must be OWNER/NAME`},
		{"github token", config.Notifier{Name: "tracker", Type: "github", Repo: "org/app"}, `notifier "tracker" (github): token is empty (set it from the environment: token: ${GITHUB_TOKEN})`},
		{"github api url", config.Notifier{Name: "tracker", Type: "github", Repo: "org/app", Token: ghToken, APIURL: "ftp://ghe.example"}, `notifier "tracker" (github): api_url must be an http:// or https:// URL`},
		{"pagerduty key", config.Notifier{Name: "pager", Type: "pagerduty"}, `notifier "pager" (pagerduty): routing_key is empty (set it from the environment: routing_key: ${PD_ROUTING_KEY})`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := notify.New(tc.cfg, nil)
			if err == nil {
				t.Fatalf("New = %v, want an error", n)
			}
			if err.Error() != tc.want {
				t.Errorf("got %q\nwant %q", err, tc.want)
			}
			noSecret(t, "error", err.Error(), slackToken, ghToken, pdKey)
		})
	}
}

func TestNew(t *testing.T) {
	if got := notify.Types(); !slices.Equal(got, []string{"github", "pagerduty", "slack", "webhook"}) {
		t.Errorf("Types = %v", got)
	}
	n := mustNew(t, config.Notifier{Name: "hook", Type: "webhook", URL: "https://ops.example.com/canary"})
	if n.Name() != "hook" || n.MinSeverity() != promptcanary.SeverityLow {
		t.Errorf("Name %q MinSeverity %q, want hook and the default low", n.Name(), n.MinSeverity())
	}
	n = mustNew(t, config.Notifier{Name: "pager", Type: "pagerduty", RoutingKey: pdKey, MinSeverity: promptcanary.SeverityCritical})
	if n.MinSeverity() != promptcanary.SeverityCritical {
		t.Errorf("MinSeverity %q, want critical", n.MinSeverity())
	}
}

// TestSecretsNeverInErrorsOrAttempts sends through every notifier to a
// server that echoes the whole request (URL, headers, body) in a 500, and
// to one that is gone, and looks for the secrets in everything recorded
// and logged.
func TestSecretsNeverInErrorsOrAttempts(t *testing.T) {
	const hookToken = "qs-secret-0123456789"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var b strings.Builder
		b.WriteString("echo " + r.URL.RequestURI())
		for k, vs := range r.Header {
			b.WriteString("\n" + k + ": " + strings.Join(vs, ","))
		}
		b.WriteString("\n" + string(body))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, b.String())
	}))
	defer echo.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()

	for _, base := range []struct{ name, url string }{{"echo", echo.URL}, {"unreachable", gone.URL}} {
		cfgs := []config.Notifier{
			{Name: "hook", Type: "webhook", URL: base.url + "/hook?token=" + hookToken, Secret: hookSecret},
			{Name: "oncall", Type: "slack", URL: base.url + slackPath},
			{Name: "tracker", Type: "github", Repo: "org/app", Token: ghToken, APIURL: base.url},
			{Name: "pager", Type: "pagerduty", RoutingKey: pdKey, APIURL: base.url},
		}
		secrets := []string{hookToken, hookSecret, slackToken, ghToken, pdKey, base.url + "/hook?token=", slackPath}
		for _, cfg := range cfgs {
			t.Run(base.name+"/"+cfg.Type, func(t *testing.T) {
				n := mustNew(t, cfg)
				_, err := n.Send(context.Background(), firing())
				if err == nil {
					t.Fatal("Send succeeded, want an error")
				}
				noSecret(t, "error", err.Error(), secrets...)
				if base.name == "echo" {
					var e *notify.Error
					if !asNotifyError(err, &e) || e.Code != 500 || !strings.Contains(e.Message, "echo ") {
						t.Errorf("error %#v, want a 500 quoting the body", err)
					}
					if i := strings.Index(e.Message, "echo "); len(e.Message[i:]) > notify.MaxSnippet || strings.Contains(e.Message, "\n") {
						t.Errorf("quoted body %q is longer than %d bytes or not one line", e.Message[i:], notify.MaxSnippet)
					}
				}

				var r recorder
				o := r.options()
				o.Backoff.Attempts = 2
				var logs strings.Builder
				o.Logger = newTextLogger(&logs)
				deliver(t, &r, o, []notify.Notifier{n}, resolved(), cfg.Name)
				attempts, _ := r.got()
				if len(attempts) == 0 {
					t.Fatal("no attempt recorded")
				}
				for _, a := range attempts {
					noSecret(t, "attempt", a.Error, secrets...)
				}
				noSecret(t, "log", logs.String(), secrets...)
			})
		}
	}
}

func asNotifyError(err error, e **notify.Error) bool {
	ne, ok := err.(*notify.Error)
	*e = ne
	return ok
}
