package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"

	"github.com/promptcanary/promptcanary"
)

// The kinds of record that Copy copies and Verify compares, in the order
// they are copied.
const (
	KindRuns           = "runs"
	KindPending        = "pending baselines"
	KindBaselines      = "baselines"
	KindDrifts         = "drift reports"
	KindCheckRuns      = "check runs"
	KindIncidents      = "incidents"
	KindIncidentEvents = "incident events"
	KindNotifications  = "notifications"
)

// ErrSameStore is returned by Copy and Verify when the source and the
// target are one database.
var ErrSameStore = errors.New("the source and the target are the same store")

// CopyOptions tune Copy.
type CopyOptions struct {
	// Progress, when set, is called after each kind of record is copied,
	// with the number of records copied.
	Progress func(kind string, copied int)
}

// Copied is the number of records of one kind that Copy wrote.
type Copied struct {
	Kind string
	N    int
}

// CopyReport is what Copy did.
type CopyReport struct {
	// Copied counts the records written per kind, in the order copied.
	Copied []Copied
	// MonitorSkipped says why the monitor's state (check runs, incidents,
	// their events and notifications) was not copied, "" when it was or
	// when the source has none to copy.
	MonitorSkipped string
}

// Copy copies every record of from into to: runs with their pending
// baseline marks, baselines, drift reports and, when both stores can hold
// it, the monitor's state (check runs, incidents with their events and
// notification attempts). It streams, one record at a time.
//
// A record of to with the id of a copied one is replaced by it (an
// incident together with its events and notifications), so copying again
// is idempotent; records of to that from has not are left alone, so
// several histories can be merged into one. Resolved incidents are copied
// before open ones, so that an incident resolved in from since an earlier
// copy does not conflict with the open one that replaced it. Runs and
// baselines are read with their long answers spilled (WithSpilledAnswers),
// so that one answer at a time is in memory and a target that keeps them
// apart does.
//
// from must implement Exporter and to Journal (for the pending marks);
// Copy fails with ErrSameStore when both are one database (see
// Identifier). Records already written stay written when Copy fails.
func Copy(ctx context.Context, from, to Store, o CopyOptions) (*CopyReport, error) {
	src, journal, err := endpoints[Journal](ctx, "copy", from, to, "hold pending baselines")
	if err != nil {
		return nil, err
	}
	rep := &CopyReport{}
	done := func(kind string, n int) {
		rep.Copied = append(rep.Copied, Copied{Kind: kind, N: n})
		if o.Progress != nil {
			o.Progress(kind, n)
		}
	}
	runs, pending, err := copyRuns(ctx, src, to, journal)
	if err != nil {
		return nil, err
	}
	done(KindRuns, runs)
	done(KindPending, pending)
	n, err := copyEach(ctx, KindBaselines, src.ExportBaselines(WithSpilledAnswers(ctx)), func(b *promptcanary.Baseline) error {
		_, err := to.SaveBaseline(ctx, b)
		return err
	})
	if err != nil {
		return nil, err
	}
	done(KindBaselines, n)
	n, err = copyEach(ctx, KindDrifts, src.ExportDrifts(ctx), func(d *promptcanary.DriftReport) error {
		return to.SaveDrift(ctx, d)
	})
	if err != nil {
		return nil, err
	}
	done(KindDrifts, n)

	pair, why := monitorPair(from, to)
	if pair == nil {
		rep.MonitorSkipped = why
		return rep, nil
	}
	n, err = copyEach(ctx, KindCheckRuns, pair.src.ExportCheckRuns(ctx), func(cr promptcanary.CheckRun) error {
		return pair.dst.SaveCheckRun(ctx, &cr)
	})
	if err != nil {
		return nil, err
	}
	done(KindCheckRuns, n)
	var incidents, events, notes int
	for _, open := range []bool{false, true} {
		n, err := copyEach(ctx, KindIncidents, pair.src.ExportIncidents(ctx), func(rec IncidentRecord) error {
			if rec.Incident.Open() != open {
				return errSkip
			}
			events += len(rec.Events)
			notes += len(rec.Notifications)
			return pair.imp.ImportIncident(ctx, rec)
		})
		if err != nil {
			return nil, err
		}
		incidents += n
	}
	done(KindIncidents, incidents)
	done(KindIncidentEvents, events)
	done(KindNotifications, notes)
	return rep, nil
}

