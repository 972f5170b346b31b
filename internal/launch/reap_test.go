package launch

import (
	"os/exec"
	"testing"
)

// TestReapingPauses: a supervisor's reaper reaps any child that exits, so
// a program the supervisor runs and waits for itself (the pin's git) must
// hold the reaper off, or its wait fails with "no child processes".
func TestReapingPauses(t *testing.T) {
	sv := &supervisor{live: map[int]bool{}}
	stop := sv.reap()
	defer stop()
	for i := range 200 {
		sv.reaping.Lock()
		err := exec.Command("true").Run()
		sv.reaping.Unlock()
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
}
