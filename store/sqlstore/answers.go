package sqlstore

import (
	"bytes"
	"context"
	"database/sql"

	"github.com/promptcanary/promptcanary"
	"github.com/promptcanary/promptcanary/store"
)

// saveAnswers replaces the answers kept apart for owner with as, each
// read from its spill file and written in its own statement, so that one
// answer at a time is in memory. Without answers it writes nothing: a
// body without markers reads none.
func (s *DB) saveAnswers(ctx context.Context, tx *sql.Tx, owner string, as []store.Answer) error {
	if len(as) == 0 {
		return nil
	}
	if _, err := s.exec(ctx, tx, `DELETE FROM answers WHERE owner = ?`, owner); err != nil {
		return err
	}
	for _, a := range as {
		text, err := a.Spill.Text()
		if err != nil {
			return err
		}
		if _, err := s.exec(ctx, tx, `INSERT INTO answers (owner, marker, content) VALUES (?, ?, ?)`,
			owner, s.d.Bytes(a.Marker), s.d.Bytes(text)); err != nil {
			return err
		}
	}
	return nil
}

// blobs runs q, whose rows are a key and a blob, calling fn with each; the
// blob is the driver's buffer, valid until fn returns.
func (s *DB) blobs(ctx context.Context, q string, qargs []any, fn func(key string, blob []byte) error) error {
	if s.d.Blobs != nil {
		return s.d.Blobs(ctx, s.db, s.bind(q), qargs, fn)
	}
	_, err := collect(ctx, s, s.db, q, qargs, func(sc scanner) (struct{}, error) {
		var (
			key  string
			blob sql.RawBytes // valid until the next row
		)
		if err := sc.Scan(&key, &blob); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, fn(key, blob)
	})
	return err
}

// answersOf reads the answers kept apart for owner, moving each to a
// spill file as its row is read (a store.AnswerLoader).
func (s *DB) answersOf(ctx context.Context, owner string) ([]store.Answer, error) {
	var as []store.Answer
	err := s.blobs(ctx, `SELECT marker, content FROM answers WHERE owner = ?`, []any{owner}, func(marker string, content []byte) error {
		a, err := store.DecodeAnswer(marker, bytes.NewReader(content), int64(len(content)))
		as = append(as, a)
		return err
	})
	if err != nil {
		return nil, err
	}
	return as, nil
}

// decodeRun decodes body, the stored run id, with its kept-apart answers.
func (s *DB) decodeRun(ctx context.Context, id string, body []byte) (*promptcanary.Run, error) {
	return store.DecodeRunApart(ctx, id, body, s.answersOf)
}

// decodeBaseline decodes body, the stored baseline id, with its
// kept-apart answers.
func (s *DB) decodeBaseline(ctx context.Context, id string, body []byte) (*promptcanary.Baseline, error) {
	return store.DecodeBaselineApart(ctx, id, body, s.answersOf)
}
