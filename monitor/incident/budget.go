package incident

import (
	"sync"
	"time"
)

// Budget is today's (UTC) estimated spend against the daily budget. Its
// methods are safe for concurrent use.
type Budget struct {
	// Limit is the budget in USD per day; 0 means none. It is set before
	// the budget is used.
	Limit float64

	mu    sync.Mutex
	day   string // the UTC date spent is of
	spent float64
}

// DayOf is the UTC date of t, the day a budget counts it in.
func DayOf(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Add counts cost spent at t.
func (b *Budget) Add(cost float64, at time.Time) {
	if cost <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	d := DayOf(at)
	switch {
	case d == b.day:
		b.spent += cost
	case d > b.day:
		b.day, b.spent = d, cost
	}
}

// Today returns what was spent on now's day.
func (b *Budget) Today(now time.Time) float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if DayOf(now) != b.day {
		return 0
	}
	return b.spent
}
