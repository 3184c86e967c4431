package postgres

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// hidden stands for a password in a connection string shown to people.
const hidden = "xxxxx"

// kvPassword matches the password of a key=value connection string,
// quoted or not.
var kvPassword = regexp.MustCompile(`(?i)(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s]*)`)

// urlPassword matches a password parameter of a URL's query.
var urlPassword = regexp.MustCompile(`(?i)[?&]password=([^&#\s]*)`)

// IsDSN reports whether target names a PostgreSQL database: a postgres://
// or postgresql:// URL.
func IsDSN(target string) bool {
	return hasScheme(target, "postgres://") || hasScheme(target, "postgresql://")
}

func hasScheme(s, scheme string) bool {
	return len(s) >= len(scheme) && strings.EqualFold(s[:len(scheme)], scheme)
}

// Redact returns dsn with its password, in the URL's user information or
// in a password parameter, replaced by xxxxx: the form of a connection
// string fit for errors, logs and pages.
func Redact(dsn string) string {
	out := dsn
	if !IsDSN(dsn) {
		out = kvPassword.ReplaceAllString(out, "${1}"+hidden)
	}
	return hide(out, dsn)
}

// hide returns s with every password of dsn replaced by xxxxx.
func hide(s, dsn string) string {
	for _, pw := range passwords(dsn) {
		s = strings.ReplaceAll(s, pw, hidden)
	}
	return s
}

// passwords returns the passwords dsn holds, as they are written in it and
// decoded, longest first, so that replacing them hides every trace.
func passwords(dsn string) []string {
	var out []string
	add := func(s string) {
		if s != "" && s != hidden {
			out = append(out, s)
		}
	}
	if IsDSN(dsn) {
		// The user information runs from the scheme to the last @ of the
		// authority; url.Parse rejects some passwords (a '#', a '/'), so it
		// is cut by hand.
		rest := dsn[strings.Index(dsn, "://")+3:]
		if end := strings.IndexAny(rest, "/?"); end >= 0 && !strings.Contains(rest[end:], "@") {
			rest = rest[:end]
		}
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if colon := strings.Index(rest[:at], ":"); colon >= 0 {
				raw := rest[colon+1 : at]
				add(raw)
				if dec, err := url.PathUnescape(raw); err == nil {
					add(dec)
				}
			}
		}
		for _, m := range urlPassword.FindAllStringSubmatch(dsn, -1) {
			add(m[1])
			if dec, err := url.QueryUnescape(m[1]); err == nil {
				add(dec)
			}
		}
	} else {
		for _, m := range kvPassword.FindAllStringSubmatch(dsn, -1) {
			add(strings.Trim(m[2], "'"))
		}
	}
	// Longest first: a password that contains another is replaced whole.
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// scrubError returns err with every password of dsn hidden from its
// message. pgx hides passwords itself, but only as well as it can parse a
// broken connection string.
func scrubError(dsn string, err error) error {
	msg := err.Error()
	scrubbed := hide(msg, dsn)
	if scrubbed == msg {
		return err
	}
	return &scrubbedError{msg: scrubbed, err: err}
}

// scrubbedError is an error whose message had a password hidden; it
// unwraps to the original for errors.Is and errors.As.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }
