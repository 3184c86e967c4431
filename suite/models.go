package suite

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/promptcanary/promptcanary/probe"
	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/runner"
)

// models lists the models that the probes of items call (probe.Deps.Models),
// once each, for runner.Plan.Models. A chat model (a judge) takes the
// settings, rate limits and timeout of its judges: entry, else of the
// providers: entry for its spec when there is one; an embedder is
// configured by its probe alone.
func (s *Suite) models(items []runner.Item) []runner.Model {
	var out []runner.Model
	at := map[string]int{}
	for _, it := range items {
		for _, in := range it.Probes {
			for _, m := range probe.DepsOf(in.Probe).Models {
				rm := runner.Model{Model: m, BaseDir: s.Dir()}
				if e := s.judgeEntry(m); e != nil {
					if rm.Settings == nil {
						rm.Settings = e.Settings
					}
					rm.Limits = runner.Limits{RPM: e.RPM, TPM: e.TPM}
					rm.Timeout = e.Timeout
				}
				k := "chat " + m.Spec
				if m.Embedding {
					k = m.Key()
				}
				i, seen := at[k]
				if !seen {
					i = len(out)
					at[k] = i
					out = append(out, rm)
				}
				if !slices.Contains(out[i].UsedBy, in.ID) {
					out[i].UsedBy = append(out[i].UsedBy, in.ID)
				}
			}
		}
	}
	return out
}

// judgeEntry is the entry that configures chat model m: its judges:
// entry, else its providers: entry; nil for an embedder or a model with
// neither.
func (s *Suite) judgeEntry(m probe.Model) *ProviderSpec {
	if m.Embedding {
		return nil
	}
	if e := s.Judge(m.Spec); e != nil {
		return e
	}
	return s.Provider(m.Spec)
}

// checkJudges checks each judges: entry: its settings as the provider
// reads them (no key needed, nothing called), and that a probe calls it.
func (p *parser) checkJudges(s *Suite) {
	if len(s.Judges) == 0 {
		return
	}
	called := map[string]bool{}
	for _, in := range s.allProbes() {
		for _, m := range probe.DepsOf(in.Probe).Models {
			if !m.Embedding {
				called[m.Spec] = true
			}
		}
	}
	dir := (&Suite{Path: p.file}).Dir()
	for _, e := range s.Judges {
		at := &yaml.Node{Line: e.Line}
		if !called[e.Spec] {
			p.add(at, e.Field, "no probe calls this judge", "name it in an llm_judge probe (judge: "+e.Spec+"), or remove the entry")
			continue
		}
		if err := provider.Check(e.Spec, provider.Options{BaseDir: dir, Settings: e.Settings}); err != nil {
			for _, line := range strings.Split(strings.TrimRight(err.Error(), "\n"), "\n") {
				p.add(at, e.Field, line, "judges: entries take the settings of providers: entries (base_url, api_key_env, headers, …) and rpm, tpm and timeout")
			}
		}
	}
}

// allProbes returns every probe instance of s: the suite-wide ones and
// each prompt's own.
func (s *Suite) allProbes() []probe.Instance {
	out := slices.Clone(s.Probes)
	for _, pr := range s.Prompts {
		out = append(out, s.PromptProbes[pr.ID]...)
	}
	return out
}
