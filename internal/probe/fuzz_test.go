package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func seedRecorded(f *testing.F, names ...string) {
	for _, dir := range []string{"idle", "busy"} {
		for _, name := range names {
			if data, err := os.ReadFile(filepath.Join(recorded, dir, name)); err == nil {
				f.Add(data)
			}
		}
	}
}

func checkReadings(t *testing.T, rs ...Reading) {
	for _, r := range rs {
		if r.Known && r.Value < 0 {
			t.Errorf("negative reading %+v", r)
		}
		if !r.Known && r.Value != 0 {
			t.Errorf("unknown reading with a value %+v", r)
		}
	}
}

func FuzzParseGPUs(f *testing.F) {
	seedRecorded(f, "query-gpu.csv", "query-gpu-header.csv")
	f.Add([]byte("0, GPU-a, X, [N/A], [Not Supported], 3\n1, GPU-b, Y, Z, 1, 2, 3\n"))
	f.Add([]byte("\"0, GPU-a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		gpus, err := ParseGPUs(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("multi-line error %q", err)
			}
			return
		}
		for _, g := range gpus {
			if g.Index < 0 {
				t.Errorf("negative index %+v", g)
			}
			checkReadings(t, g.MemTotalMiB, g.MemUsedMiB, g.UtilPct)
			_ = g.String()
		}
	})
}

func FuzzParseGPUProcesses(f *testing.F) {
	seedRecorded(f, "query-apps.csv")
	f.Add([]byte("GPU-a, 10, VLLM::Worker_TP0, [N/A]\nGPU-b, 11, a,b, 1\n"))
	f.Add([]byte("No running processes found\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		procs, err := ParseGPUProcesses(data)
		if err != nil {
			return
		}
		for _, p := range procs {
			if p.PID <= 0 {
				t.Errorf("bad pid %+v", p)
			}
			checkReadings(t, p.UsedMemMiB)
			_ = p.String()
		}
	})
}

func FuzzParseStatus(f *testing.F) {
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("Name:\tpython3\nState:\tS (sleeping)\nPPid:\t411\nUid:\t0\t0\t0\t0\n"))
	f.Add([]byte("PPid:\t-1\nUid:\t\n"))
	f.Add([]byte("PPid:411\nUid:99999999999999999999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parseStatus(data)
		if err == nil && (p.PPID < 0 || p.UID < 0) {
			t.Errorf("parseStatus(%q) = %+v", data, p)
		}
	})
}

// FuzzOwner feeds arbitrary status files to the walk: it must end, within
// the depth bound, whatever the chain looks like.
func FuzzOwner(f *testing.F) {
	f.Add("PPid:\t2\nUid:\t0\n", "PPid:\t1\nUid:\t5\n", 7)
	f.Add("PPid:\t2\nUid:\t0\n", "PPid:\t1\nUid:\t0\n", 2)
	f.Fuzz(func(t *testing.T, one, two string, root int) {
		h := &fakeHost{root: t.TempDir()}
		procTree(t, h.root, map[int]string{1: one, 2: two})
		o := Owner(h, 1, Ancestry{UID: 0, Roots: []int{root}})
		if len(o.Chain) > maxDepth+1 {
			t.Errorf("chain of %d", len(o.Chain))
		}
		if o.Class == Ours && o.Via != root {
			t.Errorf("ours via %d, root %d", o.Via, root)
		}
	})
}
