package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func stdio() Stdio { return Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr} }

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		// promptcanary runs the command line as the binary would.
		"promptcanary": func() { os.Exit(Main(context.Background(), os.Args[1:], stdio())) },
		// exits CODE ARGS... runs the command line and succeeds only when it
		// exits with CODE, so scripts can pin exit codes.
		"exits": func() {
			want, err := strconv.Atoi(os.Args[1])
			if err != nil {
				fmt.Fprintln(os.Stderr, "exits: first argument must be the expected exit code")
				os.Exit(100)
			}
			if got := Main(context.Background(), os.Args[2:], stdio()); got != want {
				fmt.Fprintf(os.Stderr, "exits: got exit code %d, want %d\n", got, want)
				os.Exit(101)
			}
			os.Exit(0)
		},
	})
}

// TestScripts runs the CLI transcripts in testdata/script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// jsonenv VAR FILE FIELD sets VAR to the top-level string FIELD
			// of the JSON object in FILE, e.g. a run id for a later command.
			"jsonenv": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 3 {
					ts.Fatalf("usage: jsonenv VAR FILE FIELD")
				}
				var obj map[string]any
				ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[1])), &obj))
				v, ok := obj[args[2]].(string)
				if !ok {
					ts.Fatalf("%s has no string field %q", args[1], args[2])
				}
				ts.Setenv(args[0], v)
			},
		},
	})
}
