//go:build unix

package ledger

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlxp/rlxp/internal/state"
)

// Helper processes: the test binary re-runs itself with RLXP_LEDGER_HELPER
// set, so that writers are real, separate processes, as rlxp commands are.
const helperEnv = "RLXP_LEDGER_HELPER"

func helper(t *testing.T, mode, root string, writer int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, "RLXP_LEDGER_ROOT="+root, "RLXP_LEDGER_WRITER="+strconv.Itoa(writer))
	return cmd
}

// TestHelperProcess is one writer: it takes the state lock and appends one
// entry, like 'rlxp score'. In "torn" mode its write stops halfway, syncs
// and hangs, to be killed there.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		return
	}
	root := os.Getenv("RLXP_LEDGER_ROOT")
	writer, _ := strconv.Atoi(os.Getenv("RLXP_LEDGER_WRITER"))
	r, err := state.Open(root, root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	lock, err := r.Lock(2 * time.Minute)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer lock.Unlock()
	b := sampleBody(writer)
	b.Run = "writer-" + strconv.Itoa(writer)
	a := appender{write: writeOnce}
	if mode == "torn" {
		// A large entry, so that the write is cut inside real content.
		b.Warnings = []string{strings.Repeat("x", 1<<20)}
		a.write = func(f *os.File, line []byte) (int, error) {
			n, err := f.Write(line[:len(line)/2])
			if err != nil {
				return n, err
			}
			f.Sync()
			fmt.Println("half written")
			time.Sleep(time.Hour)
			return n, nil
		}
	}
	if _, err := a.append(File{Path: r.Path(state.Ledger)}, b, time.Now()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func helperRepo(t *testing.T) *state.Repo {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, state.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := state.Open(root, root)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.Path(state.Ledger), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestConcurrentAppenders(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 64 processes")
	}
	const writers = 64
	r := helperRepo(t)
	var wg sync.WaitGroup
	errs := make([]error, writers)
	outs := make([][]byte, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], errs[i] = helper(t, "append", r.Root, i).CombinedOutput()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v: %s", i, err, outs[i])
		}
	}
	rep, err := Verify(r.Path(state.Ledger))
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() || rep.Entries != writers {
		t.Fatalf("after %d writers: %d entries, problem %v", writers, rep.Entries, rep.Problem)
	}
	entries, err := ReadAll(r.Path(state.Ledger))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i, e := range entries {
		if e.Seq != int64(i+1) {
			t.Errorf("line %d holds seq %d", i+1, e.Seq)
		}
		seen[e.String("run")] = true
	}
	for i := range writers {
		if !seen["writer-"+strconv.Itoa(i)] {
			t.Errorf("writer %d's entry is missing", i)
		}
	}
}

// A writer killed in the middle of its write leaves a torn last line;
// Verify says so and how to repair it, Repair keeps every complete entry,
// and the next append continues the chain.
func TestKilledWriter(t *testing.T) {
	r := helperRepo(t)
	path := r.Path(state.Ledger)
	for i := range 5 {
		if _, err := Append(path, sampleBody(i), fixtureTime(i)); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := os.ReadFile(path)

	cmd := helper(t, "torn", r.Root, 5)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "half written" {
				ready <- true
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Wait()
			t.Fatalf("writer exited before its write: %s", stderr.String())
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("writer never reached its write")
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred cleanup runs
		t.Fatal(err)
	}
	cmd.Wait()

	after, _ := os.ReadFile(path)
	if len(after) <= len(before) || string(after[:len(before)]) != string(before) {
		t.Fatalf("the killed writer left %d bytes, want a partial line after the %d bytes before", len(after), len(before))
	}
	rep, err := Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Problem
	if p == nil || !p.Torn || p.Line != 6 || rep.Entries != 5 {
		t.Fatalf("Verify after the kill = %+v, problem %+v", rep, p)
	}
	want := path + ":6: torn last line"
	if msg := p.Error(); !strings.HasPrefix(msg, want) || !strings.Contains(msg, "run '"+RepairHint+"'") {
		t.Errorf("finding %q, want %q... and the repair command", msg, want)
	}
	if _, err := Append(path, sampleBody(6), time.Now()); err == nil {
		t.Fatal("append onto a torn ledger succeeded")
	}

	// The kernel dropped the dead writer's lock; repair takes it as rlxp does.
	lock, err := r.Lock(5 * time.Second)
	if err != nil {
		t.Fatalf("lock after the writer died: %v", err)
	}
	res, err := Repair(path)
	lock.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if !res.Repaired || res.Line != 6 || res.Entries != 5 || res.DroppedBytes != len(after)-len(before) {
		t.Errorf("Repair = %+v", res)
	}
	if got, _ := os.ReadFile(path); string(got) != string(before) {
		t.Error("repair did not restore exactly the complete entries")
	}
	e, err := Append(path, sampleBody(6), time.Now())
	if err != nil || e.Seq != 6 {
		t.Fatalf("append after repair: seq %d, %v", e.Seq, err)
	}
	if rep, _ := Verify(path); !rep.OK() || rep.Entries != 6 {
		t.Errorf("after repair and append: %+v", rep)
	}
}
