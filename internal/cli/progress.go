package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// progressBar draws "[#####-----] 12/40 calls" on a terminal, redrawing at
// most every 100 ms, and clears itself when done.
type progressBar struct {
	w     io.Writer
	label string
	mu    sync.Mutex
	last  time.Time
	drawn bool
	now   func() time.Time
}

func newProgressBar(w io.Writer, label string) *progressBar {
	return &progressBar{w: w, label: label, now: time.Now}
}

// update is a runner.Options.Progress callback.
func (p *progressBar) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if done < total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	const width = 30
	filled := 0
	if total > 0 {
		filled = done * width / total
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d calls", p.label, strings.Repeat("#", filled), strings.Repeat("-", width-filled), done, total)
	p.drawn = true
}

// finish erases the bar.
func (p *progressBar) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}
