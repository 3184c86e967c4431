package file

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/promptcanary/promptcanary/store"
)

var _ store.LatestFinder = (*Store)(nil)

// FindLatestBaseline finds the newest readable baseline of suite and
// model ("" matches any), and names the newer candidates it skipped
// because they could not be read: a truncated or corrupt file is a
// candidate when what can be read of it (its first fields, or else its
// file name) says it is of suite and model.
func (s *Store) FindLatestBaseline(ctx context.Context, suite, model string) (*store.BaselineLookup, error) {
	vals, failed, err := s.scanAll(ctx, "baseline", s.dir, func(path string) (any, error) {
		return readBaselineInfo(path)
	})
	if err != nil {
		return nil, fmt.Errorf("latest baseline for suite %q and model %q: %w", suite, model, err)
	}
	var cands []store.BaselineInfo
	for _, v := range vals {
		in := v.(store.BaselineInfo)
		if (suite == "" || in.Suite == suite) && (model == "" || in.Model == model) {
			cands = append(cands, in)
		}
	}
	store.SortBaselines(cands)
	var broken []store.SkippedBaseline
	for _, f := range failed {
		if sk, ok := brokenCandidate(f, suite, model); ok {
			broken = append(broken, sk)
		}
	}
	slices.SortFunc(broken, func(a, b store.SkippedBaseline) int { return b.CreatedAt.Compare(a.CreatedAt) })

	l := &store.BaselineLookup{}
	for _, in := range cands {
		for len(broken) > 0 && !broken[0].CreatedAt.Before(in.CreatedAt) {
			l.Skipped, broken = append(l.Skipped, broken[0]), broken[1:]
		}
		b, err := loadBaseline(ctx, in.Path)
		if err != nil {
			l.Skipped = append(l.Skipped, store.SkippedBaseline{Path: in.Path, SnapshotID: in.SnapshotID, CreatedAt: in.CreatedAt, Err: cause(err)})
			continue
		}
		l.Baseline, l.Path = b, in.Path
		return l, nil
	}
	l.Skipped = append(l.Skipped, broken...)
	err = fmt.Errorf("latest baseline for suite %q and model %q in %q: %w", suite, model, s.dir, store.ErrNotFound)
	if len(l.Skipped) > 0 {
		err = fmt.Errorf("latest baseline for suite %q and model %q in %q: %w: %d unreadable file(s), the newest %q",
			suite, model, s.dir, store.ErrNotFound, len(l.Skipped), l.Skipped[0].Path)
		return l, err
	}
	return nil, err
}

// brokenCandidate reports whether the unreadable file f may be a baseline
// of suite and model, from its first fields or else its name.
func brokenCandidate(f scanFailure, suite, model string) (store.SkippedBaseline, bool) {
	sk := store.SkippedBaseline{Path: f.path, Err: cause(f.err)}
	if h, ok := partialHeader(f.path); ok {
		sk.SnapshotID = h.SnapshotID
		created, err := store.ParseTime(h.CreatedAt)
		if err == nil && h.SuiteName != "" && h.Provider.ModelID != "" {
			sk.CreatedAt = created
			return sk, (suite == "" || h.SuiteName == suite) && (model == "" || h.Provider.ModelID == model)
		}
	}
	name := filepath.Base(f.path)
	m := nameTime.FindStringSubmatch(name)
	if m == nil {
		return sk, false
	}
	created, err := time.Parse("20060102T150405", m[1])
	if err != nil {
		return sk, false
	}
	sk.CreatedAt = created
	ok := true
	if suite != "" {
		ok = strings.HasPrefix(name, suiteSlug(suite)+"__")
	}
	if model != "" {
		ok = ok && strings.Contains(name, "__"+modelSlug(model)+"__")
	}
	return sk, ok
}

// cause drops the "load baseline PATH: " of err, which SkippedBaseline
// says in its Path.
func cause(err error) error {
	if inner := errors.Unwrap(err); inner != nil {
		return inner
	}
	return err
}

// nameTime matches the end of a BaselineName: the time and the id.
var nameTime = regexp.MustCompile(`__(\d{8}T\d{6})_[^_/]*\.json$`)

// partialHeader reads the leading fields of a baseline file that may be
// truncated or corrupt after them, as the original tool and this module
// write them first.
func partialHeader(path string) (baselineHeader, bool) {
	var h baselineHeader
	data, err := os.ReadFile(path)
	if err != nil {
		return h, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return h, false
	}
	found := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, _ := t.(string)
		var dst any
		switch key {
		case "snapshot_id":
			dst = &h.SnapshotID
		case "created_at":
			dst = &h.CreatedAt
		case "suite_name":
			dst = &h.SuiteName
		case "provider":
			dst = &h.Provider
		case "run_result":
			return h, found // the rest is the run
		default:
			dst = new(json.RawMessage)
		}
		if err := dec.Decode(dst); err != nil {
			break
		}
		found = true
	}
	return h, found
}
