package web

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// Versioned is a Source that says when what the pages read has changed:
// Version moves on whenever the monitor records a check run, an incident
// step, a notification attempt or a baseline (or reads one another monitor
// recorded). The dashboard then keeps what its pages read from the store
// between two versions, at most cacheTTL, instead of reading it again for
// every request.
type Versioned interface {
	Version() uint64
}

// The bounds of the read cache: how long an entry lives even when the
// version does not move (a write the monitor did not see), and how many
// rows it holds at most, all entries together.
const (
	cacheTTL  = 10 * time.Second
	cacheRows = 20_000
)

// readCache keeps the results of the store reads of the pages for one
// version of the Source. Of concurrent requests missing the same entry,
// one reads the store (singleflight); the others wait for its answer.
type readCache struct {
	src     Versioned
	mu      sync.Mutex
	version uint64
	at      time.Time
	rows    int
	entries map[string]any
	group   singleflight.Group
}

// cached returns the value of key for the current version, loading it on
// a miss. Errors are not kept. The value is shared by every reader: they
// must not modify it.
func cached[T any](c *readCache, key string, rows func(T) int, load func() (T, error)) (T, error) {
	v := c.src.Version()
	now := time.Now()
	c.mu.Lock()
	if v != c.version || now.Sub(c.at) >= cacheTTL || now.Before(c.at) {
		c.version, c.at, c.rows, c.entries = v, now, 0, map[string]any{}
	}
	if e, ok := c.entries[key]; ok {
		c.mu.Unlock()
		return e.(T), nil
	}
	c.mu.Unlock()
	got, err, _ := c.group.Do(fmt.Sprintf("%d\x00%s", v, key), func() (any, error) { return load() })
	if err != nil {
		var zero T
		return zero, err
	}
	val := got.(T)
	c.mu.Lock()
	if n := rows(val); c.version == v && c.rows+n <= cacheRows {
		c.entries[key] = val
		c.rows += n
	}
	c.mu.Unlock()
	return val, nil
}

// length counts the rows of a listing.
func length[E any](s []E) int { return len(s) + 1 }

// cachingSource is a Source whose stores answer the pages' listings from
// a readCache. Everything else goes to the Source.
type cachingSource struct {
	Source
	c *readCache
}

// withCache returns src reading through a cache when src is Versioned,
// else src itself.
func withCache(src Source) Source {
	v, ok := src.(Versioned)
	if !ok {
		return src
	}
	return &cachingSource{Source: src, c: &readCache{src: v, entries: map[string]any{}}}
}

func (s *cachingSource) State() store.Monitor { return cachedState{s.Source.State(), s.c} }
func (s *cachingSource) History() store.Store { return cachedHistory{s.Source.History(), s.c} }

// cachedState reads the listings of the monitor's state through the cache.
type cachedState struct {
	store.Monitor
	c *readCache
}

func (s cachedState) CheckRuns(ctx context.Context, check, provider string, n int) ([]promptcanary.CheckRun, error) {
	return cached(s.c, fmt.Sprintf("check-runs\x00%s\x00%s\x00%d", check, provider, n), length,
		func() ([]promptcanary.CheckRun, error) { return s.Monitor.CheckRuns(ctx, check, provider, n) })
}

// Incidents returns a copy of the cached listing: pages filter it in
// place.
func (s cachedState) Incidents(ctx context.Context, f store.IncidentFilter) ([]promptcanary.Incident, error) {
	incs, err := cached(s.c, fmt.Sprintf("incidents\x00%s\x00%t\x00%d", f.Check, f.OpenOnly, f.Limit), length,
		func() ([]promptcanary.Incident, error) { return s.Monitor.Incidents(ctx, f) })
	return slices.Clone(incs), err
}

func (s cachedState) IncidentEvents(ctx context.Context, id string) ([]promptcanary.IncidentEvent, error) {
	return cached(s.c, "events\x00"+id, length,
		func() ([]promptcanary.IncidentEvent, error) { return s.Monitor.IncidentEvents(ctx, id) })
}

// uncached returns the state under the cache: the optional capabilities of
// a store (such as its outbox's listing) are asserted on it, since the
// cache wraps only the listings it caches.
func uncached(m store.Monitor) store.Monitor {
	if c, ok := m.(cachedState); ok {
		return c.Monitor
	}
	return m
}

// cachedHistory reads the history's listings through the cache.
type cachedHistory struct {
	store.Store
	c *readCache
}

func (s cachedHistory) ProbeScores(ctx context.Context, suite, model string, n int) ([]store.ProbeScore, error) {
	return cached(s.c, fmt.Sprintf("probe-scores\x00%s\x00%s\x00%d", suite, model, n), length,
		func() ([]store.ProbeScore, error) { return s.Store.ProbeScores(ctx, suite, model, n) })
}

func (s cachedHistory) Baselines(ctx context.Context, suite string) ([]store.BaselineInfo, error) {
	return cached(s.c, "baselines\x00"+suite, length,
		func() ([]store.BaselineInfo, error) { return s.Store.Baselines(ctx, suite) })
}

func (s cachedHistory) Runs(ctx context.Context, f store.RunFilter) ([]store.RunSummary, error) {
	key := fmt.Sprintf("runs\x00%s\x00%s\x00%d\x00%d\x00%t", f.Suite, f.Model, f.Since.UnixNano(), f.Limit, f.BaselinesOnly)
	return cached(s.c, key, length, func() ([]store.RunSummary, error) { return s.Store.Runs(ctx, f) })
}
