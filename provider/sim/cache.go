package sim

import (
	"sync"

	"github.com/promptcanary/promptcanary"
)

// A run asks the same prompt many times (samples, repeated runs), and what a
// prompt asks for does not depend on the call, so the analysis of a prompt
// is kept and reused. The cache is bounded: when full it starts afresh.
const maxCached = 4096

type cacheKey struct {
	text, system, choice, format string
	tools                        uint64 // hash of the tools' names and descriptions
}

var cache struct {
	sync.RWMutex
	m map[cacheKey]*query
}

// analyzed returns the analysed query for p: a private copy whose memoised
// fields are all filled, so it never writes to shared state.
func analyzed(p *promptcanary.Prompt) *query {
	k := cacheKey{text: p.Text, system: p.SystemPrompt, choice: p.ToolChoice, format: formatKey(p.ResponseFormat), tools: toolsHash(p.Tools)}
	cache.RLock()
	cached := cache.m[k]
	cache.RUnlock()
	if cached != nil {
		q := *cached
		q.p = p
		return &q
	}
	q := newQuery(p)
	q.analyze()
	frozen := *q
	frozen.p = nil
	cache.Lock()
	if cache.m == nil || len(cache.m) >= maxCached {
		cache.m = make(map[cacheKey]*query, 64)
	}
	cache.m[k] = &frozen
	cache.Unlock()
	return q
}

// analyze fills every memoised field of q.
func (q *query) analyze() {
	q.classify()
	q.topic()
	q.fact()
	q.arith()
	q.place()
	q.firstInt()
	q.jsonKeys()
	q.headers()
	if len(q.p.Tools) > 0 {
		q.toolChoice()
	}
}

func toolsHash(tools []promptcanary.Tool) uint64 {
	if len(tools) == 0 {
		return 0
	}
	h := uint64(fnvOffset)
	for i := range tools {
		h = fnvString(h, tools[i].Name)
		h = fnvString(h, tools[i].Description)
	}
	return h
}