// errSkip tells copyEach that a record was passed over, not copied.
var errSkip = errors.New("skip")

// copyEach calls save on every record seq yields and counts the records
// saved.
func copyEach[T any](ctx context.Context, kind string, seq iter.Seq2[T, error], save func(T) error) (int, error) {
	n := 0
	for rec, err := range seq {
		if err != nil {
			return n, fmt.Errorf("copy %s: read the source: %w", kind, err)
		}
		if err := ctx.Err(); err != nil {
			return n, fmt.Errorf("copy %s: %w", kind, err)
		}
		switch err := save(rec); {
		case errors.Is(err, errSkip):
			continue
		case err != nil:
			return n, fmt.Errorf("copy %s: write the target: %w", kind, err)
		}
		n++
	}
	return n, nil
}

// copyRuns copies every run with its pending mark and removes the marks
// of to's copies of runs that have none in from. It returns the number of
// runs and of marks copied.
func copyRuns(ctx context.Context, src Exporter, to Store, journal Journal) (runs, marks int, err error) {
	stale := map[string]bool{}
	have, err := journal.PendingBaselines(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("copy %s: read the target: %w", KindRuns, err)
	}
	for _, p := range have {
		stale[p.RunID] = true
	}
	runs, err = copyEach(ctx, KindRuns, src.ExportRuns(WithSpilledAnswers(ctx)), func(rec RunRecord) error {
		if rec.Pending != nil {
			marks++
			return journal.SaveRunPending(ctx, rec.Run, *rec.Pending)
		}
		if err := to.SaveRun(ctx, rec.Run); err != nil {
			return err
		}
		if stale[rec.Run.RunID] {
			return journal.ClearPending(ctx, rec.Run.RunID)
		}
		return nil
	})
	return runs, marks, err
}

// monitors are the two sides of a copy of the monitor's state.
type monitors struct {
	src MonitorExporter
	dst Monitor
	imp Importer
	// dstx lists the target's state, for Verify.
	dstx MonitorExporter
}

// monitorPair returns the two sides of the monitor's state when both
// stores can hold it, else nil and why not ("" when the source has no
// monitor state at all).
func monitorPair(from, to Store) (*monitors, string) {
	src, ok := from.(MonitorExporter)
	if _, isMonitor := from.(Monitor); !ok || !isMonitor {
		return nil, ""
	}
	dst, ok := to.(Monitor)
	if !ok {
		return nil, fmt.Sprintf("the target (%T) cannot hold the monitor's state", to)
	}
	imp, ok := to.(Importer)
	if !ok {
		return nil, fmt.Sprintf("the target (%T) cannot import incidents", to)
	}
	dstx, ok := to.(MonitorExporter)
	if !ok {
		return nil, fmt.Sprintf("the target (%T) cannot list the monitor's state", to)
	}
	return &monitors{src: src, dst: dst, imp: imp, dstx: dstx}, ""
}

// endpoints returns the two stores of op (copy or verify): from as an
// Exporter and to as a T, of which a target that is no T cannot do what
// cannot says; they must be two stores (checkDistinct).
func endpoints[T any](ctx context.Context, op string, from, to Store, cannot string) (Exporter, T, error) {
	var dst T
	src, ok := from.(Exporter)
	if !ok {
		return nil, dst, fmt.Errorf("%s: the source (%T) cannot list its records", op, from)
	}
	if dst, ok = to.(T); !ok {
		return nil, dst, fmt.Errorf("%s: the target (%T) cannot %s", op, to, cannot)
	}
	if err := checkDistinct(ctx, from, to); err != nil {
		return nil, dst, fmt.Errorf("%s: %w", op, err)
	}
	return src, dst, nil
}

