package cli

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal cols columns wide and returns its
// terminal side, as a command's standard output would be in a terminal.
func openPTY(t *testing.T, cols int) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("name the pseudo-terminal: %v", err)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("open the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: uint16(cols)}); err != nil {
		t.Fatalf("set the window size: %v", err)
	}
	return tty
}

// TestWidthFor checks where the layout width comes from (issue 19 item
// 10): a terminal's own width first, then COLUMNS, then 100.
func TestWidthFor(t *testing.T) {
	tty := openPTY(t, 72)
	for _, tc := range []struct {
		name    string
		out     io.Writer
		columns string
		want    int
	}{
		{"terminal", tty, "", 72},
		{"terminal over COLUMNS", tty, "50", 72},
		{"pipe with COLUMNS", &bytes.Buffer{}, "50", 50},
		{"pipe", &bytes.Buffer{}, "", defaultWidth},
		{"pipe with nonsense COLUMNS", &bytes.Buffer{}, "wide", defaultWidth},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &app{getenv: func(k string) string {
				if k == "COLUMNS" {
					return tc.columns
				}
				return ""
			}}
			if got := a.widthFor(tc.out); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}
