package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/cli"
	"github.com/promptcanary/promptcanary/store"
	"github.com/promptcanary/promptcanary/store/sqlite"
)

// provider is the model every check runs: the built-in simulated one, so
// nothing leaves the machine.
const provider = "sim/stable"

// heatRuns is how many stored runs back the heatmap of the check page.
const heatRuns = 50

// setup writes, in dir, a suite (promptcanary init), its baseline
// (promptcanary run --save-baseline), a monitor.yaml with checks checks
// scheduled every 24h (none runs during a measurement of
// minutes), and seeds the store with the history of a monitor that ran
// for a long while: runs check runs of check-0, the check page measured,
// and 48 of every other check (a full sparkline on the overview). It
// returns monitor.yaml's path.
func setup(dir string, checks, runs int) (string, error) {
	ctx := context.Background()
	suiteDir := filepath.Join(dir, "suite")
	quiet := cli.Stdio{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}
	if code := cli.Main(ctx, []string{"init", suiteDir}, quiet); code != 0 {
		return "", fmt.Errorf("promptcanary init: exit %d", code)
	}
	suitePath := filepath.Join(suiteDir, "canary.yaml")
	storePath := filepath.Join(dir, "history.db")
	if code := cli.Main(ctx, []string{"--store", storePath, "run", "-c", suitePath, "-p", provider, "--save-baseline", "--no-progress"}, quiet); code != 0 {
		return "", fmt.Errorf("promptcanary run --save-baseline: exit %d", code)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "listen: 127.0.0.1:0\nstore: %s\ndefaults: {every: 24h, jitter: 0, samples: 1, confirm: false}\nchecks:\n", storePath)
	for i := range checks {
		fmt.Fprintf(&b, "  - {name: check-%d, suite: suite/canary.yaml, provider: %s}\n", i, provider)
	}
	cfgPath := filepath.Join(dir, "monitor.yaml")
	if err := os.WriteFile(cfgPath, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	st, err := sqlite.Open(storePath)
	if err != nil {
		return "", err
	}
	defer st.Close()
	return cfgPath, seed(ctx, st, checks, runs)
}

// seed stores heatRuns copies of the baseline's run and the check runs.
func seed(ctx context.Context, st *sqlite.Store, checks, runs int) error {
	sums, err := st.Runs(ctx, store.RunFilter{Model: provider, Limit: 1})
	if err != nil || len(sums) == 0 {
		return fmt.Errorf("find the baseline's run: %v", err)
	}
	base, err := st.Run(ctx, sums[0].RunID)
	if err != nil {
		return err
	}
	infos, err := st.Baselines(ctx, base.SuiteName)
	if err != nil || len(infos) == 0 {
		return fmt.Errorf("find the baseline: %v", err)
	}
	now := time.Now().UTC().Truncate(time.Hour)
	runIDs := make([]string, heatRuns)
	for i := range runIDs {
		r := *base
		r.RunID = promptcanary.NewID()
		r.StartedAt = now.Add(-time.Duration(i) * time.Hour)
		r.FinishedAt = r.StartedAt.Add(time.Minute)
		if err := st.SaveRun(ctx, &r); err != nil {
			return err
		}
		runIDs[i] = r.RunID
	}
	for c := range checks {
		n := 48
		if c == 0 {
			n = runs
		}
		for i := range n {
			slot := now.Add(-time.Duration(i) * time.Hour)
			cr := promptcanary.CheckRun{
				ID: promptcanary.NewID(), Check: fmt.Sprintf("check-%d", c), Provider: provider, Suite: base.SuiteName,
				Slot: slot, StartedAt: slot, FinishedAt: slot.Add(time.Minute), Outcome: promptcanary.CheckClean,
				BaselineID: infos[0].SnapshotID, PassRate: 0.9 + 0.1*float64(i%3)/3, BaselinePassRate: 0.95, Score: 0.9,
			}
			if i < heatRuns {
				cr.RunID = runIDs[i]
			}
			if err := st.SaveCheckRun(ctx, &cr); err != nil {
				return err
			}
		}
	}
	return nil
}
