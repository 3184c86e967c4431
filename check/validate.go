package check

import (
	"errors"
	"fmt"
	"strings"

	"github.com/promptcanary/promptcanary/provider"
	"github.com/promptcanary/promptcanary/suite"
)

// CheckProviders checks the configuration of every provider the suite
// names (provider: and providers:) the way a run would open it, without
// calling anything or needing an API key. Every problem carries its
// canary.yaml line. getenv may be nil.
func CheckProviders(st *suite.Suite, getenv func(string) string) error {
	var errs []error
	checked := map[string]bool{}
	for i := range st.Providers {
		p := &st.Providers[i]
		checked[p.Spec] = true
		opts := provider.Options{BaseDir: st.Dir(), Settings: p.Settings, Getenv: getenv}
		if err := provider.Check(p.Spec, opts); err != nil {
			errs = append(errs, locate(st, p, p.Spec, err))
		}
	}
	if spec := st.Defaults.Provider; spec != "" && !checked[spec] {
		if err := provider.Check(spec, provider.Options{BaseDir: st.Dir(), Getenv: getenv}); err != nil {
			errs = append(errs, locate(st, nil, spec, err))
		}
	}
	if len(errs) > 0 {
		return configErr(errors.Join(errs...))
	}
	return nil
}

// CheckTargets checks the targets' provider configuration as Open would,
// without opening them: what a dry run needs, with no API key.
func CheckTargets(st *suite.Suite, targets []Target) error {
	var errs []error
	for _, t := range targets {
		if err := provider.Check(t.Spec, t.Options); err != nil {
			errs = append(errs, locate(st, t.Entry, t.Spec, err))
		}
	}
	if len(errs) > 0 {
		return configErr(errors.Join(errs...))
	}
	return nil
}

// locate puts the canary.yaml location of a provider entry in front of
// every line of err (a provider reports all its problems at once, one a
// line), so each problem names its file and line.
func locate(st *suite.Suite, entry *suite.ProviderSpec, spec string, err error) error {
	where := fmt.Sprintf("provider %s", spec)
	switch {
	case entry != nil:
		where = fmt.Sprintf("%s:%d: %s", st.Path, entry.Line, entry.Field)
	case st != nil && st.Defaults.Provider == spec && st.Defaults.ProviderLine > 0:
		where = fmt.Sprintf("%s:%d: provider (%s)", st.Path, st.Defaults.ProviderLine, spec)
	case st != nil:
		where = fmt.Sprintf("%s: provider (%s)", st.Path, spec)
	}
	lines := strings.Split(strings.TrimRight(err.Error(), "\n"), "\n")
	errs := make([]error, len(lines))
	for i, l := range lines {
		errs[i] = fmt.Errorf("%s: %s", where, l)
	}
	if len(errs) == 1 {
		return fmt.Errorf("%s: %w", where, err)
	}
	return errors.Join(errs...)
}