// checkDistinct fails with ErrSameStore when from and to say they are the
// same database.
func checkDistinct(ctx context.Context, from, to Store) error {
	a, ok1 := from.(Identifier)
	b, ok2 := to.(Identifier)
	if !ok1 || !ok2 {
		return nil
	}
	ida, err := a.Identity(ctx)
	if err != nil {
		return fmt.Errorf("identify the source: %w", err)
	}
	idb, err := b.Identity(ctx)
	if err != nil {
		return fmt.Errorf("identify the target: %w", err)
	}
	if ida == idb {
		return fmt.Errorf("%w (%s)", ErrSameStore, ida)
	}
	return nil
}

// KindCheck is Verify's comparison of one kind of record.
type KindCheck struct {
	Kind string
	// Source counts the source's records and Target the target's; Extra
	// the target's records whose id the source has not (kept from another
	// history, not a mismatch).
	Source, Target, Extra int
	// SourceSum is the SHA-256, in hex, of the source's records in id
	// order, each as the ids and the digest of its canonical JSON (see
	// Verify); TargetSum the same of the target's records that have a
	// source record's id. They are equal when the target holds every
	// record of the source unchanged.
	SourceSum, TargetSum string
	// Missing counts the source's records the target has not, Differ those
	// it holds otherwise.
	Missing, Differ int
	// Examples names the first few missing or different records.
	Examples []string
}

// OK reports whether the target holds every record of this kind of the
// source unchanged.
func (k KindCheck) OK() bool { return k.Missing == 0 && k.Differ == 0 }

// maxExamples is how many differing records a KindCheck names.
const maxExamples = 5

// Verify compares from and to, kind by kind, by counts and checksums: it
// reads both in id order (see Exporter) and compares the SHA-256 of each
// record's canonical JSON: a run, a baseline or a drift report as the
// store's codec writes it (MarshalRun and MarshalBaseline in LayoutAuto,
// Marshal), so that a run stored in a legacy layout and its copy compare
// equal; any other record as Marshal writes it. The monitor's kinds are
// compared when both stores hold that state. It streams, like Copy.
func Verify(ctx context.Context, from, to Store) ([]KindCheck, error) {
	src, dst, err := endpoints[Exporter](ctx, "verify", from, to, "list its records")
	if err != nil {
		return nil, err
	}
	kinds := []sides{
		{KindRuns, digestRuns(ctx, src), digestRuns(ctx, dst)},
		{KindPending, digestPending(ctx, from), digestPending(ctx, to)},
		{KindBaselines, digestBaselines(ctx, src), digestBaselines(ctx, dst)},
		{KindDrifts, digestDrifts(ctx, src), digestDrifts(ctx, dst)},
	}
	if pair, _ := monitorPair(from, to); pair != nil {
		kinds = append(kinds, sides{KindCheckRuns, digestCheckRuns(ctx, pair.src), digestCheckRuns(ctx, pair.dstx)})
		for _, k := range []string{KindIncidents, KindIncidentEvents, KindNotifications} {
			kinds = append(kinds, sides{k, digestIncidents(ctx, pair.src, k), digestIncidents(ctx, pair.dstx, k)})
		}
	}
	out := make([]KindCheck, 0, len(kinds))
	for _, k := range kinds {
		kc, err := compare(k.kind, k.from, k.to)
		if err != nil {
			return nil, fmt.Errorf("verify %s: %w", k.kind, err)
		}
		out = append(out, kc)
	}
	return out, nil
}

// sides are the digests of one kind of record of the source and the
// target.
type sides struct {
	kind     string
	from, to iter.Seq2[digest, error]
}

// digest is one record as Verify compares it: its key (the id, or the
// incident id and position of an event or notification) and the SHA-256
// of its canonical JSON.
type digest struct {
	key string
	sum [sha256.Size]byte
}

