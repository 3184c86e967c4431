package web

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/promptcanary/promptcanary"
)

// gateFixture gives the fixture's first check a candidate and two gates:
// an older one that compared nothing, and the latest, worse on one pair
// with a hostile name, better on one, no worse on one, inconclusive on
// one.
func gateFixture(t *testing.T) (srvPath string, fetch func(string) string, g promptcanary.CandidateGate) {
	src, mem, _ := newFixture(t, fixtureOptions{hourly: 3})
	gs := &gateStore{memStore: mem}
	// Versioned, as the monitor is: the pages read through their cache.
	h := New(Options{Source: &gateSource{fakeSource: src}, AdminToken: testToken, ActionsAllowed: true, Now: func() time.Time { return fixtureNow }})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	src.mu.Lock()
	src.state = gs
	st := &src.statuses[0]
	st.Candidate = "sim/<b>cand</b>"
	check, prov := st.Check, st.Provider
	src.mu.Unlock()
	slot := fixtureNow.Add(-time.Hour)
	pair := func(id string, v promptcanary.CandidateVerdict, cur, cand int) promptcanary.CandidatePair {
		return promptcanary.CandidatePair{ProbeID: "p", PromptID: id, Current: promptcanary.PassCount{Passed: cur, N: 30},
			Candidate: promptcanary.PassCount{Passed: cand, N: 30}, Delta: float64(cand-cur) / 30, QWorse: 2e-9, Verdict: v}
	}
	g = promptcanary.CandidateGate{ID: "g2", Check: check, Provider: prov, Candidate: st.Candidate, Slot: slot, At: slot.Add(time.Minute),
		Report: &promptcanary.CandidateReport{Suite: "s", Current: prov, Candidate: st.Candidate, Margin: 0.05, Alpha: 0.01, Samples: 30,
			Pairs: []promptcanary.CandidatePair{
				pair("<script>alert(1)</script>", promptcanary.CandidateWorse, 30, 0),
				pair("b", promptcanary.CandidateBetter, 10, 30),
				pair("c", promptcanary.CandidateNoWorse, 30, 30),
				pair("d", promptcanary.CandidateInconclusive, 30, 29),
			},
			Summary: promptcanary.CandidateSummary{Pairs: 4, Better: 1, NoWorse: 2, Worse: 1, Inconclusive: 1}}}
	old := promptcanary.CandidateGate{ID: "g1", Check: check, Provider: prov, Candidate: st.Candidate, Slot: slot.Add(-time.Hour),
		Reason: "sim/<b>cand</b>: every call failed"}
	for _, x := range []*promptcanary.CandidateGate{&old, &g} {
		if err := gs.SaveGate(context.Background(), x); err != nil {
			t.Fatal(err)
		}
	}
	return CheckPath(check, prov), func(p string) string {
		resp, body := get(t, srv, p)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d\n%s", p, resp.StatusCode, body)
		}
		return body
	}, g
}

// The check page of a check with candidate: shows the latest gate's
// verdict, its pairs by verdict and those worse, and the earlier gates,
// every name escaped; the API returns the latest gate with the check, and
// every gate under /api/v1/gates.
func TestCheckPageGate(t *testing.T) {
	path, fetch, g := gateFixture(t)
	page := fetch(path)
	for _, want := range []string{
		`<h2>Upgrade gate</h2>`,
		`candidate <span class="mono">sim/&lt;b&gt;cand&lt;/b&gt;</span>`,
		`margin 5 pts · 30 samples per prompt on each`,
		`candidate sim/&lt;b&gt;cand&lt;/b&gt; is no worse than ` + g.Provider + ` on 2 of 4 pairs (margin 5 pts), better on 1; worse on 1: p/&lt;script&gt;alert(1)&lt;/script&gt;; inconclusive on 1`,
		`<div class="gate-count gate-worse"><b>1</b> worse</div><div class="gate-count gate-better"><b>1</b> better</div><div class="gate-count gate-no_worse"><b>1</b> no worse</div><div class="gate-count gate-inconclusive"><b>1</b> inconclusive</div>`,
		`<td class="mono">p/&lt;script&gt;alert(1)&lt;/script&gt;</td><td class="num">30/30</td><td class="num">0/30</td><td class="num">−100.0</td>`,
		`no verdict: sim/&lt;b&gt;cand&lt;/b&gt;: every call failed`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the check page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<b>cand") {
		t.Error("the check page holds an unescaped name")
	}
	if strings.Contains(page, "ready to upgrade") {
		t.Error("a gate with a pair worse reads ready to upgrade")
	}

	var checks struct {
		Checks []APICheck `json:"checks"`
	}
	if err := json.Unmarshal([]byte(fetch("/api/v1/checks")), &checks); err != nil {
		t.Fatal(err)
	}
	c := checks.Checks[0]
	if c.Candidate != g.Candidate || c.Gate == nil || c.Gate.ID != "g2" || c.Gate.Report.Summary.Worse != 1 {
		t.Errorf("GET /api/v1/checks: got candidate %q, gate %+v; want the latest gate", c.Candidate, c.Gate)
	}
	if checks.Checks[1].Gate != nil || checks.Checks[1].Candidate != "" {
		t.Errorf("GET /api/v1/checks: a check without candidate: got %+v", checks.Checks[1])
	}
	var gates struct {
		Gates []promptcanary.CandidateGate `json:"gates"`
	}
	if err := json.Unmarshal([]byte(fetch("/api/v1/gates?check="+url.QueryEscape(g.Check)+"&limit=5")), &gates); err != nil {
		t.Fatal(err)
	}
	if len(gates.Gates) != 2 || gates.Gates[0].ID != "g2" || gates.Gates[1].Report != nil {
		t.Errorf("GET /api/v1/gates: got %+v, want both gates, newest first", gates.Gates)
	}
}
