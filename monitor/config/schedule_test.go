package config

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestEvery(t *testing.T) {
	tests := []struct {
		d          time.Duration
		after      string
		want, text string
	}{
		{30 * time.Minute, "2024-03-05T10:07:13Z", "2024-03-05T10:30:00Z", "every 30m"},
		{30 * time.Minute, "2024-03-05T10:30:00Z", "2024-03-05T11:00:00Z", "every 30m"}, // strictly after
		{30 * time.Minute, "2024-03-05T10:29:59.999Z", "2024-03-05T10:30:00Z", "every 30m"},
		{time.Hour, "2024-03-05T12:00:00+02:00", "2024-03-05T11:00:00Z", "every 1h"}, // zone of the input does not matter
		{24 * time.Hour, "2024-03-05T23:59:59Z", "2024-03-06T00:00:00Z", "every 24h"},
		{90 * time.Minute, "2024-03-05T00:00:00Z", "2024-03-05T01:30:00Z", "every 1h30m"},
		{time.Second, "2024-03-05T00:00:00.5Z", "2024-03-05T00:00:01Z", "every 1s"},
	}
	for _, tc := range tests {
		s := Every(tc.d)
		got := s.Next(utc(tc.after))
		if !got.Equal(utc(tc.want)) || got.Location() != time.UTC {
			t.Errorf("%s Next(%s): got %s, want %s", s, tc.after, got, tc.want)
		}
		if s.Interval() != tc.d || s.String() != tc.text {
			t.Errorf("got %s %s, want %s %s", s.Interval(), s, tc.d, tc.text)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Every(0) did not panic")
		}
	}()
	Every(0)
}

func TestCron(t *testing.T) {
	tests := []struct {
		expr, tz, after, want, text string
		interval                    time.Duration
	}{
		{"0 */2 * * *", "", "2024-03-05T10:00:00Z", "2024-03-05T12:00:00Z", "cron 0 */2 * * * (UTC)", 2 * time.Hour},
		{"0 */2 * * *", "", "2024-03-05T10:59:59Z", "2024-03-05T12:00:00Z", "cron 0 */2 * * * (UTC)", 2 * time.Hour},
		// 9:00 in Berlin is 07:00 UTC in summer, 08:00 in winter.
		{"0 9 * * *", "Europe/Berlin", "2024-07-01T00:00:00Z", "2024-07-01T07:00:00Z", "cron 0 9 * * * (Europe/Berlin)", 25 * time.Hour},
		{"0 9 * * *", "Europe/Berlin", "2024-01-15T00:00:00Z", "2024-01-15T08:00:00Z", "cron 0 9 * * * (Europe/Berlin)", 25 * time.Hour},
		{"CRON_TZ=America/New_York 30 6 * * 1-5", "", "2024-03-08T12:00:00Z", "2024-03-11T10:30:00Z", "cron 30 6 * * 1-5 (America/New_York)", 73 * time.Hour},
		{"TZ=Asia/Tokyo @hourly", "", "2024-03-05T10:00:00Z", "2024-03-05T11:00:00Z", "cron @hourly (Asia/Tokyo)", time.Hour},
		{"  15 0 1 * *  ", "UTC", "2024-02-01T00:15:00Z", "2024-03-01T00:15:00Z", "cron 15 0 1 * * (UTC)", 31 * 24 * time.Hour},
		{"0 0 29 2 *", "", "2024-03-01T00:00:00Z", "2028-02-29T00:00:00Z", "cron 0 0 29 2 * (UTC)", (4*365 + 1) * 24 * time.Hour},
	}
	for _, tc := range tests {
		s, err := Cron(tc.expr, tc.tz)
		if err != nil {
			t.Errorf("Cron(%q, %q): %v", tc.expr, tc.tz, err)
			continue
		}
		got := s.Next(utc(tc.after))
		if !got.Equal(utc(tc.want)) || got.Location() != time.UTC {
			t.Errorf("%s Next(%s): got %s, want %s", s, tc.after, got, tc.want)
		}
		if s.String() != tc.text || s.Interval() != tc.interval {
			t.Errorf("got %q %s, want %q %s", s, s.Interval(), tc.text, tc.interval)
		}
	}
}

func TestCronInvalid(t *testing.T) {
	tests := []struct{ expr, tz, want string }{
		{"0 */2 * *", "", `invalid cron expression "0 */2 * *": expected exactly 5 fields, found 4: [0 */2 * *]`},
		{"0 0 0 * * *", "", `invalid cron expression "0 0 0 * * *": expected exactly 5 fields, found 6: [0 0 0 * * *]`},
		{"*/0 * * * *", "", `invalid cron expression "*/0 * * * *": step of range should be a positive number: */0`},
		{"0 9 * * *", "Local", `unknown time zone "Local"`},
		{"0 9 * * *", "Nowhere/Land", `unknown time zone "Nowhere/Land"`},
		{"CRON_TZ=UTC", "", `invalid cron expression "CRON_TZ=UTC": empty spec string`},
		{"TZ=UTC 0 9 * * *", "UTC", "time zone given twice, by CRON_TZ= and by tz:"},
		{"@every 5m", "", `invalid cron expression "@every 5m"`},
		{"@fortnightly", "", `invalid cron expression "@fortnightly": unrecognized descriptor: @fortnightly`},
		{"0 0 31 4 *", "", `cron expression "0 0 31 4 *" never fires`},
		{"", "", `invalid cron expression "": empty spec string`},
		{strings.Repeat("1,", 150) + "1 * * * *", "", "invalid cron expression: longer than 200 characters"},
	}
	for _, tc := range tests {
		s, err := Cron(tc.expr, tc.tz)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Cron(%q, %q): got %v %v, want error %q", tc.expr, tc.tz, s, err, tc.want)
		}
		if h, ok := err.(interface{ Hints() []string }); !ok || len(h.Hints()) != 1 || h.Hints()[0] == "" {
			t.Errorf("Cron(%q, %q): got no hint", tc.expr, tc.tz)
		}
	}
}

// TestNextProperties checks, at random instants, that Next is strictly
// after its argument, is a slot (Next of the instant before it is itself)
// and, for every:, at most one interval away.
func TestNextProperties(t *testing.T) {
	var scheds []Schedule
	for _, d := range []time.Duration{time.Second, 7 * time.Minute, time.Hour, 36 * time.Hour} {
		scheds = append(scheds, Every(d))
	}
	for _, e := range []string{"*/5 * * * *", "30 9 * * 1-5", "0 0 1 */3 *", "@weekly"} {
		s, err := Cron(e, "Europe/Berlin")
		if err != nil {
			t.Fatal(err)
		}
		scheds = append(scheds, s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	base := utc("2020-01-01T00:00:00Z")
	for _, s := range scheds {
		for range 300 {
			at := base.Add(time.Duration(r.Int64N(int64(8 * 365 * 24 * time.Hour))))
			next := s.Next(at)
			if !next.After(at) {
				t.Fatalf("%s: Next(%s) = %s, not after", s, at, next)
			}
			if again := s.Next(next.Add(-time.Nanosecond)); !again.Equal(next) {
				t.Fatalf("%s: Next(%s - 1ns) = %s, want the slot itself", s, next, again)
			}
			if strings.HasPrefix(s.String(), "every") && next.Sub(at) > s.Interval() {
				t.Fatalf("%s: Next(%s) = %s, more than an interval away", s, at, next)
			}
		}
	}
}
