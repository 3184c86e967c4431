package check_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/check"
	_ "github.com/promptcanary/promptcanary/probe/builtin"
	_ "github.com/promptcanary/promptcanary/provider/builtin"
	"github.com/promptcanary/promptcanary/store/sqlite"
	"github.com/promptcanary/promptcanary/suite"
)

// Example runs a suite on the simulated model, saves a baseline, then
// compares the drifted simulated model against it and decides the gate,
// as 'promptcanary run --save-baseline' and 'compare --fail-on-drift=high'
// do.
func Example() {
	dir, err := os.MkdirTemp("", "check-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	yaml := "name: example\nprovider: sim/stable\nprobes: [direct_answer]\nprompts:\n" +
		"  - {id: capital, text: \"What is the capital of France? Answer in one word.\"}\n"
	if err := os.WriteFile(filepath.Join(dir, "canary.yaml"), []byte(yaml), 0o644); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	st, err := suite.Load(filepath.Join(dir, "canary.yaml"))
	if err != nil {
		log.Fatal(err)
	}
	hist, err := sqlite.Open(st.StorePath())
	if err != nil {
		log.Fatal(err)
	}
	defer hist.Close()

	targets, samples, err := check.Resolve(st, check.Settings{})
	if err != nil {
		log.Fatal(err) // a *check.ConfigError: nothing was called
	}
	run, err := check.Run(ctx, check.RunRequest{Suite: st, Targets: targets, Samples: samples,
		History: hist, SaveBaseline: true, BaselineDir: st.Resolve("baselines")})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("baselines saved:", len(run.Baselines))

	targets, samples, err = check.Resolve(st, check.Settings{Providers: []string{"sim/drifted"}})
	if err != nil {
		log.Fatal(err)
	}
	out, err := check.Compare(ctx, check.CompareRequest{
		Suite: st, Targets: targets, Samples: samples,
		Baselines:     check.Baselines{History: hist, Dir: st.Resolve("baselines")},
		BaselineModel: "sim/stable",
	})
	if err != nil {
		log.Fatal(err)
	}
	high := promptcanary.SeverityHigh
	fmt.Println("gate tripped:", out.Verdict(&high) == check.Tripped)
	// Output:
	// baselines saved: 1
	// gate tripped: true
}
