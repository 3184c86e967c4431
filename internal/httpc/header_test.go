package httpc

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIsToken(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"X-Api-Key", true}, {"POST", true}, {"a!#$%&'*+-.^_`|~9", true},
		{"", false}, {"bad name", false}, {"x:y", false}, {"x\r\n", false}, {"é", false}, {"(x)", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := IsToken(tc.in); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestValidHeaderValue(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"2023-06-01", true}, {"a\tb", true}, {"", true}, {"héllo", true},
		{"a\r\nb", false}, {"a\x00", false}, {"a\x7f", false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			if got := ValidHeaderValue(tc.in); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestExtraHeader(t *testing.T) {
	extra := http.Header{
		"x-team":        {"canary"},
		"X-Custom-Auth": {"auth-secret-1"},
		"Cookie":        {"sid=cookie-secret-2"},
	}
	base, err := url.Parse("https://user:url-password-3@proxy.example/v1")
	if err != nil {
		t.Fatal(err)
	}
	h, secrets := ExtraHeader(extra, base)
	want := http.Header{"X-Team": {"canary"}, "X-Custom-Auth": {"auth-secret-1"}, "Cookie": {"sid=cookie-secret-2"}}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	// Header values come in map order; the URL password comes last.
	got := slices.Clone(secrets)
	if len(got) > 0 {
		slices.Sort(got[:len(got)-1])
	}
	if diff := cmp.Diff([]string{"auth-secret-1", "sid=cookie-secret-2", "url-password-3"}, got); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}

	plain, _ := url.Parse("https://proxy.example")
	if _, secrets := ExtraHeader(http.Header{"X-Team": {"canary"}}, plain); secrets != nil {
		t.Errorf("got secrets %q, want none", secrets)
	}
}
