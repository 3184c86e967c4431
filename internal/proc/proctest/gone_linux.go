package proctest

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Gone reports whether the process pid is gone, polling for a bounded
// number of rounds: a kill is immediate, but reaping an orphan is up to
// its new parent. A process still running is killed, so that a failing
// test leaves nothing behind.
func Gone(pid int) bool {
	for range 500 {
		if !alive(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	return false
}

// alive reports whether pid is a running (not zombie) process:
// kill(pid, 0) fails with ESRCH once it is gone and reaped.
func alive(pid int) bool {
	if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}
