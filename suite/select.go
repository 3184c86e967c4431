package suite

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/promptcanary/promptcanary/internal/suggest"
	"github.com/promptcanary/promptcanary/probe"
)

// maxListed bounds the known names a hint lists.
const maxListed = 20

// Select returns the part of the suite made of the prompts whose id is in
// promptIDs or that carry any of tags (a prompt's own tags:, not the
// suite's), in file order; with both empty it returns s itself. The part
// keeps the suite-wide probes, each selected prompt's own probes, the
// defaults, providers and prices, so each prompt's PromptHash, and thus
// its baseline, is the same as in the whole suite; Hash fingerprints the
// part. An id or tag that no prompt has is a *SelectError naming them all.
func (s *Suite) Select(promptIDs, tags []string) (*Suite, error) {
	if len(promptIDs) == 0 && len(tags) == 0 {
		return s, nil
	}
	knownIDs := make([]string, len(s.Prompts))
	knownTags := map[string]bool{}
	for i, p := range s.Prompts {
		knownIDs[i] = p.ID
		for _, t := range p.Tags {
			knownTags[t] = true
		}
	}
	serr := &SelectError{KnownIDs: knownIDs, KnownTags: slices.Sorted(maps.Keys(knownTags))}
	for _, id := range promptIDs {
		if !slices.Contains(knownIDs, id) && !slices.Contains(serr.UnknownIDs, id) {
			serr.UnknownIDs = append(serr.UnknownIDs, id)
		}
	}
	for _, t := range tags {
		if !knownTags[t] && !slices.Contains(serr.UnknownTags, t) {
			serr.UnknownTags = append(serr.UnknownTags, t)
		}
	}
	if len(serr.UnknownIDs)+len(serr.UnknownTags) > 0 {
		return nil, serr
	}

	part := *s
	part.Prompts = nil
	part.PromptProbes = map[string][]probe.Instance{}
	for _, p := range s.Prompts {
		if !slices.Contains(promptIDs, p.ID) && !slices.ContainsFunc(p.Tags, func(t string) bool { return slices.Contains(tags, t) }) {
			continue
		}
		part.Prompts = append(part.Prompts, p)
		if own, ok := s.PromptProbes[p.ID]; ok {
			part.PromptProbes[p.ID] = own
		}
	}
	return &part, nil
}

// SelectError reports the prompt ids and tags given to Select that no prompt
// of the suite has.
type SelectError struct {
	UnknownIDs, UnknownTags []string
	// KnownIDs are the suite's prompt ids in file order; KnownTags its
	// prompts' tags, sorted.
	KnownIDs, KnownTags []string
}

// Error returns one line per unknown id or tag, each with the nearest known
// one when there is a likely typo.
func (e *SelectError) Error() string {
	var lines []string
	for _, id := range e.UnknownIDs {
		lines = append(lines, fmt.Sprintf("unknown prompt id %q%s", id, suggest.Hint(id, e.KnownIDs)))
	}
	for _, t := range e.UnknownTags {
		lines = append(lines, fmt.Sprintf("no prompt has tag %q%s", t, suggest.Hint(t, e.KnownTags)))
	}
	return strings.Join(lines, "\n")
}

// Hints lists the known prompt ids and tags (at most 20 of each), for the
// kinds of names that were unknown.
func (e *SelectError) Hints() []string {
	var hints []string
	if len(e.UnknownIDs) > 0 {
		hints = append(hints, "known prompt ids: "+listed(e.KnownIDs))
	}
	if len(e.UnknownTags) > 0 {
		if len(e.KnownTags) == 0 {
			hints = append(hints, "no prompt has tags: add tags: [...] to the prompts to select them by tag")
		} else {
			hints = append(hints, "known tags: "+listed(e.KnownTags))
		}
	}
	return hints
}

// listed joins names, at most maxListed of them.
func listed(names []string) string {
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:maxListed], ", ") + " and " + strconv.Itoa(len(names)-maxListed) + " more"
}
