package config

import (
	"fmt"
	"strings"
	"time"
	// The time zone database, so that tz: works in containers without
	// /usr/share/zoneinfo.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"

	"github.com/promptcanary/promptcanary/suite"
)

// MinEvery and MaxEvery bound the spacing of an every: schedule.
const (
	MinEvery = time.Second
	MaxEvery = 366 * 24 * time.Hour
)

// Every returns the schedule that fires every d, at the multiples of d
// counted from the zero time (so every 1h fires on the hour, UTC, and
// every monitor of a fleet agrees on the slots whatever its start). It
// panics if d is not positive.
func Every(d time.Duration) Schedule {
	if d <= 0 {
		panic("config: Every with a non-positive duration")
	}
	return every{d}
}

type every struct{ d time.Duration }

// Next returns the first multiple of d strictly after after, in UTC.
func (e every) Next(after time.Time) time.Time {
	return after.Truncate(e.d).Add(e.d).UTC()
}

func (e every) Interval() time.Duration { return e.d }

func (e every) String() string { return "every " + suite.FormatDuration(e.d) }

// cronParser reads standard 5-field expressions and the @hourly, @daily,
// @weekly, @monthly and @yearly descriptors.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// cronRef is the fixed reference after which Interval measures the gaps of
// a cron schedule, so that it does not depend on when it is asked.
var cronRef = time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)

// Bounds of the gap measurement: at least two slots, then up to maxSlots
// slots or the first slot past cronWindow after cronRef.
const (
	maxSlots   = 2000
	cronWindow = 400 * 24 * time.Hour
)

// CronHint describes the expressions Cron accepts.
const CronHint = `5 fields: minute hour day month weekday, for example "0 */2 * * *" (every two hours) or "30 9 * * 1-5" (9:30 on weekdays)`

// Cron returns the schedule of a cron expression: five fields (minute hour
// day-of-month month day-of-week) or a descriptor such as @daily, in the
// time zone tz ("" for UTC; an IANA name such as Europe/Berlin), or in
// the zone of a CRON_TZ=NAME prefix of the expression. Both a prefix and
// tz is an error, as is an expression that never fires.
func Cron(expr, tz string) (Schedule, error) {
	spec := strings.TrimSpace(expr)
	if z, rest, ok := cutTZ(spec); ok {
		if tz != "" {
			return nil, &cronError{"time zone given twice, by CRON_TZ= and by tz:", "remove one of them"}
		}
		tz, spec = z, rest
	}
	loc := time.UTC
	if tz != "" {
		l, err := loadZone(tz)
		if err != nil {
			return nil, &cronError{err.Error(), tzHint}
		}
		loc = l
	}
	if strings.HasPrefix(spec, "@every") {
		return nil, &cronError{fmt.Sprintf("invalid cron expression %q", expr), "write every: instead of cron: \"@every …\""}
	}
	if len(spec) > 200 {
		return nil, &cronError{"invalid cron expression: longer than 200 characters", CronHint}
	}
	parsed, err := parseCron(spec)
	if err != nil {
		return nil, &cronError{fmt.Sprintf("invalid cron expression %q: %v", expr, err), CronHint}
	}
	ss, ok := parsed.(*cron.SpecSchedule)
	if !ok {
		return nil, &cronError{fmt.Sprintf("invalid cron expression %q", expr), CronHint}
	}
	ss.Location = loc
	c := &cronSchedule{expr: spec, spec: ss}
	first := ss.Next(cronRef)
	if first.IsZero() {
		return nil, &cronError{fmt.Sprintf("cron expression %q never fires", expr), "check the day and month fields (there is no February 30)"}
	}
	c.shortest, c.interval = c.gaps(first)
	return c, nil
}

// cronError is a problem of a cron expression, with a hint.
type cronError struct{ msg, hint string }

func (e *cronError) Error() string { return e.msg }

// Hints returns the hint.
func (e *cronError) Hints() []string { return []string{e.hint} }

// parseCron parses spec, turning a panic of the parser into an error.
func parseCron(spec string) (s cron.Schedule, err error) {
	defer func() {
		if v := recover(); v != nil {
			s, err = nil, fmt.Errorf("cannot parse %q", spec)
		}
	}()
	return cronParser.Parse(spec)
}

// cutTZ splits a CRON_TZ=NAME or TZ=NAME prefix off spec.
func cutTZ(spec string) (tz, rest string, ok bool) {
	for _, p := range []string{"CRON_TZ=", "TZ="} {
		if after, found := strings.CutPrefix(spec, p); found {
			tz, rest, _ = strings.Cut(after, " ")
			return tz, strings.TrimSpace(rest), true
		}
	}
	return "", spec, false
}

// loadZone loads an IANA time zone; "Local" is refused, since a schedule
// must not depend on the machine.
func loadZone(tz string) (*time.Location, error) {
	if tz == "" || tz == "Local" || strings.ContainsAny(tz, " \t") {
		return nil, fmt.Errorf("unknown time zone %q", tz)
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q", tz)
	}
	return loc, nil
}

type cronSchedule struct {
	expr     string
	spec     *cron.SpecSchedule
	interval time.Duration
	shortest time.Duration
}

// Next returns the first slot strictly after after, in UTC; the zero time
// when the expression has none in the next five years (which a schedule
// that Cron accepted only does for a leap-day expression near its end).
func (c *cronSchedule) Next(after time.Time) time.Time {
	t := c.spec.Next(after)
	if t.IsZero() {
		return t
	}
	return t.UTC()
}

// Interval is the longest gap between two consecutive slots after a fixed
// reference (the first of January 2024, UTC), over at most 2000 slots or
// about 400 days: for "0 */2 * * *" two hours, for "0 9 * * 1-5" three days
// (Friday to Monday). The longest gap keeps staleness (twice the interval)
// from firing over a weekend; a caller that wants the spacing of one slot
// asks Next twice.
func (c *cronSchedule) Interval() time.Duration { return c.interval }

func (c *cronSchedule) String() string {
	return "cron " + c.expr + " (" + c.spec.Location.String() + ")"
}

// gaps returns the shortest and the longest gap between two consecutive
// slots from first on (see Interval).
func (c *cronSchedule) gaps(first time.Time) (shortest, longest time.Duration) {
	prev := first
	end := cronRef.Add(cronWindow)
	for i := 1; i < maxSlots; i++ {
		next := c.spec.Next(prev)
		if next.IsZero() {
			break
		}
		gap := next.Sub(prev)
		longest = max(longest, gap)
		if shortest == 0 || gap < shortest {
			shortest = gap
		}
		if next.After(end) {
			break
		}
		prev = next
	}
	if longest == 0 {
		// One slot in five years: a leap-day expression.
		longest = 4 * 366 * 24 * time.Hour
		shortest = longest
	}
	return shortest, longest
}

// shortestGap is the shortest time between two slots of s: its interval
// for every:, the shortest gap measured for cron: (as Interval measures
// the longest).
func shortestGap(s Schedule) time.Duration {
	if c, ok := s.(*cronSchedule); ok {
		return c.shortest
	}
	return s.Interval()
}
