package sqlite

import (
	"bytes"
	"context"
	"database/sql"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// saveAnswers replaces the answers kept apart for owner with as, each
// read from its spill file and written in its own statement. Without
// answers it writes nothing: a body without markers reads none.
func saveAnswers(ctx context.Context, tx *sql.Tx, owner string, as []store.Answer) error {
	if len(as) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM answers WHERE owner = ?`, owner); err != nil {
		return err
	}
	for _, a := range as {
		text, err := a.Spill.Text()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO answers (owner, marker, content) VALUES (?, ?, ?)`, owner, a.Marker, text); err != nil {
			return err
		}
	}
	return nil
}

// answersOf reads the answers kept apart for owner, moving each to a
// spill file as its row is read (a store.AnswerLoader).
func (s *Store) answersOf(ctx context.Context, owner string) ([]store.Answer, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT marker, content FROM answers WHERE owner = ?`, owner)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var as []store.Answer
	for rows.Next() {
		var (
			marker  string
			content sql.RawBytes
		)
		if err := rows.Scan(&marker, &content); err != nil {
			return nil, err
		}
		a, err := store.DecodeAnswer(marker, bytes.NewReader(content), int64(len(content)))
		if err != nil {
			return nil, err
		}
		as = append(as, a)
	}
	return as, rows.Err()
}

// decodeRun decodes body, the stored run id, with its kept-apart answers.
func (s *Store) decodeRun(ctx context.Context, id string, body []byte) (*promptcanary.Run, error) {
	return store.DecodeRunApart(ctx, id, body, s.answersOf)
}

// decodeBaseline decodes body, the stored baseline id, with its
// kept-apart answers.
func (s *Store) decodeBaseline(ctx context.Context, id string, body []byte) (*promptcanary.Baseline, error) {
	return store.DecodeBaselineApart(ctx, id, body, s.answersOf)
}
