// Command promptcanary catches silent behavioural drift in LLM providers.
// See the README and docs/ for usage; docs/cli/ is the reference of every
// command and flag.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/promptcanary/promptcanary/internal/cli"
	"github.com/promptcanary/promptcanary/internal/memlimit"
)

func main() {
	memlimit.Apply(os.Getenv, memlimit.Default)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
