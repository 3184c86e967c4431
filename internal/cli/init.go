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
	"github.com/promptcanary/promptcanary/monitor/config"
	"github.com/promptcanary/promptcanary/suite"
)

//go:embed scaffold
var scaffold embed.FS

var suiteNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

func (a *app) initCmd() *cobra.Command {
	var force, monitor bool
	c := &cobra.Command{
		Use:   "init [NAME]",
		Short: "Create a suite directory with a commented canary.yaml",
		Long: `Create a suite: canary.yaml (with explicit prompt ids and a comment on every
probe), baselines/, README.md, .env.example and a .gitignore that keeps .env
and the local history (.promptcanary/) out of git. With NAME the suite goes
into a new directory NAME; without, into the current directory, named after
it. Existing files are kept unless --force is given.

With --monitor it also writes monitor.yaml, the configuration of
'promptcanary serve', with one check on the suite. In a directory that
already holds canary.yaml, or below one, --monitor adds only monitor.yaml,
beside canary.yaml.`,
		Example: `  promptcanary init checkout-agent && cd checkout-agent && promptcanary run --save-baseline
  promptcanary init --monitor          # add monitor.yaml beside an existing canary.yaml`,
		Args: argsUsage(cobra.MaximumNArgs(1)),
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
			if monitor {
				// Without NAME, the suite may be in a parent directory:
				// monitor.yaml goes beside it, never into a new nested suite.
				if found, err := suite.Find(dir); len(args) == 0 && err == nil {
					return a.scaffoldMonitor(filepath.Dir(found), force)
				}
				if _, err := os.Stat(filepath.Join(dir, "canary.yaml")); err == nil {
					return a.scaffoldMonitor(dir, force)
				}
			}
			if err := a.scaffold(dir, name, force, monitor); err != nil {
				return err
			}
			return nil
		},
	}
	c.Flags().BoolVar(&force, "force", false, "overwrite existing files")
	c.Flags().BoolVar(&monitor, "monitor", false, "also write monitor.yaml for 'promptcanary serve'")
	return c
}

func (a *app) scaffold(dir, name string, force, monitor bool) error {
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
		if _, err := os.Stat(filepath.Join(dir, config.FileName)); monitor && err == nil {
			exist = append(exist, filepath.Join(dir, config.FileName))
		}
		switch {
		case len(exist) == 1:
			return usageErr(fmt.Errorf("%s already exists", exist[0]), "pass --force to overwrite it")
		case len(exist) > 1:
			return usageErr(fmt.Errorf("%s already exist", joinList(exist, "and")), "pass --force to overwrite them")
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
	if monitor {
		if err := atomicfile.Write(filepath.Join(dir, config.FileName), config.Scaffold("canary.yaml"), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(a.stdio.Out, "Created suite %q in %s\n\nNext:\n", name, dir)
	if dir != "." {
		fmt.Fprintf(a.stdio.Out, "  cd %s\n", dir)
	}
	fmt.Fprintln(a.stdio.Out, "  promptcanary run --save-baseline     # run on the simulated model and save a baseline")
	fmt.Fprintln(a.stdio.Out, "  promptcanary compare --fail-on-drift # run again and compare")
	if monitor {
		fmt.Fprintln(a.stdio.Out, "  promptcanary serve                   # monitor it: dashboard on http://127.0.0.1:9464/")
	}
	return nil
}

// scaffoldMonitor adds monitor.yaml beside an existing canary.yaml.
func (a *app) scaffoldMonitor(dir string, force bool) error {
	dst := filepath.Join(dir, config.FileName)
	if _, err := os.Stat(dst); err == nil && !force {
		return usageErr(fmt.Errorf("%s already exists", dst), "pass --force to overwrite")
	}
	if err := atomicfile.Write(dst, config.Scaffold("canary.yaml"), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stdio.Out, "Created %s with one check on %s\n\nNext:\n", dst, filepath.Join(dir, "canary.yaml"))
	fmt.Fprintln(a.stdio.Out, "  promptcanary run --save-baseline     # the check compares against the latest baseline")
	fmt.Fprintln(a.stdio.Out, "  promptcanary serve --check-config    # validate monitor.yaml")
	fmt.Fprintln(a.stdio.Out, "  promptcanary serve                   # dashboard on http://127.0.0.1:9464/")
	return nil
}
