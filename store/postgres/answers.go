package postgres

import (
	"bytes"
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// runOwner and baselineOwner name the owner of kept-apart answers.
func runOwner(id string) string      { return "run:" + id }
func baselineOwner(id string) string { return "baseline:" + id }

// saveAnswers replaces the answers kept apart for owner with as, each
// read from its spill file and written in its own statement, so that one
// answer at a time is in memory. Without answers it writes nothing: a
// body without markers reads none.
func saveAnswers(ctx context.Context, tx pgx.Tx, owner string, as []store.Answer) error {
	if len(as) == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, `DELETE FROM answers WHERE owner = $1`, owner); err != nil {
		return err
	}
	for _, a := range as {
		text, err := a.Spill.Text()
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO answers (owner, marker, content) VALUES ($1, $2, $3)`,
			owner, []byte(a.Marker), []byte(text)); err != nil {
			return err
		}
	}
	return nil
}

// loadAnswers moves the answers kept apart for owner to spill files, one
// row at a time, and makes the decoders resolve their markers until the
// release returned is called.
func (s *Store) loadAnswers(ctx context.Context, owner string, body []byte) (func(), error) {
	if !store.HasMarkers(body) {
		return func() {}, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT marker, content FROM answers WHERE owner = $1`, owner)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var as []store.Answer
	for rows.Next() {
		var (
			marker  []byte
			content pgtype.DriverBytes
		)
		if err := rows.Scan(&marker, &content); err != nil {
			return nil, err
		}
		a, err := store.DecodeAnswer(string(marker), bytes.NewReader(content), int64(len(content)))
		if err != nil {
			return nil, err
		}
		as = append(as, a)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return store.ResolveAnswers(as), nil
}

// decodeRun decodes body, the stored run id, with its kept-apart answers.
func (s *Store) decodeRun(ctx context.Context, id string, body []byte) (*promptcanary.Run, error) {
	release, err := s.loadAnswers(ctx, runOwner(id), body)
	if err != nil {
		return nil, err
	}
	defer release()
	r, err := store.UnmarshalRun(body)
	if err != nil {
		return nil, err
	}
	return r, store.WholeAnswers(ctx, r)
}

// decodeBaseline decodes body, the stored baseline id, with its
// kept-apart answers.
func (s *Store) decodeBaseline(ctx context.Context, id string, body []byte) (*promptcanary.Baseline, error) {
	release, err := s.loadAnswers(ctx, baselineOwner(id), body)
	if err != nil {
		return nil, err
	}
	defer release()
	b, err := store.UnmarshalBaselineContext(ctx, body)
	if err != nil {
		return nil, err
	}
	return b, store.WholeAnswers(ctx, &b.RunResult)
}
