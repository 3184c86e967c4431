package store

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/promptcanary/promptcanary"
)

func TestCheckID(t *testing.T) {
	tests := []struct {
		id      string
		wantErr string
	}{
		{id: "3f2b9c1e-7d4a-4e8b-9f10-2a3b4c5d6e7f"},
		{id: "run_1.v2"},
		{id: "a"},
		{id: strings.Repeat("x", MaxIDLen)},
		{id: "", wantErr: "empty run id"},
		{id: ".hidden", wantErr: `invalid run id ".hidden"`},
		{id: "../up", wantErr: `invalid run id "../up"`},
		{id: "a/b", wantErr: `invalid run id "a/b"`},
		{id: `a\b`, wantErr: `invalid run id "a\\b"`},
		{id: "a b", wantErr: `invalid run id "a b"`},
		{id: "a:b", wantErr: `invalid run id "a:b"`},
		{id: "nul\x00", wantErr: `invalid run id "nul\x00"`},
		{id: "é", wantErr: `invalid run id "é"`},
		{id: strings.Repeat("x", MaxIDLen+1), wantErr: "invalid run id"},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			err := CheckID("run", tc.id)
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("got %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("got %v, want an error starting %q", err, tc.wantErr)
			}
		})
	}
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestNewID(t *testing.T) {
	seen := make(map[string]bool)
	for range 1000 {
		id := promptcanary.NewID()
		if !uuidV4.MatchString(id) {
			t.Fatalf("got %q, want a version 4 UUID", id)
		}
		if err := CheckID("snapshot", id); err != nil {
			t.Fatalf("got %v, want a valid id", err)
		}
		if seen[id] {
			t.Fatalf("got %q twice", id)
		}
		seen[id] = true
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name, id string
		matches  []string
		want     string
		wantErr  error
		wantMsg  string
	}{
		{"exact among prefixes", "abcd", []string{"abcd", "abcdef"}, "abcd", nil, ""},
		{"short exact", "ab", []string{"ab"}, "ab", nil, ""},
		{"unique prefix", "abcd", []string{"abcdef"}, "abcdef", nil, ""},
		{"short prefix", "abc", []string{"abcdef"}, "", ErrNotFound, `run "abc": not found`},
		{"none", "zzzz", nil, "", ErrNotFound, `run "zzzz": not found`},
		{"ambiguous", "abcd", []string{"abcd-2", "abcd-1"}, "", ErrAmbiguous, `run "abcd": ambiguous id: matches abcd-1, abcd-2`},
		{"many", "abcd", []string{"abcd1", "abcd2", "abcd3", "abcd4", "abcd5", "abcd6"}, "", ErrAmbiguous,
			`run "abcd": ambiguous id: matches abcd1, abcd2, abcd3, abcd4, abcd5, …`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve("run", tc.id, tc.matches)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || err.Error() != tc.wantMsg {
					t.Errorf("got %v, want %q", err, tc.wantMsg)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %q, %v, want %q", got, err, tc.want)
			}
		})
	}
}
