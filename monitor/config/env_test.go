package config

// fixtureSecrets are the values of the variables the fixtures refer to:
// none of them may appear in any problem or hint.
var fixtureSecrets = map[string]string{
	"SLACK_WEBHOOK_URL": "https://hooks.slack.example/services/T0/B0/slack-secret-path",
	"PD_ROUTING_KEY":    "pd-routing-key-secret-0001",
	"GITHUB_TOKEN":      "ghp_githubtokensecret0001",
	"WEBHOOK_SECRET":    "webhook-hmac-secret-0001",
	"ADMIN_TOKEN":       "admin-token-secret-0123456789",
	"SHORT_TOKEN":       "short-secret",
	"NOT_A_URL":         "not-a-url-secret-value",
	"SCHEME_SECRET":     "xoxbsecret:scheme-secret-rest",
	"DATABASE_URL":      "postgres://canary:db-password-secret@db.example:5432/canary",
	"OTLP_TOKEN":        "otlp-token-secret-0001",
}

// fixtureEnv is the environment of the fixtures: fixtureSecrets and
// LOCAL_PATH, a path that is not a secret.
func fixtureEnv(name string) string {
	if name == "LOCAL_PATH" {
		return "state/history.db"
	}
	return fixtureSecrets[name]
}
