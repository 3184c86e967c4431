// Package buildinfo says which version of promptcanary is running.
//
// A release build (scripts/release.sh) stamps Version, Commit and Date with
// -ldflags -X; a binary built by `go install …@vX.Y.Z` has no stamp and
// takes its version from the module's build information instead, so both
// print the same version.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Set by scripts/release.sh with -ldflags "-X
// github.com/promptcanary/promptcanary/internal/buildinfo.Version=v1.2.3"
// (and likewise Commit and Date); empty in any other build.
var (
	// Version is the release's version with a leading v, e.g. v1.2.3.
	Version string
	// Commit is the full git commit hash the release was built from.
	Commit string
	// Date is when that commit was made (RFC 3339, UTC): a release's
	// build date is its commit's, so that rebuilding it gives the same bytes.
	Date string
)

// Info is what a binary knows about its own build.
type Info struct {
	Version   string // v1.2.3, or (devel) when neither stamped nor installed at a version
	Commit    string // full hash, or "" when unknown
	Date      string // RFC 3339, or "" when unknown
	GoVersion string // the toolchain, e.g. go1.26.8, or "" when unknown
}

// Read returns this binary's build information: the -X stamp where set,
// else the module's build information.
func Read() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(Version, Commit, Date, bi)
}

// resolve merges a -X stamp with the module's build information; a
// stamped field wins over the build information's.
func resolve(version, commit, date string, bi *debug.BuildInfo) Info {
	in := Info{Version: "(devel)"}
	if bi != nil {
		in.GoVersion = bi.GoVersion
		if bi.Main.Version != "" {
			in.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Commit = s.Value
			case "vcs.time":
				in.Date = s.Value
			}
		}
	}
	if version != "" {
		in.Version = "v" + strings.TrimPrefix(version, "v")
	}
	if commit != "" {
		in.Commit = commit
	}
	if date != "" {
		in.Date = date
	}
	return in
}

// String is the line `promptcanary version` prints, e.g.
// "promptcanary v1.2.3 commit 0123456789ab built 2026-01-02T03:04:05Z go1.26.8".
func (in Info) String() string {
	var b strings.Builder
	b.WriteString("promptcanary " + in.Version)
	if c := in.Commit; c != "" {
		if len(c) > 12 {
			c = c[:12]
		}
		b.WriteString(" commit " + c)
	}
	if in.Date != "" {
		b.WriteString(" built " + in.Date)
	}
	if in.GoVersion != "" {
		b.WriteString(" " + in.GoVersion)
	}
	return b.String()
}
