package cli

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary/internal/atomicfile"
)

//go:embed scaffold
var scaffold embed.FS

var suiteNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

func (a *app) initCmd() *cobra.Command {
	var force bool
	c := &cobra.Command{
		Use:   "init [NAME]",
		Short: "Create a suite directory with a commented canary.yaml",
		Long: `Create a suite: canary.yaml (with explicit prompt ids and a comment on every
probe), baselines/, README.md, .env.example and a .gitignore that keeps .env
and the local history (.promptcanary/) out of git. With NAME the suite goes
into a new directory NAME; without, into the current directory, named after
it. Existing files are kept unless --force is given.`,
		Example: "  promptcanary init checkout-agent && cd checkout-agent && promptcanary run --save-baseline",
		Args:    argsUsage(cobra.MaximumNArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			dir, name := ".", ""
			if len(args) == 1 {
				dir = args[0]
				name = filepath.Base(filepath.Clean(dir))
			} else {
				wd, err := os.Getwd()
				if err != nil {
					return err
				}
				name = filepath.Base(wd)
			}
			if !suiteNameRe.MatchString(name) {
				name = "my-suite"
			}
			return a.scaffold(dir, name, force)
		},
	}
	c.Flags().BoolVar(&force, "force", false, "overwrite existing files")
	return c
}

func (a *app) scaffold(dir, name string, force bool) error {
	files := []struct{ src, dst string }{
		{"scaffold/canary.yaml", "canary.yaml"},
		{"scaffold/README.md", "README.md"},
		{"scaffold/env.example", ".env.example"},
		{"scaffold/gitignore", ".gitignore"},
	}
	if !force {
		var exist []string
		for _, f := range files {
			if _, err := os.Stat(filepath.Join(dir, f.dst)); err == nil {
				exist = append(exist, filepath.Join(dir, f.dst))
			}
		}
		if len(exist) > 0 {
			return usageErr(fmt.Errorf("%s already exists", strings.Join(exist, ", ")), "pass --force to overwrite")
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "baselines"), 0o755); err != nil {
		return err
	}
	for _, f := range files {
		data, err := fs.ReadFile(scaffold, f.src)
		if err != nil {
			return err
		}
		data = []byte(strings.ReplaceAll(string(data), "__NAME__", name))
		if err := atomicfile.Write(filepath.Join(dir, f.dst), data, 0o644); err != nil {
			return err
		}
	}
	keep := filepath.Join(dir, "baselines", ".gitkeep")
	if _, err := os.Stat(keep); errors.Is(err, os.ErrNotExist) {
		if err := atomicfile.Write(keep, nil, 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.stdio.Out, "Created suite %q in %s\n\nNext:\n", name, dir)
	if dir != "." {
		fmt.Fprintf(a.stdio.Out, "  cd %s\n", dir)
	}
	fmt.Fprintln(a.stdio.Out, "  promptcanary run --save-baseline     # run on the simulated model and save a baseline")
	fmt.Fprintln(a.stdio.Out, "  promptcanary compare --fail-on-drift # run again and compare")
	return nil
}
