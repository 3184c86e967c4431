package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/probe"
)

func (a *app) probesCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "probes",
		Short: "List the available probe types",
		Args:  argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(a.stdio.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tCATEGORY\tDESCRIPTION")
			for _, t := range probe.Types() {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", t.ID, t.Category, t.Description)
			}
			return tw.Flush()
		},
	}
	c.AddCommand(&cobra.Command{
		Use:   "show ID",
		Short: "Show a probe type's parameters, types and defaults",
		Args:  argsUsage(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			t, err := probe.Lookup(args[0])
			if err != nil {
				return usageErr(err, "run 'promptcanary probes' to list them")
			}
			w := a.stdio.Out
			fmt.Fprintf(w, "%s — %s\n", t.ID, t.Name)
			fmt.Fprintf(w, "category: %s\n%s\n\n", t.Category, t.Description)
			if len(t.Params) == 0 {
				fmt.Fprintln(w, "No parameters.")
				return nil
			}
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
			fmt.Fprintf(w, "\nExample:\n  probes:\n    - type: %s\n", t.ID)
			for _, p := range t.Params {
				if p.Required {
					fmt.Fprintf(w, "      %s: %s\n", p.Name, exampleValue(p))
				}
			}
			return nil
		},
	})
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

func exampleValue(p probe.Param) string {
	switch p.Kind {
	case probe.StringList:
		return "[a, b]"
	case probe.Int:
		return "1"
	case probe.Float:
		return "0.5"
	case probe.Bool:
		return "true"
	case probe.Map:
		return "{}"
	}
	if len(p.Enum) > 0 {
		return p.Enum[0]
	}
	return "..."
}
