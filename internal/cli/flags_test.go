package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestShortFlagsMeanOneThing walks every command and checks that each
// short flag means one thing everywhere (issue 19 item 8): -c the suite
// (serve's monitor configuration), -f the format, -o an output file, -v
// verbose; the version is --version only. Hidden flags are old spellings
// kept for compatibility.
func TestShortFlagsMeanOneThing(t *testing.T) {
	want := map[string]func(name string) bool{
		"c": func(n string) bool { return n == "config" },
		"f": func(n string) bool { return n == "format" },
		"o": func(n string) bool { return n == "output" || strings.HasPrefix(n, "output-") },
		"v": func(n string) bool { return n == "verbose" },
		"p": func(n string) bool { return n == "provider" },
		"n": func(n string) bool { return n == "limit" },
		"t": func(n string) bool { return n == "temperature" },
		"s": func(n string) bool { return n == "save-baseline" },
		"h": func(n string) bool { return n == "help" },
	}
	a := &app{getenv: func(string) string { return "" }}
	root := a.rootCmd()
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.InitDefaultHelpFlag()
		check := func(f *pflag.Flag) {
			if f.Shorthand == "" || f.Hidden {
				return
			}
			ok, known := want[f.Shorthand]
			switch {
			case !known:
				t.Errorf("%s: -%s is --%s, a short flag no other command shares; add it to this table if it is meant", c.CommandPath(), f.Shorthand, f.Name)
			case !ok(f.Name):
				t.Errorf("%s: -%s is --%s", c.CommandPath(), f.Shorthand, f.Name)
			}
		}
		c.LocalFlags().VisitAll(check)
		c.InheritedFlags().VisitAll(check)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if f := root.Flags().Lookup("version"); f == nil || f.Shorthand != "" {
		t.Errorf("--version: got %+v, want a flag without a short form", f)
	}
}
