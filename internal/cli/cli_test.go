package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
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

// standins start strict local stand-ins for provider APIs in transcripts,
// by name: each provider's test file registers its own from init. A
// stand-in must be as strict as the real API (it rejects what the API
// rejects), serve until ts ends (ts.Defer) and export the variables that
// point the provider at it (ts.Setenv).
var standins = map[string]func(ts *testscript.TestScript, args []string){}

// TestScripts runs the CLI transcripts in testdata/script.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		// [unwritable] holds when the test can make a file unwritable:
		// chmod for a user, chattr +i for root (which needs
		// CAP_LINUX_IMMUTABLE and a file system that has the flag).
		Condition: func(cond string) (bool, error) {
			if cond != "unwritable" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			return canMakeUnwritable(), nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// standin NAME [ARGS...] starts the local stand-in for a
			// provider's API (see standins) until the script ends, and
			// points the provider at it through the environment.
			"standin": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 1 {
					ts.Fatalf("usage: standin NAME [ARGS...]")
				}
				start, ok := standins[args[0]]
				if !ok {
					ts.Fatalf("no stand-in named %q", args[0])
				}
				start(ts, args[1:])
			},
			// unwritable FILE makes FILE unwritable, even for root, until
			// the script ends or 'writable FILE'.
			"unwritable": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: unwritable FILE")
				}
				path := ts.MkAbs(args[0])
				ts.Check(setWritable(path, false))
				ts.Defer(func() { _ = setWritable(path, true) })
			},
			"writable": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 1 {
					ts.Fatalf("usage: writable FILE")
				}
				ts.Check(setWritable(ts.MkAbs(args[0]), true))
			},
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

// setWritable makes path writable or not: by its mode for a user, by the
// immutable flag for root, whom modes do not stop.
func setWritable(path string, w bool) error {
	if os.Geteuid() != 0 {
		mode := os.FileMode(0o444)
		if w {
			mode = 0o644
		}
		return os.Chmod(path, mode)
	}
	flag := "+i"
	if w {
		flag = "-i"
	}
	if out, err := exec.Command("chattr", flag, path).CombinedOutput(); err != nil {
		return fmt.Errorf("chattr %s %s: %v: %s", flag, path, err, out)
	}
	return nil
}

// canMakeUnwritable reports whether setWritable works here.
func canMakeUnwritable() bool {
	f, err := os.CreateTemp("", "unwritable-*")
	if err != nil {
		return false
	}
	f.Close()
	defer os.Remove(f.Name())
	if setWritable(f.Name(), false) != nil {
		return false
	}
	defer setWritable(f.Name(), true)
	_, err = os.OpenFile(f.Name(), os.O_WRONLY, 0)
	return err != nil
}
