// Command serveload measures the monitor's HTTP server under load: the
// dashboard's overview and a check's page with concurrent clients, and
// floods of huge headers and bodies. It seeds a store in a temporary
// directory (a suite, its baseline, N checks, the long history of one),
// starts `promptcanary serve` on it in a child process (this executable,
// running the real command in-process), drives it from this process over
// loopback, and prints one Markdown row per scenario: requests per
// second, latency percentiles, and the child's resident memory and open
// descriptors before, at the peak and after the load.
//
//	go run ./bench/serveload                        # every scenario
//	go run ./bench/serveload -scenarios overview -clients 100 -duration 10s
//
// Each scenario gets a fresh child, so its peak memory is its own. The
// figures depend on the machine and on what else runs on it.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/promptcanary/promptcanary/internal/cli"
)

// options are the flags.
type options struct {
	checks, runs, clients, floodConns, floodKB int
	duration, settle                           time.Duration
	scenarios                                  string
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "-child-serve" {
		os.Exit(childServe(os.Args[2]))
	}
	var o options
	flag.IntVar(&o.checks, "checks", 50, "checks in monitor.yaml (the overview's rows)")
	flag.IntVar(&o.runs, "runs", 10000, "stored check runs of check-0, the check page measured")
	flag.IntVar(&o.clients, "clients", 100, "concurrent clients of the page scenarios")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "how long each scenario runs")
	flag.DurationVar(&o.settle, "settle", 10*time.Second, "wait after the load before the 'after' figures")
	flag.IntVar(&o.floodConns, "flood-conns", 200, "concurrent connections of the flood scenarios")
	flag.IntVar(&o.floodKB, "flood-kb", 940, "KiB of header (or body) each flood request sends")
	flag.StringVar(&o.scenarios, "scenarios", "overview,check,headers,bodies", "comma-separated scenarios: overview, check, headers, bodies")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "serveload: error:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	dir, err := os.MkdirTemp("", "serveload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	cfg, err := setup(dir, o.checks, o.runs)
	if err != nil {
		return fmt.Errorf("seed the store: %w", err)
	}
	fmt.Fprintf(os.Stderr, "serveload: seeded %d checks, %d check runs of check-0, in %v\n", o.checks, o.runs, time.Since(start).Round(time.Millisecond))
	printHeader()
	for _, name := range strings.Split(o.scenarios, ",") {
		sc, ok := scenarios[strings.TrimSpace(name)]
		if !ok {
			return fmt.Errorf("unknown scenario %q: want overview, check, headers or bodies", name)
		}
		if err := measure(cfg, o, sc); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// childServe runs `promptcanary serve -f cfg` until SIGTERM.
func childServe(cfg string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return cli.Main(ctx, []string{"serve", "-f", cfg, "--log-format", "json"}, cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
}

// child is a running monitor.
type child struct {
	cmd  *exec.Cmd
	addr string
}

// startChild starts the monitor on cfg and waits until it listens.
func startChild(cfg string) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-child-serve", cfg)
	cmd.Dir = filepath.Dir(cfg)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			if _, a, ok := strings.Cut(sc.Text(), "dashboard on http://"); ok {
				addr <- strings.TrimSuffix(a, "/")
			}
		}
		close(addr)
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			cmd.Wait()
			return nil, errors.New("the monitor exited before it listened")
		}
		return &child{cmd: cmd, addr: a}, nil
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, errors.New("the monitor did not listen within 2 minutes")
	}
}

// stop ends the monitor with SIGTERM, as a service manager does.
func (c *child) stop() error {
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		c.cmd.Process.Kill()
		return errors.New("the monitor did not stop within a minute")
	}
}

// drain reads r to its end, for answers whose body is not looked at.
func drain(r io.Reader) { _, _ = io.Copy(io.Discard, r) }
