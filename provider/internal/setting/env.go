package setting

import "github.com/promptcanary/promptcanary/internal/envvar"

// ExpandEnv replaces every ${NAME} in s with getenv(NAME). It returns the
// substituted values (so they can be redacted) and an error naming each
// variable that is unset or empty. Values never appear in errors. It is
// envvar.Expand, the rule the exec probe follows too.
func ExpandEnv(s string, getenv func(string) string) (string, []string, error) {
	return envvar.Expand(s, getenv)
}

// IsEnvName reports whether s is a valid environment variable name:
// letters, digits and underscores, not starting with a digit.
func IsEnvName(s string) bool { return envvar.IsName(s) }
