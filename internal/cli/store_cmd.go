package cli

import (
	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/internal/termtext"
	"github.com/promptcanary/promptcanary/store/backend"
)

func (a *app) storeCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "store",
		Short: "Copy or prune the run history",
		Long: `Operate on a whole run history: copy it to another store (SQLite to
PostgreSQL and back), or delete what is older than an age while keeping
baselines and what open incidents need.`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.AddCommand(a.storeCopyCmd(), a.storePruneCmd())
	return c
}

// displayStore shows a store argument: a path as displayPath shows it, a
// URL without its password.
func displayStore(target string) string {
	if backend.IsURL(target) {
		return termtext.Safe(backend.Display(target))
	}
	return displayPath(target)
}
