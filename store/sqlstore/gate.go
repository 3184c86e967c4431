package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

var _ store.Gates = (*DB)(nil)

// gateColumns are the columns scanGate reads, in its order.
const gateColumns = `id, check_name, provider, candidate, slot, finished_at, check_run_id, cost_usd, reason, report`

// SaveGate stores g, replacing a gate with the same id.
func (s *DB) SaveGate(ctx context.Context, g *promptcanary.CandidateGate) error {
	if err := store.CheckGate(g); err != nil {
		return fmt.Errorf("save gate: %w", err)
	}
	var report []byte
	if g.Report != nil {
		var err error
		if report, err = store.Marshal(g.Report); err != nil {
			return fmt.Errorf("save gate %q: report: %w", g.ID, err)
		}
	}
	a := s.args(g.ID).text("check", g.Check).text("provider", g.Provider).text("candidate", g.Candidate).
		time("slot", g.Slot).time("finished_at", g.At).text("check run id", g.CheckRunID).
		add(finite(g.CostUSD)).bytes(g.Reason).add(string(report))
	if a.err != nil {
		return fmt.Errorf("save gate %q: %w", g.ID, a.err)
	}
	err := s.execTx(ctx, upsert("candidate_gates", gateColumns), a)
	return wrap(err, "save gate %q", g.ID)
}

// Gates lists the gates of check and provider ("" any), newest slot
// first.
func (s *DB) Gates(ctx context.Context, check, provider string, n int) ([]promptcanary.CandidateGate, error) {
	w := matching("check_name", check, "provider", provider)
	q := `SELECT ` + gateColumns + ` FROM candidate_gates` + w.String() + ` ORDER BY slot DESC, id DESC LIMIT ?`
	return list(ctx, s, "gates", s.bind(q), append(w.args, s.limit(n)), scanGate, check, provider)
}

// scanGate reads one row of gateColumns.
func scanGate(sc scanner) (promptcanary.CandidateGate, error) {
	var (
		g      promptcanary.CandidateGate
		report string
	)
	err := sc.Scan(&g.ID, &g.Check, &g.Provider, &g.Candidate, At(&g.Slot), At(&g.At), &g.CheckRunID,
		num(&g.CostUSD), &g.Reason, &report)
	if err == nil && report != "" {
		g.Report = &promptcanary.CandidateReport{}
		err = json.Unmarshal([]byte(report), g.Report)
	}
	if err != nil && g.ID != "" {
		err = fmt.Errorf("gate %q: %w", g.ID, err)
	}
	return g, err
}
