package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/store"
)

func (a *app) reportCmd() *cobra.Command {
	r := &rendering{}
	var pick string
	c := &cobra.Command{
		Use:   "report INPUT",
		Short: "Render a saved run, baseline or drift report",
		Long: `Render a saved JSON file in another format. INPUT may be a run (run
--output-json), the runs of several providers side by side (run
--output-json with several providers), a streamed run's summary (run
--output-json of a streamed replay file), a baseline file (ours or the
Python tool's) or a drift report (compare --output-json); the kind is recognised
from its content. Use - to read standard input. --provider picks one run
of a side-by-side file.`,
		Example: `  promptcanary report run.json --format html --output run.html
  promptcanary report side.json --provider openai/gpt-4o --format markdown
  promptcanary report drift.json --format junit --output drift.xml`,
		Args: argsUsage(cobra.ExactArgs(1)),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := r.parse(c)
			if err != nil {
				return err
			}
			data, err := a.readInput(args[0])
			if err != nil {
				return err
			}
			if promptcanary.IsRunSummary(data) {
				if pick != "" {
					return usageErr(fmt.Errorf("--provider picks a run of a side-by-side file, and %s is a streamed run's summary", args[0]))
				}
				s, err := report.DecodeSummary(data)
				if err != nil {
					return usageErr(fmt.Errorf("read %q: %w", args[0], err))
				}
				return a.emit(r, f, func(w io.Writer, opts report.Options) error { return report.Summary(w, f, s, opts) })
			}
			doc, err := a.decodeDocument(args[0], data)
			if err != nil {
				return err
			}
			switch {
			case doc.Kind == store.KindDrift:
				if pick != "" {
					return usageErr(fmt.Errorf("--provider picks a run of a side-by-side file, and %s is a drift report", args[0]))
				}
				return a.emit(r, f, func(w io.Writer, opts report.Options) error { return report.Drift(w, f, doc.Drift, opts) })
			case doc.Kind == store.KindSideBySide && pick == "":
				return a.emit(r, f, func(w io.Writer, opts report.Options) error { return report.Side(w, f, doc.Runs, opts) })
			}
			run, err := doc.PickRun(pick)
			if err != nil {
				return usageErr(fmt.Errorf("%s: %w", args[0], err))
			}
			return a.emit(r, f, func(w io.Writer, opts report.Options) error { return report.Run(w, f, run, opts) })
		},
	}
	r.flags(c, "list every result, not only failures and changes", report.Formats...)
	c.Flags().StringVarP(&pick, "provider", "p", "", "render only this provider/model's run of a side-by-side file")
	return c
}

// readDocumentFolding reads and decodes a saved JSON file (- is standard
// input), folding the probe results of a
// run or baseline with f when set (store.DecodeDocumentFolding).
func (a *app) readDocumentFolding(path string, f *store.Folding) (*store.Document, error) {
	data, err := a.readInput(path)
	if err != nil {
		return nil, err
	}
	return a.decodeDocumentFolding(path, data, f)
}

// readInput reads a file, or standard input for -.
func (a *app) readInput(path string) ([]byte, error) {
	var (
		data []byte
		err  error
	)
	if path == "-" {
		data, err = io.ReadAll(a.stdio.In)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, usageErr(fmt.Errorf("read %q: %w", path, err))
	}
	return data, nil
}

// decodeDocument decodes the saved JSON file read from path. A streamed
// run's summary is refused with what to do instead: it holds no answers.
func (a *app) decodeDocument(path string, data []byte) (*store.Document, error) {
	return a.decodeDocumentFolding(path, data, nil)
}

// decodeDocumentFolding is decodeDocument, folding with f when set.
func (a *app) decodeDocumentFolding(path string, data []byte, f *store.Folding) (*store.Document, error) {
	if promptcanary.IsRunSummary(data) {
		return nil, usageErr(fmt.Errorf("read %q: a streamed run's summary holds counts, not answers: it cannot be compared or made a baseline", path),
			"'promptcanary report "+path+"' renders it; to compare production answers with a baseline, run the replay file without --stream and with --samples N")
	}
	doc, err := store.DecodeDocumentFolding(data, f)
	if err != nil {
		return nil, usageErr(fmt.Errorf("read %q: %w", path, err), "pass the JSON written by 'promptcanary run -o', 'compare -o' or a baseline file")
	}
	return doc, nil
}
