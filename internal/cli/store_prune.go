package cli

import (
	"context"
	"errors"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/store"
)

// storePruneOptions are the flags of store prune.
type storePruneOptions struct {
	config                string
	olderThan             time.Duration
	dryRun, vacuum, force bool
}

// minPruneAge is the youngest age store prune deletes without --force:
// anything younger is nearly the whole history, and is more often a unit
// mistaken than meant.
const minPruneAge = time.Hour

// vacuumer is a store that can give the space of deleted records back to
// the file system (store/sqlite).
type vacuumer interface {
	Vacuum(ctx context.Context) (before, after int64, err error)
}

func (a *app) storePruneCmd() *cobra.Command {
	o := &storePruneOptions{}
	c := &cobra.Command{
		Use:   "prune --older-than AGE",
		Short: "Delete the history older than an age, keeping what is in use",
		Long: `Delete the runs, drift reports and check runs older than AGE, and the
incidents resolved before then with their events and notifications, in one
transaction. Kept whatever their age: every baseline and the run it was
taken from, pending baselines, open incidents, and whatever a record that
stays refers to (the runs and reports of incidents and check runs, the
runs that kept reports compared). Records newer than the cutoff are never
touched, so a monitor can keep writing meanwhile.

--dry-run prints what would be deleted. In SQLite the space freed is
reused by new runs but the file keeps its size; --vacuum rewrites the file
to give the space back (it needs as much free disk as the file and holds
the database's write lock meanwhile). PostgreSQL's autovacuum reclaims the
space by itself.

AGE is a number and a unit: h (hours), d (days), w (weeks), mo (months of
30 days), y (years of 365 days), or min (minutes); a bare "m" is refused
here, since it reads as minutes to Go and as months to many. Ages under
one hour delete nearly everything and need --force. The cutoff date is
printed before anything is deleted.`,
		Example: `  promptcanary store prune --older-than 90d --dry-run
  promptcanary store prune --older-than 6mo --vacuum
  promptcanary --store postgres://canary@db.internal/canary store prune --older-than 52w`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(c *cobra.Command, _ []string) error { return a.storePrune(c, o) },
	}
	fl := c.Flags()
	fl.StringVarP(&o.config, "config", "c", "canary.yaml", "suite file, which locates the history (default: canary.yaml here or in a parent directory)")
	fl.Var(ageValue{d: &o.olderThan, destructive: true}, "older-than", "delete what is older than this age: h, d, w, mo or y, e.g. 36h, 90d, 26w, 6mo, 1y")
	fl.BoolVar(&o.dryRun, "dry-run", false, "print what would be deleted, delete nothing")
	fl.BoolVar(&o.vacuum, "vacuum", false, "SQLite: shrink the database file afterwards")
	fl.BoolVar(&o.force, "force", false, "allow an age under one hour")
	return c
}

// storePrune runs store prune.
func (a *app) storePrune(c *cobra.Command, o *storePruneOptions) error {
	help := "run '" + c.CommandPath() + " --help' for usage"
	if o.olderThan <= 0 {
		return usageErr(errors.New("store prune needs --older-than AGE, e.g. --older-than 90d"), help)
	}
	if o.olderThan < minPruneAge && !o.force {
		return usageErr(fmt.Errorf("--older-than %s would delete nearly the whole history (everything before %s)", formatAge(o.olderThan), time.Now().Add(-o.olderThan).UTC().Format("2006-01-02 15:04 UTC")),
			"pass --force to prune records that young; for days, weeks, months or years write 90d, 26w, 6mo or 1y")
	}
	if o.vacuum && o.dryRun {
		return usageErr(errors.New("--vacuum and --dry-run do not go together: a dry run frees nothing"), help)
	}
	config, st, err := a.optionalSuite(c, o.config)
	if err != nil {
		return err
	}
	target := a.storePath(config, st)
	hist, err := a.openHistory(c, o.config)
	if err != nil {
		return err
	}
	defer hist.Close()
	pruner, ok := hist.(store.Pruner)
	if !ok {
		return usageErr(fmt.Errorf("store prune: the %T store cannot prune", hist))
	}
	vac, canVacuum := hist.(vacuumer)
	if o.vacuum && !canVacuum {
		return usageErr(errors.New("--vacuum works on SQLite stores only"), "PostgreSQL's autovacuum reclaims the space of deleted rows by itself")
	}
	ctx := c.Context()
	cutoff := time.Now().Add(-o.olderThan)
	// The cutoff is printed before anything is deleted.
	fmt.Fprintf(a.stdio.Out, "%s: records older than %s (before %s)\n", displayStore(target), formatAge(o.olderThan),
		cutoff.UTC().Format("2006-01-02 15:04 UTC"))
	stats, err := pruner.Prune(ctx, cutoff, o.dryRun)
	if err != nil {
		if ctx.Err() != nil {
			return &exitError{code: ExitInterrupted, err: fmt.Errorf("store prune interrupted, nothing deleted: %w", err)}
		}
		return err
	}
	verb := "DELETED"
	if o.dryRun {
		verb = "WOULD DELETE"
	}
	tw := tabwriter.NewWriter(a.stdio.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "KIND\t%s\tKEPT\n", verb)
	for _, k := range stats.Kinds() {
		kept := "-"
		if k.Kept >= 0 {
			kept = fmt.Sprint(k.Kept)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", k.Kind, k.Deleted, kept)
	}
	tw.Flush()
	if stats.KeptRuns+stats.KeptDrifts+stats.KeptCheckRuns+stats.KeptIncidents > 0 {
		fmt.Fprintln(a.stdio.Out, "KEPT: older, but in use: by a baseline, a pending baseline, an open incident or a record that stays")
	}
	switch {
	case o.dryRun && stats.Deleted() == 0:
		fmt.Fprintln(a.stdio.Out, "dry run: nothing to delete")
		return nil
	case o.dryRun:
		fmt.Fprintf(a.stdio.Out, "dry run: nothing deleted; run again without --dry-run to delete %d records\n", stats.Deleted())
		return nil
	}
	if o.vacuum {
		before, after, err := vac.Vacuum(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdio.Out, "vacuumed: the database file went from %s to %s\n", formatBytes(before), formatBytes(after))
	} else if stats.FreeBytes > 0 {
		fmt.Fprintf(a.stdio.Out, "%s inside the database file is free for new runs; --vacuum gives it back to the disk\n", formatBytes(stats.FreeBytes))
	}
	return nil
}

// formatBytes prints a size in B, kB or MB (powers of 1000).
func formatBytes(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}
