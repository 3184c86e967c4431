package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/suite"
)

func (a *app) probesCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "probes",
		Short: "List the available probe types",
		Args:  argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			return a.listProbes()
		},
	}
	// "probes list" is what kubectl and gh users type first.
	c.AddCommand(&cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the available probe types (the same as 'promptcanary probes')",
		Args:    argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			return a.listProbes()
		},
	})
	var exampleOnly bool
	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show a probe type's parameters, types and defaults, and an example",
		Long: `Show a probe type's parameters, types and defaults, and a complete
canary.yaml that uses it (it passes 'promptcanary validate'). --example
prints only that file.`,
		Example: "  promptcanary probes show json_schema\n  promptcanary probes show refusal --example > canary.yaml",
		Args:    argsUsage(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			t, err := probe.Lookup(args[0])
			if err != nil {
				return usageErr(err, "run 'promptcanary probes' to list them")
			}
			w := a.stdio.Out
			if exampleOnly {
				_, err := io.WriteString(w, suite.ExampleFile(t))
				return err
			}
			fmt.Fprintf(w, "%s — %s\n", t.ID, t.Name)
			fmt.Fprintf(w, "category: %s\n%s\n\n", t.Category, t.Description)
			if len(t.Params) == 0 {
				fmt.Fprintln(w, "No parameters.")
			} else {
				tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "PARAMETER\tTYPE\tREQUIRED\tDEFAULT\tDESCRIPTION")
				for _, p := range t.Params {
					req := "no"
					if p.Required {
						req = "yes"
					}
					typ := p.Kind.String()
					if len(p.Enum) > 0 {
						typ = strings.Join(p.Enum, "|")
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, typ, req, formatDefault(p), p.Doc)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			// The example is complete canary.yaml that passes validate.
			fmt.Fprintln(w, "\nExample (canary.yaml):")
			for _, line := range strings.Split(strings.TrimRight(suite.ExampleFile(t), "\n"), "\n") {
				fmt.Fprintln(w, "  "+line)
			}
			return nil
		},
	}
	show.Flags().BoolVar(&exampleOnly, "example", false, "print only the example canary.yaml")
	c.AddCommand(show)
	return c
}

func formatDefault(p probe.Param) string {
	switch d := p.Default.(type) {
	case nil:
		return "-"
	case string:
		return fmt.Sprintf("%q", d)
	case []string:
		return "[" + strings.Join(d, ", ") + "]"
	default:
		return fmt.Sprint(d)
	}
}

// listProbes prints every registered probe type, one line each.
func (a *app) listProbes() error {
	tw := tabwriter.NewWriter(a.stdio.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCATEGORY\tDESCRIPTION")
	for _, t := range probe.Types() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.ID, t.Category, t.Description)
	}
	return tw.Flush()
}
