package probe

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recordedStatus is /proc/431/status as far as ps.txt recorded it (its
// PPid and Uid lines), with the process's name.
func recordedStatus(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(recorded, "busy", "ps.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("Name:\tpython3\n")
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "PPid:") || strings.HasPrefix(line, "Uid:") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// busyHost is the recorded busy GPU host: pid 431 (uid 0) under the shell
// 411, under 410, under init.
func busyHost(t *testing.T) *fakeHost {
	t.Helper()
	h := &fakeHost{root: t.TempDir(), run: replay(t, "busy"), uid: 0, pid: 77}
	procTree(t, h.root, map[int]string{
		431: recordedStatus(t),
		411: status("bash", 410, 0),
		410: status("sshd", 1, 0),
		1:   status("init", 0, 0),
	})
	return h
}

func TestOwnerRecorded(t *testing.T) {
	h := busyHost(t)
	procs, err := GPUProcesses(context.Background(), h)
	if err != nil || len(procs) != 1 {
		t.Fatalf("GPUProcesses = %v, %v", procs, err)
	}
	pid := procs[0].PID

	ours := Owner(h, pid, Self(h, 411))
	want := Ownership{PID: 431, Class: Ours, UID: 0, Name: "python3", Chain: []int{431, 411}, Via: 411}
	if d := cmp.Diff(want, ours); d != "" {
		t.Errorf("ours (-want +got):\n%s", d)
	}
	if got := ours.String(); got != "pid 431 (python3) is ours, under pid 411" {
		t.Errorf("String = %q", got)
	}

	same := Owner(h, pid, Self(h, 9999))
	want = Ownership{PID: 431, Class: SameUser, UID: 0, Name: "python3", Chain: []int{431, 411, 410, 1}}
	if d := cmp.Diff(want, same); d != "" {
		t.Errorf("same user (-want +got):\n%s", d)
	}

	other := Owner(h, pid, Ancestry{UID: 1000, Roots: []int{77}})
	if other.Class != Foreign || other.UID != 0 {
		t.Errorf("uid 1000 looking at uid 0: %+v", other)
	}
	if got := other.String(); got != "pid 431 (python3) belongs to another user (uid 0)" {
		t.Errorf("String = %q", got)
	}

	// The process itself may be a root.
	if o := Owner(h, pid, Ancestry{UID: 1000, Roots: []int{431}}); o.Class != Ours || o.Via != 431 {
		t.Errorf("root itself: %+v", o)
	}
}

// A host pid that this pid namespace does not show is unknown: never
// foreign, never free.
func TestOwnerNotVisible(t *testing.T) {
	h := busyHost(t)
	for _, pid := range []int{98765, 0, -3} {
		o := Owner(h, pid, Self(h))
		if o.Class != Unknown || o.UID != -1 || o.Note == "" {
			t.Errorf("pid %d: %+v", pid, o)
		}
	}
	o := Owner(h, 98765, Self(h))
	if !strings.Contains(o.String(), "owner unknown") || !strings.Contains(o.Note, "not visible") {
		t.Errorf("String = %q", o)
	}
	// No /proc at all (not Linux).
	if o := Owner(&fakeHost{}, 431, Self(&fakeHost{})); o.Class != Unknown {
		t.Errorf("no /proc: %+v", o)
	}
}

func TestOwnerOddChains(t *testing.T) {
	h := &fakeHost{root: t.TempDir(), uid: 1000}
	tree := map[int]string{
		500: status("a", 501, 1000), // 500 → 501 → 502 → 500
		501: status("b", 502, 1000),
		502: status("c", 500, 0),
		600: status("self", 600, 1000),       // its own parent
		700: status("orphan", 701, 0),        // parent gone
		800: "Name:\tgarbage\nPPid:\tnope\n", // unreadable status
		801: "Name:\tnothing useful\n",       // no PPid or Uid
		900: status("child", 901, 1000),      // parent is a root whose status is unreadable
		901: "\x00\x01binary",
	}
	for pid := 2000; pid < 2100; pid++ { // a chain longer than the bound
		tree[pid] = status("deep", pid+1, 1000)
	}
	procTree(t, h.root, tree)
	self := Ancestry{UID: 1000, Roots: []int{42, 901}}
	tests := []struct {
		pid   int
		class Class
		note  string
		chain int
	}{
		{500, SameUser, "loops at pid 500", 3},
		{502, Foreign, "loops at pid 502", 3},
		{600, SameUser, "loops at pid 600", 1},
		{700, Foreign, "broken at pid 701", 1},
		{800, Unknown, `PPid "nope"`, 0},
		{801, Unknown, "no PPid or Uid", 0},
		{900, Ours, "", 2},
		{2000, SameUser, "longer than 64", 64},
	}
	for _, tt := range tests {
		o := Owner(h, tt.pid, self)
		if o.Class != tt.class || !strings.Contains(o.Note, tt.note) || len(o.Chain) != tt.chain {
			t.Errorf("pid %d: %+v; want %s, note %q, chain of %d", tt.pid, o, tt.class, tt.note, tt.chain)
		}
	}
}

func TestParseStatus(t *testing.T) {
	real := "Name:\tpython3\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t431\nNgid:\t0\nPid:\t431\nPPid:\t411\nTracerPid:\t0\nUid:\t1000\t1001\t1000\t1000\nGid:\t0\t0\t0\t0\n"
	p, err := parseStatus([]byte(real))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Proc{PPID: 411, UID: 1000, Name: "python3", State: "S"}, p); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, bad := range []string{"", "PPid:\t1\n", "Uid:\t0\n", "PPid:\t-1\nUid:\t0\n", "PPid:\t1\nUid:\n", "PPid:\t1\nUid:\tx\n"} {
		if _, err := parseStatus([]byte(bad)); err == nil {
			t.Errorf("parseStatus(%q) accepted", bad)
		}
	}
}

func TestReadProcAndProcs(t *testing.T) {
	h := busyHost(t)
	cmd := "python3\x00-c\x00import torch\x00"
	if err := os.WriteFile(filepath.Join(h.root, "proc", "431", "cmdline"), []byte(cmd), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(h.root, "proc", "self"), 0o755)
	os.MkdirAll(filepath.Join(h.root, "proc", "net"), 0o755)
	p, err := ReadProc(h, 431)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Proc{PID: 431, PPID: 411, UID: 0, Name: "python3", Cmdline: []string{"python3", "-c", "import torch"}}, p); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if !p.Alive() || (Proc{State: "Z"}).Alive() {
		t.Error("Alive wrong")
	}
	if _, err := ReadProc(h, 5); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "/proc/5/status") {
		t.Errorf("missing pid: %v", err)
	}
	procs, err := Procs(h)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range procs {
		pids = append(pids, p.PID)
	}
	if d := cmp.Diff([]int{1, 410, 411, 431}, pids); d != "" {
		t.Errorf("pids (-want +got):\n%s", d)
	}
	if _, err := Procs(&fakeHost{}); err == nil || !strings.Contains(err.Error(), "read /proc") {
		t.Errorf("no /proc: %v", err)
	}
}

// The real /proc, where there is one: this process is ours and alive.
func TestSystemProc(t *testing.T) {
	h := System()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	p, err := ReadProc(h, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if p.UID != os.Getuid() || p.PPID != os.Getppid() || !p.Alive() {
		t.Errorf("ReadProc(self) = %+v", p)
	}
	if o := Owner(h, os.Getpid(), Self(h)); o.Class != Ours {
		t.Errorf("Owner(self) = %+v", o)
	}
	if o := Owner(h, os.Getppid(), Self(h)); os.Getppid() > 0 && o.Class == Ours || o.Class == Unknown {
		t.Errorf("Owner(parent) = %+v", o)
	}
}
