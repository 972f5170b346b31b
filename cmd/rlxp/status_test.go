package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rlxp/rlxp/internal/probe"
)

// spawnRun starts two sleeping processes that stand in for a run's
// supervisor and its process group leader, and fills FILE's placeholders
// @SUPERVISOR@, @PID@ and @TICKS@ (the leader's start time), and
// @STARTED@ (AGO before now, default 1h): spawn FILE [AGO]. Both processes
// are stopped when the script ends.
func spawnRun(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: spawn FILE [AGO]")
	}
	ago := time.Hour
	if len(args) == 2 {
		d, err := time.ParseDuration(args[1])
		ts.Check(err)
		ago = d
	}
	var pids [2]int
	for i := range pids {
		cmd := exec.Command("sleep", "600")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		ts.Check(cmd.Start())
		ts.Defer(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
		pids[i] = cmd.Process.Pid
	}
	ticks, err := probe.StartTicks(probe.System(), pids[1])
	ts.Check(err)
	text := strings.NewReplacer(
		"@SUPERVISOR@", strconv.Itoa(pids[0]),
		"@PID@", strconv.Itoa(pids[1]),
		"@TICKS@", strconv.FormatUint(ticks, 10),
		"@STARTED@", time.Now().Add(-ago).UTC().Format(time.RFC3339),
	).Replace(ts.ReadFile(args[0]))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(text), 0o644))
}

// backdate sets a file's modification time DUR into the past, as if
// nothing had written it since: backdate FILE DUR.
func backdate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: backdate FILE DUR")
	}
	d, err := time.ParseDuration(args[1])
	ts.Check(err)
	t := time.Now().Add(-d)
	ts.Check(os.Chtimes(ts.MkAbs(args[0]), t, t))
}
