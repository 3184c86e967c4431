//go:build unix

package proc

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Run runs cmd in its own process group, writing stdin to it and copying
// its output into stdout and stderr, and kills the whole group when the
// call ends, however it ends: after the command exits (successfully or
// not) and when the context of exec.CommandContext is done. What the
// command left running in the background (a shell's "sleep 30 &" holding
// stdout open) neither outlives the call nor delays it. A process that
// left the group (setsid) and still holds the output is not waited for
// past WaitDelay. On Linux the command also gets SIGKILL from the kernel
// when the process that started it dies, even by SIGKILL (see
// processAttr). Run sets cmd's Stdin, Stdout, Stderr, SysProcAttr and
// Cancel.
//
// The pipes are the call's own (not exec's copying goroutines), so that
// Wait returns as soon as the command exits and the group can be killed
// at once.
func Run(cmd *exec.Cmd, stdin []byte, stdout, stderr io.Writer) error {
	cmd.SysProcAttr = processAttr()
	cmd.Cancel = func() error {
		if err := killGroup(cmd.Process.Pid); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	var files []*os.File
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	pipe := func() (r, w *os.File, err error) {
		r, w, err = os.Pipe()
		if err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return err
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return err
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll()
		return err
	}
	// The child has its copies; the parent keeps only its own ends.
	inR.Close()
	outW.Close()
	errW.Close()

	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		inW.Write(stdin) // a command that reads no stdin makes this fail: fine
		inW.Close()
	}()
	go func() {
		defer wg.Done()
		io.Copy(stdout, outR)
	}()
	go func() {
		defer wg.Done()
		io.Copy(stderr, errR)
	}()

	err = cmd.Wait()
	killGroup(cmd.Process.Pid)
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(WaitDelay):
		// Something outside the group holds the pipes: stop reading.
		closeAll()
		<-done
	}
	closeAll()
	return err
}

// killGroup kills every process of the group led by pid. A group already
// gone is not an error.
func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
