package cli

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Calendar units of an age: a month is 30 days and a year 365, which is
// what "older than 6mo" means to a person deleting history.
const (
	day   = 24 * time.Hour
	week  = 7 * day
	month = 30 * day
	year  = 365 * day
)

// ageUnits are the suffixes an age may end in besides Go's durations,
// longest first so that "mo" is not read as "m" after "o".
var ageUnits = []struct {
	suffix string
	unit   time.Duration
}{
	{"months", month}, {"month", month}, {"years", year}, {"year", year},
	{"min", time.Minute}, {"mo", month}, {"d", day}, {"w", week}, {"y", year},
}

// ageValue is a flag holding an age like 36h, 7d, 2w, 6mo or 1y: Go
// durations plus days, weeks, months and years, which is how people say
// how far back to look. A destructive age (store prune --older-than)
// refuses Go's minute suffix "m", which reads as a month as often as a
// minute: minutes are written "min" there.
type ageValue struct {
	d           *time.Duration
	destructive bool
}

func (v ageValue) String() string {
	if v.d == nil || *v.d == 0 {
		return ""
	}
	return formatAge(*v.d)
}

func (v ageValue) Type() string { return "age" }

func (v ageValue) Set(s string) error {
	d, err := parseAge(s, v.destructive)
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}

// ageError is an age that cannot be read, with hints.
type ageError struct {
	msg   string
	hints []string
}

func (e *ageError) Error() string   { return e.msg }
func (e *ageError) Hints() []string { return e.hints }

// errAgeSyntax is the message of an age that is not one.
var errAgeSyntax = errors.New("want an age such as 36h, 7d, 2w, 6mo or 1y")

// parseAge reads 36h, 7d, 2w, 6mo, 1y, 90min, 90m and 1h30m; a bare number
// is refused so that nobody wonders about its unit. With destructive, a
// number of "m" alone (1m) is refused with a hint.
func parseAge(s string, destructive bool) (time.Duration, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, u := range ageUnits {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.Atoi(strings.TrimSpace(n))
			if err != nil || v <= 0 || time.Duration(v) > 100*year/u.unit {
				return 0, errAgeSyntax
			}
			return time.Duration(v) * u.unit, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errAgeSyntax
	}
	if n, ok := strings.CutSuffix(s, "m"); destructive && ok && isDigits(n) {
		return 0, &ageError{
			msg:   "m could be minutes or months",
			hints: []string{fmt.Sprintf("write %smo for months, or %smin for minutes; units: h, d, w, mo, y", n, n)},
		}
	}
	return d, nil
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// formatAge prints an age the way parseAge reads it, in whole years,
// weeks, days, hours or minutes when it is one of those (a month prints
// as 30d: 90d stays 90d rather than becoming 3mo), and minutes as "min",
// never the ambiguous "m".
func formatAge(d time.Duration) string {
	for _, u := range []struct {
		suffix string
		unit   time.Duration
	}{{"y", year}, {"w", week}, {"d", day}, {"h", time.Hour}, {"min", time.Minute}} {
		if d%u.unit == 0 {
			return fmt.Sprintf("%d%s", d/u.unit, u.suffix)
		}
	}
	return d.String()
}