// compare merges two streams of digests in key order into a KindCheck.
func compare(kind string, from, to iter.Seq2[digest, error]) (KindCheck, error) {
	kc := KindCheck{Kind: kind}
	hs, ht := sha256.New(), sha256.New()
	add := func(h interface{ Write([]byte) (int, error) }, d digest) {
		h.Write([]byte(d.key))
		h.Write([]byte{0})
		h.Write(d.sum[:])
	}
	example := func(what, key string) {
		if len(kc.Examples) < maxExamples {
			kc.Examples = append(kc.Examples, what+" "+key)
		}
	}
	// Each side is read and digested in a goroutine of its own, so that
	// the two stores are read, and their records decoded, in parallel.
	nextS, stopS := prefetch(ordered(from, "source"))
	defer stopS()
	nextT, stopT := prefetch(ordered(to, "target"))
	defer stopT()
	s, errS, okS := nextS()
	t, errT, okT := nextT()
	for okS || okT {
		if errS != nil {
			return kc, fmt.Errorf("read the source: %w", errS)
		}
		if errT != nil {
			return kc, fmt.Errorf("read the target: %w", errT)
		}
		switch {
		case okS && (!okT || s.key < t.key): // only in the source
			kc.Source++
			kc.Missing++
			add(hs, s)
			example("missing", display(s.key))
			s, errS, okS = nextS()
		case okT && (!okS || t.key < s.key): // only in the target
			kc.Target++
			kc.Extra++
			t, errT, okT = nextT()
		default:
			kc.Source++
			kc.Target++
			add(hs, s)
			add(ht, t)
			if s.sum != t.sum {
				kc.Differ++
				example("differs", display(s.key))
			}
			s, errS, okS = nextS()
			t, errT, okT = nextT()
		}
	}
	if errS != nil {
		return kc, fmt.Errorf("read the source: %w", errS)
	}
	if errT != nil {
		return kc, fmt.Errorf("read the target: %w", errT)
	}
	kc.SourceSum, kc.TargetSum = hex.EncodeToString(hs.Sum(nil)), hex.EncodeToString(ht.Sum(nil))
	return kc, nil
}

// prefetchSize is how many digests a side of compare reads ahead.
const prefetchSize = 64

// prefetch runs seq in a goroutine and returns a function that returns
// its next element (ok false after the last), as iter.Pull2 does, and one
// that stops the goroutine, which the caller must call.
func prefetch(seq iter.Seq2[digest, error]) (next func() (digest, error, bool), stop func()) {
	type item struct {
		d   digest
		err error
	}
	ch := make(chan item, prefetchSize)
	done := make(chan struct{})
	go func() {
		defer close(ch)
		for d, err := range seq {
			select {
			case ch <- item{d, err}:
			case <-done:
				return
			}
		}
	}()
	next = func() (digest, error, bool) {
		it, ok := <-ch
		return it.d, it.err, ok
	}
	stop = func() {
		close(done)
		for range ch { // wait for the goroutine to end
		}
	}
	return next, stop
}

// ordered passes seq on, failing when its keys do not strictly ascend:
// the merge of compare would otherwise report records as missing.
func ordered(seq iter.Seq2[digest, error], side string) iter.Seq2[digest, error] {
	return func(yield func(digest, error) bool) {
		prev, first := "", true
		for d, err := range seq {
			if err == nil && !first && d.key <= prev {
				err = fmt.Errorf("the %s listed %s after %s: not in id order", side, display(d.key), display(prev))
			}
			if !yield(d, err) || err != nil {
				return
			}
			prev, first = d.key, false
		}
	}
}

// display shows a digest key: an id, or "ID #N" for an incident's event or
// notification.
func display(key string) string {
	for i := 0; i < len(key); i++ {
		if key[i] == 0 {
			n, _ := strconv.Atoi(key[i+1:])
			return fmt.Sprintf("%s #%d", key[:i], n+1)
		}
	}
	return key
}

// childKey is the key of the i-th event or notification of an incident:
// after the incident's id, which holds no NUL, and in their order.
func childKey(id string, i int) string { return fmt.Sprintf("%s\x00%010d", id, i) }

// sumOf returns the digest of v under key: the SHA-256 of its compact
// JSON (see Marshal).
func sumOf(key string, v any) (digest, error) {
	b, err := Marshal(v)
	if err != nil {
		return digest{}, fmt.Errorf("encode %s: %w", key, err)
	}
	return digest{key: key, sum: sha256.Sum256(b)}, nil
}

