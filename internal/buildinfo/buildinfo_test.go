package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	installed := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}}
	local := &debug.BuildInfo{GoVersion: "go1.26.8", Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-01-02T03:04:05Z"},
	}}
	for _, tc := range []struct {
		name, version, commit, date string
		bi                          *debug.BuildInfo
		want                        string
	}{
		{"go install at a version", "", "", "", installed, "promptcanary v1.2.3 go1.26.8"},
		{"release stamp wins", "1.2.3", "fedcba9876543210", "2026-02-03T04:05:06Z", installed,
			"promptcanary v1.2.3 commit fedcba987654 built 2026-02-03T04:05:06Z go1.26.8"},
		{"stamp with v", "v0.0.0-test", "", "", nil, "promptcanary v0.0.0-test"},
		{"local build from a clone", "", "", "", local,
			"promptcanary (devel) commit 0123456789ab built 2026-01-02T03:04:05Z go1.26.8"},
		{"nothing known", "", "", "", nil, "promptcanary (devel)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := resolve(tc.version, tc.commit, tc.date, tc.bi).String()
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The go install case and a release of the same version print the same
// version field, which is what `promptcanary version | cut -d' ' -f2` reads.
func TestSameVersionInstalledAndReleased(t *testing.T) {
	installed := resolve("", "", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}})
	released := resolve("1.2.3", "abc", "2026-01-01T00:00:00Z", nil)
	if installed.Version != released.Version {
		t.Errorf("go install prints %q, the release %q", installed.Version, released.Version)
	}
}
