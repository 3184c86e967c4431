package cli

import (
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	for _, tc := range []struct {
		in          string
		destructive bool
		want        time.Duration
		wantErr     bool
	}{
		{in: "36h", want: 36 * time.Hour},
		{in: "7d", want: 7 * day},
		{in: "2w", want: 2 * week},
		{in: "6mo", want: 6 * month},
		{in: "2month", want: 2 * month},
		{in: "3 months", want: 3 * month},
		{in: "1y", want: year},
		{in: "2years", want: 2 * year},
		{in: "90min", want: 90 * time.Minute},
		{in: "90m", want: 90 * time.Minute},
		{in: "1h30m", destructive: true, want: 90 * time.Minute},
		{in: "90MIN", destructive: true, want: 90 * time.Minute},
		{in: "1m", destructive: true, wantErr: true},
		{in: "90m", destructive: true, wantErr: true},
		{in: "5", wantErr: true},
		{in: "0d", wantErr: true},
		{in: "-1d", wantErr: true},
		{in: "101y", wantErr: true},
		{in: "mo", wantErr: true},
	} {
		got, err := parseAge(tc.in, tc.destructive)
		if (err != nil) != tc.wantErr || (!tc.wantErr && got != tc.want) {
			t.Errorf("parseAge(%q, %v): got %v, %v; want %v, error %v", tc.in, tc.destructive, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestFormatAge(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want string
	}{
		{year, "1y"}, {2 * week, "2w"}, {90 * day, "90d"}, {6 * month, "180d"}, {36 * time.Hour, "36h"}, {90 * time.Minute, "90min"}, {1500 * time.Millisecond, "1.5s"},
	} {
		if got := formatAge(tc.in); got != tc.want {
			t.Errorf("formatAge(%v): got %q, want %q", tc.in, got, tc.want)
		}
	}
}