// digests maps every record of seq to its digests.
func digests[T any](seq iter.Seq2[T, error], fn func(T) ([]digest, error)) iter.Seq2[digest, error] {
	return func(yield func(digest, error) bool) {
		for rec, err := range seq {
			var ds []digest
			if err == nil {
				ds, err = fn(rec)
			}
			if err != nil {
				yield(digest{}, err)
				return
			}
			for _, d := range ds {
				if !yield(d, nil) {
					return
				}
			}
		}
	}
}

// The canonical form of a run, a baseline or a report is the body a store
// writes for it: what a copy writes is what the source would, and the
// codec reads a body back into a record it writes the same way. Records
// are read with their long answers spilled, which encode as whole, as a
// copy reads them so that the target keeps them apart too.

func digestRuns(ctx context.Context, x Exporter) iter.Seq2[digest, error] {
	return digests(x.ExportRuns(WithSpilledAnswers(ctx)), func(rec RunRecord) ([]digest, error) {
		body, err := MarshalRun(rec.Run, LayoutAuto)
		if err != nil {
			return nil, fmt.Errorf("encode run %s: %w", rec.Run.RunID, err)
		}
		return []digest{{key: rec.Run.RunID, sum: sha256.Sum256(body)}}, nil
	})
}

func digestBaselines(ctx context.Context, x Exporter) iter.Seq2[digest, error] {
	return digests(x.ExportBaselines(WithSpilledAnswers(ctx)), func(b *promptcanary.Baseline) ([]digest, error) {
		body, err := MarshalBaseline(b, LayoutAuto)
		if err != nil {
			return nil, fmt.Errorf("encode baseline %s: %w", b.SnapshotID, err)
		}
		return []digest{{key: b.SnapshotID, sum: sha256.Sum256(body)}}, nil
	})
}

func digestDrifts(ctx context.Context, x Exporter) iter.Seq2[digest, error] {
	return digests(x.ExportDrifts(ctx), func(r *promptcanary.DriftReport) ([]digest, error) {
		d, err := sumOf(r.ReportID, r)
		return []digest{d}, err
	})
}

// digestPending digests the pending marks of s, which are few: it lists
// them at once. A store without a Journal has none.
func digestPending(ctx context.Context, s Store) iter.Seq2[digest, error] {
	return func(yield func(digest, error) bool) {
		j, ok := s.(Journal)
		if !ok {
			return
		}
		ps, err := j.PendingBaselines(ctx)
		if err != nil {
			yield(digest{}, err)
			return
		}
		slices.SortFunc(ps, func(a, b PendingBaseline) int {
			switch {
			case a.RunID < b.RunID:
				return -1
			case a.RunID > b.RunID:
				return 1
			}
			return 0
		})
		for _, p := range ps {
			p.CreatedAt = p.CreatedAt.UTC()
			d, err := sumOf(p.RunID, p)
			if !yield(d, err) || err != nil {
				return
			}
		}
	}
}

func digestCheckRuns(ctx context.Context, x MonitorExporter) iter.Seq2[digest, error] {
	return digests(x.ExportCheckRuns(ctx), func(cr promptcanary.CheckRun) ([]digest, error) {
		d, err := sumOf(cr.ID, cr)
		return []digest{d}, err
	})
}

// digestIncidents digests the records of kind (incidents, their events or
// their notifications) of x's incidents.
func digestIncidents(ctx context.Context, x MonitorExporter, kind string) iter.Seq2[digest, error] {
	return digests(x.ExportIncidents(ctx), func(rec IncidentRecord) ([]digest, error) {
		id := rec.Incident.ID
		var out []digest
		add := func(key string, v any) error {
			d, err := sumOf(key, v)
			out = append(out, d)
			return err
		}
		switch kind {
		case KindIncidents:
			return out, add(id, rec.Incident)
		case KindIncidentEvents:
			for i, e := range rec.Events {
				if err := add(childKey(id, i), e); err != nil {
					return nil, err
				}
			}
		case KindNotifications:
			for i, a := range rec.Notifications {
				if err := add(childKey(id, i), a); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	})
}
