package check

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/runner"
	"github.com/promptcanary/promptcanary/suite"
)

// StreamThreshold is the size of a replay file from which a run streams it
// unless told otherwise (StreamAuto). Below it, a run holds the file and
// every result: about 100 MiB at its peak for a file of this size judged
// by 10 probes (180 MiB at twice the size), against about 50 MiB for a
// streamed run of any size.
const StreamThreshold = 8 << 20

// StreamMode says whether a run of a replay file streams it.
type StreamMode int

// The stream modes.
const (
	// StreamAuto streams a replay file of StreamThreshold bytes or more,
	// when the run neither saves a baseline nor picks samples.
	StreamAuto StreamMode = iota
	// StreamAlways streams the replay file, whatever its size.
	StreamAlways
	// StreamNever holds the file and every result, whatever its size.
	StreamNever
)

// StreamPlan is what decides whether a run streams.
type StreamPlan struct {
	Mode StreamMode
	// SaveBaseline is set when the run is to be saved as a baseline, and
	// Samples when samples per prompt were asked for (a flag, not the
	// suite's default): both need the run's answers by sample.
	SaveBaseline bool
	Samples      bool
}

// Streams decides whether a run of targets streams, by p's rule: a run
// streams one replay/ target, always with StreamAlways, with StreamAuto
// when its file is at least StreamThreshold bytes and the run neither
// saves a baseline nor picks samples. It returns the file's path as it
// is opened. StreamAlways with anything a stream cannot do is a
// *ConfigError with a hint.
func Streams(targets []Target, p StreamPlan) (string, bool, error) {
	if p.Mode == StreamNever {
		return "", false, nil
	}
	replays := 0
	for _, t := range targets {
		if provider.CapabilitiesOf(t.Spec).Stream != nil {
			replays++
		}
	}
	if len(targets) != 1 || replays != 1 {
		if p.Mode == StreamAlways {
			return "", false, fieldErr(func(n ...string) (string, []string) {
				return n[0] + " streams one replay file: run it with exactly one provider, replay/FILE", nil
			}, "stream")
		}
		return "", false, nil
	}
	t := targets[0]
	_, file, _ := provider.Split(t.Spec)
	path := file
	if !filepath.IsAbs(path) && t.Options.BaseDir != "" {
		path = filepath.Join(t.Options.BaseDir, path)
	}
	if p.Mode == StreamAlways {
		switch {
		case p.SaveBaseline:
			return "", false, fieldErr(func(n ...string) (string, []string) {
				return "a streamed run cannot be saved as a baseline: it keeps no answers",
					[]string{"save a baseline of some answers of the file without streaming: " + n[0] + "=false " + n[1] + " N " + n[2]}
			}, "stream", "samples", "save_baseline")
		case p.Samples:
			return "", false, fieldErr(func(n ...string) (string, []string) {
				return n[0] + " picks answers by sample index, and a streamed run judges every line of the file",
					[]string{"drop " + n[0] + " to judge every line, or " + n[1] + "=false to judge N samples per prompt"}
			}, "samples", "stream")
		}
		return path, true, nil
	}
	if p.SaveBaseline || p.Samples {
		return "", false, nil
	}
	info, err := os.Stat(path)
	if err != nil || info.Size() < StreamThreshold {
		// A file that cannot be read fails when the provider opens it.
		return "", false, nil
	}
	return path, true, nil
}

// StreamRequest is a streamed run of one replay file.
type StreamRequest struct {
	Suite  *suite.Suite
	Target Target
	// Path is the replay file, as Streams returned it.
	Path string
	// Exec gives the tool's name and the secrets to scrub; its Progress
	// and OnWait are not called (StreamProgress is).
	Exec Exec
	// MaxErrors is how many prompts of the suite may have no answer in the
	// file before the run counts as unmeasured.
	MaxErrors int
	// Progress, when set, is called after each batch of lines is read.
	Progress func(runner.StreamProgress)
	// Workers decode and judge lines; 0 means GOMAXPROCS.
	Workers int
}

// StreamOutcome is what a streamed run measured.
type StreamOutcome struct {
	Summary *promptcanary.RunSummary
	// Interrupted is set when the context was cancelled mid-file: Summary
	// holds what was judged.
	Interrupted bool
	// Problems say why the run could not be measured.
	Problems []Problem
}

// Stream judges every line of a replay file with the probes of its
// prompt, on every core, keeping aggregates only (see runner.JudgeStream),
// and prices its tokens. Nothing is recorded: a summary holds no answers
// to record. Errors are configuration mistakes (a probe that cannot judge
// a stream, a file that cannot be opened, a malformed line); an
// interruption is in the outcome.
func Stream(ctx context.Context, req StreamRequest) (*StreamOutcome, error) {
	t := req.Target
	plan := req.Suite.Plan(t.Config, 1)
	if err := runner.CheckStream(plan); err != nil {
		return nil, configErr(err, "run without streaming (--stream=false) to judge such probes, on a sample of the file if it is large")
	}
	_, file, err := provider.Split(t.Spec)
	if err != nil {
		return nil, configErr(err)
	}
	f, err := os.Open(req.Path)
	if err != nil {
		return nil, configErr(fmt.Errorf("replay %q: %w", file, err))
	}
	defer f.Close()
	stream := provider.CapabilitiesOf(t.Spec).Stream
	if stream == nil {
		return nil, configErr(fmt.Errorf("provider %s cannot stream: stream one replay file, replay/FILE", t.Spec))
	}
	feed := stream.Feed(bufio.NewReaderSize(f, 1<<20), file)
	sum, err := runner.JudgeStream(ctx, plan, feed, runner.StreamOptions{
		Workers:  req.Workers,
		Source:   file,
		Tool:     req.Exec.Tool,
		Progress: req.Progress,
		Secrets:  req.Exec.Settings.Secrets,
	})
	out := &StreamOutcome{Summary: sum}
	switch {
	case err != nil && sum != nil && ctx.Err() != nil:
		out.Interrupted = true
		return out, nil
	case err != nil:
		return nil, configErr(err)
	}
	if price, ok := provider.LookupPrice(sum.Provider.ModelID, req.Suite.Prices); ok {
		c := price.Cost(int(sum.PromptTokens), int(sum.CompletionTokens))
		sum.CostUSD = &c
	}
	switch {
	case !sum.Measured():
		out.Problems = append(out.Problems, Problem{Model: sum.Provider.ModelID, Errors: len(sum.Errors),
			Reason: fmt.Sprintf("nothing was measured: none of the %d line(s) of %q is for a prompt of the suite", sum.Lines, file)})
	case len(sum.Errors) > req.MaxErrors:
		out.Problems = append(out.Problems, Problem{Model: sum.Provider.ModelID, Errors: len(sum.Errors),
			Reason:   fmt.Sprintf("%d prompt(s) of the suite have no answer in %q (max_errors %d): the run could not be measured", len(sum.Errors), file, req.MaxErrors),
			Settings: []string{"max_errors"}})
	}
	return out, nil
}

// Verdict decides the gate as RunOutcome.Verdict does.
func (o *StreamOutcome) Verdict(failOnFailure bool) Verdict {
	switch {
	case len(o.Problems) > 0:
		return Unmeasured
	case failOnFailure && o.Summary.Failing():
		return Tripped
	}
	return Pass
}
