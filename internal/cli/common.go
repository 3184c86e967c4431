package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/internal/atomicfile"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/suite"
)

// version returns the module version the binary was built from.
func version() string {
	v := "(devel)"
	extra := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				extra = " commit " + s.Value[:12]
			}
		}
		extra += " " + bi.GoVersion
	}
	return "promptcanary " + v + extra
}

// toolName is recorded in runs.
func toolName() string { return "promptcanary-go " + moduleVersion() }

func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// loadSuite loads canary.yaml, turning validation problems into a usage
// error that prints each problem with its hint.
func loadSuite(path string) (*suite.Suite, error) {
	s, err := suite.Load(path)
	if err != nil {
		var ve *suite.ValidationError
		if errors.As(err, &ve) {
			return nil, &exitError{code: ExitUsage, err: problemsErr{ve}}
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil, usageErr(err, "create one with 'promptcanary init', or point to it with --config")
		}
		return nil, usageErr(err)
	}
	return s, nil
}

// problemsErr prints every validation problem followed by its hint.
type problemsErr struct{ ve *suite.ValidationError }

func (p problemsErr) Error() string { return p.ve.Error() }

// printProblems writes each problem and hint to w.
func printProblems(w io.Writer, ve *suite.ValidationError) {
	for _, pr := range ve.Problems {
		fmt.Fprintf(w, "promptcanary: error: %s\n", pr.Error())
		if pr.Hint != "" {
			fmt.Fprintf(w, "promptcanary: hint: %s\n", pr.Hint)
		}
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// colorFor decides whether to colour output written to w: only on a
// terminal, never with NO_COLOR set or TERM=dumb.
func (a *app) colorFor(w io.Writer) bool {
	if a.getenv("NO_COLOR") != "" || a.getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// writeReport renders into memory, then replaces path atomically, so a
// failed render never leaves a half-written report.
func writeReport(path string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return fmt.Errorf("render %q: %w", path, err)
	}
	return atomicfile.Write(path, buf.Bytes(), 0o644)
}

// outputs are the report files a command may write.
type outputs struct {
	json, md, html string
}

func (o *outputs) flags(c *cobra.Command) {
	c.Flags().StringVarP(&o.json, "output-json", "o", "", "write the result as JSON to this file")
	c.Flags().StringVar(&o.md, "output-md", "", "write a Markdown report (fit for a PR comment) to this file")
	c.Flags().StringVar(&o.html, "output-html", "", "write a self-contained HTML report to this file")
}

// write renders every requested file with render(format).
func (o *outputs) write(render func(w io.Writer, f report.Format) error) error {
	for _, out := range []struct {
		path string
		f    report.Format
	}{{o.json, report.JSON}, {o.md, report.Markdown}, {o.html, report.HTML}} {
		if out.path == "" {
			continue
		}
		if err := writeReport(out.path, func(w io.Writer) error { return render(w, out.f) }); err != nil {
			return err
		}
	}
	return nil
}

// settings are the provider flags shared by run and compare.
type settings struct {
	provider    string
	temperature float64
	maxTokens   int
	seed        int64
	noSeed      bool
	samples     int
	concurrency int
	maxErrors   int
	noProgress  bool
}

func (s *settings) flags(c *cobra.Command) {
	f := c.Flags()
	f.StringVarP(&s.provider, "provider", "p", "", "provider as NAME/MODEL, e.g. sim/stable, replay/logs.jsonl (default: provider: in canary.yaml)")
	f.Float64VarP(&s.temperature, "temperature", "t", 0, "sampling temperature (default: canary.yaml, else 0)")
	f.IntVar(&s.maxTokens, "max-tokens", 0, "maximum tokens per answer (default: canary.yaml, else 1024)")
	f.Int64Var(&s.seed, "seed", 0, "seed sent to providers that support one (default: canary.yaml, else 42)")
	f.BoolVar(&s.noSeed, "no-seed", false, "send no seed")
	f.IntVar(&s.samples, "samples", 0, "independent samples per prompt (default: canary.yaml, else 1)")
	f.IntVar(&s.concurrency, "concurrency", 0, "calls in flight at once (default 8)")
	f.IntVar(&s.maxErrors, "max-errors", 0, "provider errors tolerated before exiting with code 3")
	f.BoolVar(&s.noProgress, "no-progress", false, "do not show a progress bar")
}

// resolve merges flags, canary.yaml defaults and built-in defaults into the
// provider configuration, and says where the provider string came from.
func (s *settings) resolve(c *cobra.Command, st *suite.Suite) (cfg promptcanary.ProviderConfig, samples int, baseDir string, err error) {
	f := c.Flags()
	d := st.Defaults
	cfg = promptcanary.ProviderConfig{Temperature: 0, MaxTokens: 1024, ExtraParams: map[string]any{}}
	seed := int64(42)
	cfg.Seed = &seed
	switch {
	case s.provider != "":
		cfg.ModelID = s.provider
	case d.Provider != "":
		cfg.ModelID = d.Provider
		baseDir = filepath.Dir(st.Path)
	default:
		return cfg, 0, "", usageErr(errors.New("no provider given"),
			"pass --provider NAME/MODEL (for example --provider sim/stable) or set provider: in "+st.Path)
	}
	if _, _, err := provider.Split(cfg.ModelID); err != nil {
		return cfg, 0, "", usageErr(err)
	}
	if f.Changed("temperature") {
		cfg.Temperature = s.temperature
	} else if d.Temperature != nil {
		cfg.Temperature = *d.Temperature
	}
	if cfg.Temperature < 0 || cfg.Temperature > 2 {
		return cfg, 0, "", usageErr(fmt.Errorf("--temperature %v is out of range", cfg.Temperature), "use a value from 0 to 2")
	}
	if f.Changed("max-tokens") {
		cfg.MaxTokens = s.maxTokens
	} else if d.MaxTokens != nil {
		cfg.MaxTokens = *d.MaxTokens
	}
	if cfg.MaxTokens <= 0 {
		return cfg, 0, "", usageErr(fmt.Errorf("--max-tokens %d must be positive", cfg.MaxTokens))
	}
	switch {
	case s.noSeed:
		cfg.Seed = nil
	case f.Changed("seed"):
		v := s.seed
		cfg.Seed = &v
	case d.Seed != nil:
		v := *d.Seed
		cfg.Seed = &v
	}
	samples = 1
	if f.Changed("samples") {
		samples = s.samples
	} else if d.Samples != nil {
		samples = *d.Samples
	}
	if samples < 1 {
		return cfg, 0, "", usageErr(fmt.Errorf("--samples %d must be at least 1", samples))
	}
	if s.maxErrors < 0 {
		return cfg, 0, "", usageErr(fmt.Errorf("--max-errors %d must not be negative", s.maxErrors))
	}
	return cfg, samples, baseDir, nil
}
