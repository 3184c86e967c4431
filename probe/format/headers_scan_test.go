package format

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// headerRE is the regexp markdown_headers was written with; headers must
// find exactly its matches.
var headerRE = regexp.MustCompile(`(?m)^#{1,6}\s+(.+)$`)

func headersRE(s string) []string {
	found := []string{}
	for _, sm := range headerRE.FindAllStringSubmatch(s, -1) {
		found = append(found, strings.TrimSpace(sm[1]))
	}
	return found
}

var headerSeeds = []string{"", "#", "# A", "#\n## B", "# \n\n", "# \r\n", "#  \n \n", "####### x\n###### y", "##x\n# y\r\n",
	"text\n# A\n  # B\n#\t\fC", "# \n\t\n", "#\v x", "# é\xff\n#\u00a0x", "a\n#\n\n#  ", "# A\n\n\n"}

func FuzzHeaders(f *testing.F) {
	for _, s := range headerSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := headers(s), headersRE(s); !slices.Equal(got, want) {
			t.Errorf("headers(%q): got %q, want %q", s, got, want)
		}
	})
}
