package release

import (
	"strings"
	"testing"
	"time"
)

func TestMetaCheck(t *testing.T) {
	for _, tc := range []struct {
		m    Meta
		want string
	}{
		{Meta{Version: "v1.2.3", Commit: "abc", Time: time.Unix(1, 0)}, "without a leading v"},
		{Meta{Version: "1.2.3/x", Commit: "abc", Time: time.Unix(1, 0)}, `version "1.2.3/x"`},
		{Meta{Version: "1.2.3", Time: time.Unix(1, 0)}, "commit: empty"},
		{Meta{Version: "1.2.3", Commit: "abc"}, "SOURCE_DATE_EPOCH"},
	} {
		err := tc.m.check()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error saying %q", tc.m, err, tc.want)
		}
	}
	if err := testMeta.check(); err != nil {
		t.Error(err)
	}
}

func TestParseTarget(t *testing.T) {
	if got, err := ParseTarget("darwin/arm64"); err != nil || got != (Target{"darwin", "arm64"}) {
		t.Errorf("darwin/arm64: %v, %v", got, err)
	}
	for _, bad := range []string{"linux", "linux/", "/amd64", "linux/arm/v7"} {
		if _, err := ParseTarget(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestArchiveName(t *testing.T) {
	for tg, want := range map[Target]string{
		{"linux", "amd64"}:   "promptcanary_1.2.3_linux_amd64.tar.gz",
		{"windows", "arm64"}: "promptcanary_1.2.3_windows_arm64.zip",
	} {
		if got := ArchiveName("1.2.3", tg); got != want {
			t.Errorf("%s: %s, want %s", tg, got, want)
		}
	}
}
