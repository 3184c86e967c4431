package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/promptcanary/promptcanary/check"
	"github.com/promptcanary/promptcanary/internal/termtext"
)

// progressBar draws one line per provider on a terminal:
//
//	openai/gpt-4o  [#########---------------------]  12/40 calls  1 error  0:04 elapsed  ETA 0:09
//
// redrawing at most every 100 ms, and erases itself when done.
type progressBar struct {
	w     io.Writer
	specs []string // the provider spec of each row
	mu    sync.Mutex
	rows  []progressRow
	start time.Time
	last  time.Time
	drawn int // lines on screen
	cols  int // terminal width
	now   func() time.Time
}

type progressRow struct {
	label              string
	done, total, fails int
	// rate is the provider's rate limiting, once it met some.
	rate *rateState
}

// newProgressBar starts a bar with one row per provider spec on a
// terminal cols columns wide.
func newProgressBar(w io.Writer, specs []string, total, cols int, now func() time.Time) *progressBar {
	p := &progressBar{w: w, now: now, start: now(), cols: cols, specs: specs}
	width := 0
	for _, s := range specs {
		width = max(width, termtext.Width(termtext.Safe(s)))
	}
	for _, s := range specs {
		p.rows = append(p.rows, progressRow{label: termtext.PadRight(termtext.Safe(s), width), total: total})
	}
	return p
}

// update is a check.Exec.Progress callback.
func (p *progressBar) update(pr check.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr.Target < 0 || pr.Target >= len(p.rows) {
		return
	}
	r := &p.rows[pr.Target]
	r.done, r.total, r.fails = pr.Done, pr.Total, pr.Failed
	now := p.now()
	if !p.allDone() && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	p.draw(now)
}

func (p *progressBar) allDone() bool {
	for _, r := range p.rows {
		if r.done < r.total {
			return false
		}
	}
	return true
}

// draw rewrites the bar's lines in place.
func (p *progressBar) draw(now time.Time) {
	var b strings.Builder
	if p.drawn > 1 {
		fmt.Fprintf(&b, "\033[%dA", p.drawn-1)
	}
	elapsed := now.Sub(p.start)
	for i, r := range p.rows {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("\r\033[K")
		b.WriteString(progressLine(r, elapsed, p.cols))
	}
	p.drawn = len(p.rows)
	io.WriteString(p.w, b.String())
}

// progressLine renders one provider's row in cols columns.
func progressLine(r progressRow, elapsed time.Duration, cols int) string {
	var b strings.Builder
	fmt.Fprintf(&b, " %d/%d calls", r.done, r.total)
	switch r.fails {
	case 0:
	case 1:
		b.WriteString("  1 error")
	default:
		fmt.Fprintf(&b, "  %d errors", r.fails)
	}
	if r.rate != nil {
		b.WriteString("  " + r.rate.String())
	}
	fmt.Fprintf(&b, "  %s elapsed", clock(elapsed))
	if r.done > 0 && r.done < r.total {
		eta := time.Duration(float64(elapsed) / float64(r.done) * float64(r.total-r.done))
		fmt.Fprintf(&b, "  ETA %s", clock(eta))
	}
	return barLine(r.label, int64(r.done), int64(max(r.total, 0)), b.String(), cols)
}

// Widths of a progress bar's "[####------]", in cells.
const (
	barMax = 30
	barMin = 10
)

// barLine lays out a progress line within cols columns, one fewer so that
// the terminal never wraps it and the redraw stays in place: the label, a
// bar of barMin to barMax cells filled to done/total (none when total < 0),
// then tail. When even the narrowest bar does not fit, the label is cut,
// and on a terminal narrower than the counts, the line: it is redrawn
// every 100 ms and holds no advice.
func barLine(label string, done, total int64, tail string, cols int) string {
	room := cols - 1 - termtext.Width(tail)
	line := label + tail
	if total >= 0 {
		cells := min(barMax, room-termtext.Width(label)-3)
		if cells < barMin {
			cells = barMin
			label = termtext.Truncate(label, max(room-cells-3, 1))
		}
		filled := cells
		if total > 0 {
			filled = int(min(done, total) * int64(cells) / total)
		}
		line = label + " [" + strings.Repeat("#", filled) + strings.Repeat("-", cells-filled) + "]" + tail
	}
	return termtext.Truncate(line, max(cols-1, 1))
}

// clock formats a duration as m:ss (or h:mm:ss).
func clock(d time.Duration) string {
	s := int(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// finish erases the bar; a nil bar does nothing.
func (p *progressBar) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
}

// erase clears the bar's lines; the caller holds p.mu.
func (p *progressBar) erase() {
	if p.drawn == 0 {
		return
	}
	var b strings.Builder
	if p.drawn > 1 {
		fmt.Fprintf(&b, "\033[%dA", p.drawn-1)
	}
	for i := range p.drawn {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("\r\033[K")
	}
	if p.drawn > 1 {
		fmt.Fprintf(&b, "\033[%dA", p.drawn-1)
	}
	io.WriteString(p.w, b.String())
	p.drawn = 0
}

// pause erases the bar, runs print (which writes lines of its own) and
// draws the bar again below them. A nil bar just prints.
func (p *progressBar) pause(print func()) {
	if p == nil {
		print()
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
	print()
	p.draw(p.now())
}
