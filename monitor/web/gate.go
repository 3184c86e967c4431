package web

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/report"
	"github.com/promptcanary/promptcanary/store"
)

// The upgrade gate of a check that names a candidate (candidate: in
// monitor.yaml): its latest verdict on the check's page, in GET
// /api/v1/checks and, with its history, in GET /api/v1/gates.

// gateHistory is how many earlier gates a check's page lists.
const gateHistory = 10

// gatePairsShown bounds the worse pairs a check's page lists.
const gatePairsShown = 20

// gateView is the upgrade gate panel of a check's page.
type gateView struct {
	// Candidate is the configured candidate, "" when the check names none
	// (the panel then shows only stored gates).
	Candidate string
	// Latest is the newest gate, nil before the first.
	Latest *promptcanary.CandidateGate
	// Verdict is the latest gate's verdict line, as compare --candidate
	// prints it; Ready is set when every pair is shown no worse.
	Verdict string
	Ready   bool
	// Counts are the latest gate's pairs by verdict, each pair once.
	Counts []gateCount
	// Worse are its pairs worse beyond the margin, at most
	// gatePairsShown; MoreWorse counts the rest.
	Worse     []promptcanary.CandidatePair
	MoreWorse int
	// Earlier are the gates before it, newest first.
	Earlier []gateRow
	// Provider is the check's provider; Margin and Samples the latest
	// gate's ("5 pts", per prompt); Class the verdict's CSS class.
	Provider, Margin string
	Samples          int
	Class            string
}

// gateRow is an earlier gate in one line.
type gateRow struct {
	Slot time.Time
	Text string
}

// gateLine counts a gate's pairs in one line: "worse 2 · better 0 · no
// worse 20 · inconclusive 7", or why it has no verdict.
func gateLine(g *promptcanary.CandidateGate) string {
	r := g.Report
	if r == nil || r.Summary.Pairs == 0 {
		return "no verdict: " + cmp.Or(g.Reason, "nothing compared")
	}
	s := r.Summary
	return fmt.Sprintf("worse %d · better %d · no worse %d · inconclusive %d", s.Worse, s.Better, s.NoWorse-s.Better, s.Inconclusive)
}

// gateCount is one verdict's count of pairs.
type gateCount struct {
	Verdict promptcanary.CandidateVerdict
	Label   string
	N       int
}

// gates returns the store's upgrade gates when it keeps them, read
// through the pages' cache when the state is (the monitor moves its
// version on when it records a gate).
func (s *server) gates() (store.Gates, bool) {
	st := s.src.State()
	g, ok := uncached(st).(store.Gates)
	if !ok {
		return nil, false
	}
	if c, ok := st.(cachedState); ok {
		return cachedGates{g: g, c: c.c}, true
	}
	return g, true
}

// cachedGates reads the listings of gates through the cache.
type cachedGates struct {
	g store.Gates
	c *readCache
}

// SaveGate stores x (the dashboard saves none).
func (g cachedGates) SaveGate(ctx context.Context, x *promptcanary.CandidateGate) error {
	return g.g.SaveGate(ctx, x)
}

// Gates lists the gates, once per version of the source.
func (g cachedGates) Gates(ctx context.Context, check, provider string, n int) ([]promptcanary.CandidateGate, error) {
	return cached(g.c, fmt.Sprintf("gates\x00%s\x00%s\x00%d", check, provider, n), length,
		func() ([]promptcanary.CandidateGate, error) { return g.g.Gates(ctx, check, provider, n) })
}

// gateView reads the gates of st's check for its page; nil when the check
// has no candidate and no gate is stored.
func (s *server) gateView(ctx context.Context, r *http.Request, st CheckStatus) *gateView {
	gs, ok := s.gates()
	if !ok {
		return nil
	}
	list, err := gs.Gates(ctx, st.Check, st.Provider, gateHistory+1)
	if err != nil {
		s.storeFailed(r, "list upgrade gates", err)
	}
	if st.Candidate == "" && len(list) == 0 {
		return nil
	}
	v := &gateView{Candidate: st.Candidate, Provider: st.Provider}
	if len(list) == 0 {
		return v
	}
	v.Latest = &list[0]
	for i := range list[1:] {
		v.Earlier = append(v.Earlier, gateRow{Slot: list[i+1].Slot, Text: gateLine(&list[i+1])})
	}
	rep := v.Latest.Report
	if rep == nil || rep.Summary.Pairs == 0 {
		v.Class = "gate-none"
		return v
	}
	v.Margin = strconv.FormatFloat(100*rep.Margin, 'f', -1, 64) + " pts"
	v.Samples = rep.Samples
	switch {
	case rep.Summary.Worse > 0:
		v.Class = "gate-worse"
	case rep.Summary.NoWorse == rep.Summary.Pairs:
		v.Class = "gate-ready"
	default:
		v.Class = "gate-open"
	}
	v.Verdict = report.CandidateVerdict(rep)
	v.Ready = rep.Summary.Pairs > 0 && rep.Summary.NoWorse == rep.Summary.Pairs
	for _, c := range []gateCount{{promptcanary.CandidateWorse, "worse", 0}, {promptcanary.CandidateBetter, "better", 0},
		{promptcanary.CandidateNoWorse, "no worse", 0}, {promptcanary.CandidateInconclusive, "inconclusive", 0}} {
		c.N = len(rep.With(c.Verdict))
		v.Counts = append(v.Counts, c)
	}
	v.Worse = rep.With(promptcanary.CandidateWorse)
	if len(v.Worse) > gatePairsShown {
		v.MoreWorse = len(v.Worse) - gatePairsShown
		v.Worse = v.Worse[:gatePairsShown]
	}
	return v
}

// latestGate is the newest gate of a check for the API, nil when none.
func (s *server) latestGate(r *http.Request, check, provider string) *promptcanary.CandidateGate {
	gs, ok := s.gates()
	if !ok {
		return nil
	}
	list, err := gs.Gates(r.Context(), check, provider, 1)
	if err != nil {
		s.storeFailed(r, "list upgrade gates", err)
		return nil
	}
	if len(list) == 0 {
		return nil
	}
	return &list[0]
}

// apiGates is GET /api/v1/gates?check=&provider=&limit=: the upgrade
// gates, newest slot first, each with its report.
func (s *server) apiGates(w http.ResponseWriter, r *http.Request) {
	limit, ok := s.listLimit(w, r)
	if !ok {
		return
	}
	gs, ok := s.gates()
	if !ok {
		writeList(s, w, r, "gates", "list upgrade gates", []promptcanary.CandidateGate{}, nil)
		return
	}
	q := r.URL.Query()
	list, err := gs.Gates(r.Context(), q.Get("check"), q.Get("provider"), limit)
	writeList(s, w, r, "gates", "list upgrade gates", list, err)
}
