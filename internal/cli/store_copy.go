package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/backend"
)

// storeCopyOptions are the arguments of store copy.
type storeCopyOptions struct {
	from, to string
}

func (a *app) storeCopyCmd() *cobra.Command {
	o := &storeCopyOptions{}
	c := &cobra.Command{
		Use:   "copy FROM TO",
		Short: "Copy a whole history to another store, and verify the copy",
		Long: `Copy every record of the store FROM into the store TO: runs, baselines
(with their pending state), drift reports and the monitor's state (check
runs, incidents with their events, notification attempts). Each store is
the path of a SQLite database or a postgres:// URL; TO is created if it is
a SQLite file that does not exist.

A record of TO with the id of one of FROM is replaced, so running the copy
again is safe and copies what changed; records only TO has are kept, so
several histories can be merged into one. The copy streams, one record at
a time.

At the end both stores are read again and compared kind by kind: counts,
and a SHA-256 over every record's canonical JSON in id order. The command
exits 5 when TO does not hold every record of FROM unchanged, saying which.
Stop monitors writing to FROM first, or expect the records they write
meanwhile to differ.`,
		Example: `  promptcanary store copy .promptcanary/history.db postgres://canary@db.internal/canary
  promptcanary store copy postgres://canary@db.internal/canary backup.db`,
		Args: argsUsage(cobra.ExactArgs(2)),
		RunE: func(c *cobra.Command, args []string) error {
			o.from, o.to = args[0], args[1]
			return a.storeCopy(c.Context(), o)
		},
	}
	return c
}

// storeCopy runs store copy.
func (a *app) storeCopy(ctx context.Context, o *storeCopyOptions) error {
	if a.store != "" {
		return usageErr(errors.New("store copy takes its stores as arguments, not --store"),
			"run 'promptcanary store copy FROM TO'")
	}
	from, to := displayStore(o.from), displayStore(o.to)
	if sameTarget(o.from, o.to) {
		return usageErr(fmt.Errorf("store copy: %q is both the source and the target", from),
			"name another store as TO: a SQLite file or a postgres:// URL")
	}
	if !backend.IsURL(o.from) {
		if _, err := os.Stat(o.from); errors.Is(err, os.ErrNotExist) {
			return usageErr(fmt.Errorf("store copy: no run history at %q", displayPath(o.from)),
				"FROM must be an existing SQLite database or a postgres:// URL")
		}
	}
	hint := "a store is the path of a SQLite database or a postgres://USER@HOST/DATABASE URL"
	src, err := openTarget(ctx, o.from, hint)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := openTarget(ctx, o.to, hint)
	if err != nil {
		return err
	}
	defer dst.Close()

	fmt.Fprintf(a.stdio.Err, "promptcanary: copying %s to %s\n", from, to)
	copied := map[string]int{}
	rep, err := store.Copy(ctx, src, dst, store.CopyOptions{Progress: func(kind string, n int) {
		copied[kind] = n
		fmt.Fprintf(a.stdio.Err, "promptcanary: copied %d %s\n", n, kind)
	}})
	if err != nil {
		return copyErr(ctx, err, from, to)
	}
	if rep.MonitorSkipped != "" {
		a.warn("the monitor's state was not copied: %s", rep.MonitorSkipped)
	}
	fmt.Fprintf(a.stdio.Err, "promptcanary: verifying\n")
	checks, err := store.Verify(ctx, src, dst)
	if err != nil {
		return copyErr(ctx, err, from, to)
	}
	printChecks(a.stdio.Out, checks, copied)
	if err := verdict(checks, from, to); err != nil {
		return err
	}
	fmt.Fprintf(a.stdio.Out, "verified: %s holds every record of %s (counts and SHA-256 checksums match)\n", to, from)
	return nil
}

// verdict is the error of a verification that found records of from
// missing or different in to (exit 5, naming them), nil when it found
// none.
func verdict(checks []store.KindCheck, from, to string) error {
	var bad []string
	for _, k := range checks {
		if !k.OK() {
			bad = append(bad, describeCheck(k))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &exitError{code: ExitOutput,
		err:   fmt.Errorf("the copy in %s does not match %s:\n%s", to, from, strings.Join(bad, "\n")),
		hints: []string{"a monitor or a run writing to " + from + " meanwhile makes records differ: stop it and copy again (the copy is idempotent)"}}
}

// sameTarget reports whether two store arguments plainly name one store:
// the same text, or the same SQLite file. store.Copy also asks the opened
// stores, which catches other names of one database.
func sameTarget(a, b string) bool {
	if a == b {
		return true
	}
	if backend.IsURL(a) || backend.IsURL(b) {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// copyErr is the error of a copy or a verification that failed: an
// interruption exits 130, anything else 5 (TO may hold part of the copy).
func copyErr(ctx context.Context, err error, from, to string) error {
	switch {
	case errors.Is(err, store.ErrSameStore):
		return usageErr(fmt.Errorf("store copy: %q and %q are the same store", from, to),
			"name another store as TO: a SQLite file or a postgres:// URL")
	case ctx.Err() != nil:
		return &exitError{code: ExitInterrupted, err: fmt.Errorf("store copy interrupted: %w", err),
			hints: []string{"what was copied stays in " + to + "; run the copy again to finish it"}}
	}
	hints := []string{"what was copied stays in " + to + "; the copy is idempotent: fix the cause and run it again"}
	if errors.Is(err, store.ErrConflict) {
		hints = append([]string{to + " has an open incident of its own for the same check, provider and kind; resolve one of them first"}, hints...)
	}
	return &exitError{code: ExitOutput, err: fmt.Errorf("store copy: %w", err), hints: hints}
}

// printChecks prints the verification as a table.
func printChecks(w io.Writer, checks []store.KindCheck, copied map[string]int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tCOPIED\tSOURCE\tTARGET\tEXTRA\tSHA-256 SOURCE\tSHA-256 TARGET\tMATCH")
	for _, k := range checks {
		match := "ok"
		if !k.OK() {
			match = "DIFFERS"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\n", k.Kind, copied[k.Kind], k.Source, k.Target, k.Extra,
			k.SourceSum[:12], k.TargetSum[:12], match)
	}
	tw.Flush()
}

// describeCheck says what differs in one kind of record.
func describeCheck(k store.KindCheck) string {
	var parts []string
	if k.Missing > 0 {
		parts = append(parts, fmt.Sprintf("%d missing", k.Missing))
	}
	if k.Differ > 0 {
		parts = append(parts, fmt.Sprintf("%d different", k.Differ))
	}
	more := ""
	if n := k.Missing + k.Differ; n > len(k.Examples) {
		more = fmt.Sprintf(", and %d more", n-len(k.Examples))
	}
	return fmt.Sprintf("%s: %s (%s%s)", k.Kind, strings.Join(parts, ", "), strings.Join(k.Examples, ", "), more)
}
