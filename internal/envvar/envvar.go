// Package envvar expands ${NAME} references to environment variables in
// the settings of canary.yaml (provider headers and env, exec probe env),
// so that a secret is named there but never written.
package envvar

import (
	"errors"
	"fmt"
	"strings"
)

// Expand replaces every ${NAME} in s with getenv(NAME). It returns the
// substituted values (so they can be redacted) and an error naming each
// variable that is unset or empty. Values never appear in errors.
func Expand(s string, getenv func(string) string) (string, []string, error) {
	if !strings.Contains(s, "${") {
		return s, nil, nil
	}
	var (
		b      strings.Builder
		values []string
		errs   []error
	)
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		rest := s[i+2:]
		j := strings.IndexByte(rest, '}')
		if j < 0 || !IsName(rest[:j]) {
			return "", nil, errors.New("invalid ${…} reference: want ${NAME} with NAME made of letters, digits and underscores")
		}
		name := rest[:j]
		v := getenv(name)
		if v == "" {
			errs = append(errs, fmt.Errorf("environment variable %s is not set", name))
		} else {
			values = append(values, v)
			b.WriteString(v)
		}
		s = rest[j+1:]
	}
	if len(errs) > 0 {
		return "", nil, errors.Join(errs...)
	}
	return b.String(), values, nil
}

// IsName reports whether s is a valid environment variable name:
// letters, digits and underscores, not starting with a digit.
func IsName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
