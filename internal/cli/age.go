package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ageValue is a flag holding an age like 90m, 36h, 7d or 2w: Go durations
// plus days and weeks, which is how people say how far back to look.
type ageValue struct{ d *time.Duration }

func (v ageValue) String() string {
	if v.d == nil || *v.d == 0 {
		return ""
	}
	return formatAge(*v.d)
}

func (v ageValue) Type() string { return "age" }

func (v ageValue) Set(s string) error {
	d, err := parseAge(s)
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}

// parseAge reads 7d, 2w, 36h, 90m, 1h30m; a bare number is refused so
// that nobody wonders about its unit.
func parseAge(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	for _, u := range []struct {
		suffix string
		unit   time.Duration
	}{{"d", 24 * time.Hour}, {"w", 7 * 24 * time.Hour}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.Atoi(n)
			if err != nil || v <= 0 || v > 100*365 {
				return 0, fmt.Errorf("invalid age %q: want for example 7d, 2w, 36h or 90m", s)
			}
			return time.Duration(v) * u.unit, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("invalid age %q: want for example 7d, 2w, 36h or 90m", s)
	}
	return d, nil
}

// formatAge prints an age the way parseAge reads it, in whole days when it
// is whole days.
func formatAge(d time.Duration) string {
	day := 24 * time.Hour
	switch {
	case d%(7*day) == 0:
		return fmt.Sprintf("%dw", d/(7*day))
	case d%day == 0:
		return fmt.Sprintf("%dd", d/day)
	}
	return d.String()
}
