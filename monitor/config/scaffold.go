package config

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// plainRE matches a path that YAML reads as a plain string.
var plainRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./-]*$`)

// Scaffold returns a commented monitor.yaml for `promptcanary init`: one
// check of the suite at suiteRel (relative to the monitor.yaml) on
// sim/stable, hourly, with every other key shown at its default or
// commented out. It loads without problems in an empty environment.
func Scaffold(suiteRel string) []byte {
	path := suiteRel
	if !plainRE.MatchString(path) || strings.HasSuffix(path, ":") {
		path = strconv.Quote(path)
	}
	name := slug(filepath.Base(filepath.Dir(filepath.Clean(suiteRel))))
	if name == "" {
		name = "canary"
	}
	return []byte(strings.NewReplacer("__SUITE__", path, "__NAME__", name).Replace(scaffold))
}

const scaffold = `# monitor.yaml: the checks that ` + "`promptcanary serve`" + ` runs on a schedule.
#
# Validate it:      promptcanary serve --check-config
# Run every check:  promptcanary serve --once
# Monitor:          promptcanary serve   (dashboard on http://127.0.0.1:9464)
#
# Every path is relative to this file. Secrets (tokens, keys, Slack webhook
# URLs) are never written here: write "${NAME}" and set NAME in the
# environment of promptcanary serve.

listen: 127.0.0.1:9464            # dashboard, /metrics, /healthz, /readyz, /api/v1
# base_url: https://canary.example.com  # the dashboard as people reach it, for links in notifications
store: .promptcanary/history.db   # run history; or postgres://… shared by several monitors
shutdown_grace: 30s               # how long runs in flight may finish on SIGTERM
# admin_token: "${PROMPTCANARY_ADMIN_TOKEN}"  # enables acknowledge and baseline promotion
# budget: {usd_per_day: 5}                     # skip checks once today's estimated spend would pass it

# Settings of every check, unless the check sets its own.
defaults:
  every: 1h        # any duration >= 1s, or cron: "0 */2 * * *" (5 fields, UTC; tz: Europe/Berlin)
  jitter: 10%      # delay each run by up to this share of the gap to the next slot
  samples: 10      # answers per prompt and run; drift is tested statistically
  confirm: true    # re-run at once before opening an incident (fewer false alarms)
  baseline: latest # or the id of a saved baseline (pinned; never replaced automatically)
  # notify: [oncall]

checks:
  - name: __NAME__             # unique, [a-z0-9-]: the identity of incidents and metrics
    suite: __SUITE__
    provider: sim/stable       # NAME/MODEL, or providers: [a, b] for one check per provider
    # every: 30m

# notifiers:
#   - name: oncall
#     type: webhook             # webhook, slack, github or pagerduty
#     url: https://ops.example.com/canary
#     secret: "${PROMPTCANARY_WEBHOOK_SECRET}"  # signs each body (X-PromptCanary-Signature)
#   - {name: chat, type: slack, webhook_url: "${SLACK_WEBHOOK_URL}"}
#   - {name: tracker, type: github, repo: org/app, token: "${GITHUB_TOKEN}", labels: [llm-drift]}
#   - {name: pager, type: pagerduty, routing_key: "${PD_ROUTING_KEY}", min_severity: high}

incidents:
  resolve_after: 2        # consecutive clean runs that resolve an incident
  repeat_interval: 24h    # notify an unchanged open incident again after this
`
