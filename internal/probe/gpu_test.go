package probe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func known(v int64) Reading { return Reading{Value: v, Known: true, Raw: fmt.Sprint(v)} }

func TestRecordedIdle(t *testing.T) {
	h := &fakeHost{run: replay(t, "idle")}
	gpus, err := GPUs(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	want := []GPU{{Index: 0, UUID: "GPU-6e9fa0b3-4ef1-1f65-c4ac-5f3c5b0a4c71", Name: "NVIDIA H200",
		MemTotalMiB: known(143771), MemUsedMiB: known(0), UtilPct: known(0)}}
	if d := cmp.Diff(want, gpus); d != "" {
		t.Errorf("GPUs (-want +got):\n%s", d)
	}
	procs, err := GPUProcesses(context.Background(), h)
	if err != nil || len(procs) != 0 {
		t.Errorf("GPUProcesses = %v, %v; want none", procs, err)
	}
}

func TestRecordedBusy(t *testing.T) {
	h := &fakeHost{run: replay(t, "busy")}
	gpus, err := GPUs(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	if len(gpus) != 1 || gpus[0].MemUsedMiB != known(4093) || gpus[0].UtilPct != known(100) {
		t.Errorf("GPUs = %+v", gpus)
	}
	if got, want := gpus[0].String(), "GPU 0 NVIDIA H200: 4093 of 143771 MiB used, 100% utilised"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	procs, err := GPUProcesses(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	want := []GPUProcess{{GPUUUID: "GPU-59bb3df2-1717-73b5-6e2c-7dcc7f9fc91e", PID: 431, Name: "python3", UsedMemMiB: known(4084)}}
	if d := cmp.Diff(want, procs); d != "" {
		t.Errorf("GPUProcesses (-want +got):\n%s", d)
	}
	if procs[0].GPUUUID != gpus[0].UUID {
		t.Errorf("process on %s, GPU is %s", procs[0].GPUUUID, gpus[0].UUID)
	}
}

// The same query captured with its header and units reads the same.
func TestRecordedWithHeaderAndUnits(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join(recorded, "busy", "query-gpu.csv"))
	if err != nil {
		t.Fatal(err)
	}
	header, err := os.ReadFile(filepath.Join(recorded, "busy", "query-gpu-header.csv"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseGPUs(plain)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseGPUs(header)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got { // Raw keeps the unit; the values must agree
		for _, r := range []*Reading{&got[i].MemTotalMiB, &got[i].MemUsedMiB, &got[i].UtilPct} {
			r.Raw = fmt.Sprint(r.Value)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("with header (-plain +header):\n%s", d)
	}
}

func TestNoNvidiaSMI(t *testing.T) {
	for _, err := range []error{
		&exec.Error{Name: "nvidia-smi", Err: exec.ErrNotFound},
		&os.PathError{Op: "fork/exec", Path: "/usr/bin/nvidia-smi", Err: os.ErrNotExist},
	} {
		h := &fakeHost{run: func(string, []string) ([]byte, []byte, error) { return nil, nil, err }}
		_, gerr := GPUs(context.Background(), h)
		_, perr := GPUProcesses(context.Background(), h)
		for _, e := range []error{gerr, perr} {
			if !errors.Is(e, ErrNoGPU) || !strings.Contains(e.Error(), "no NVIDIA GPUs visible") {
				t.Errorf("error = %v, want ErrNoGPU", e)
			}
		}
	}
	// The default fake has no programs at all.
	if _, err := GPUs(context.Background(), &fakeHost{}); !errors.Is(err, ErrNoGPU) {
		t.Errorf("error = %v, want ErrNoGPU", err)
	}
}

// exitError is a command's non-zero exit as a fake reports it.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func TestNvidiaSMIFails(t *testing.T) {
	const msg = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."
	h := &fakeHost{run: func(string, []string) ([]byte, []byte, error) {
		return []byte(msg + "\n\n"), nil, exitError(9)
	}}
	for _, call := range []func() error{
		func() error { _, err := GPUs(context.Background(), h); return err },
		func() error { _, err := GPUProcesses(context.Background(), h); return err },
	} {
		err := call()
		if err == nil || errors.Is(err, ErrNoGPU) {
			t.Fatalf("error = %v, want a failure", err)
		}
		if want := "nvidia-smi: " + msg + " (exit status 9)"; err.Error() != want {
			t.Errorf("error = %q\nwant    %q", err, want)
		}
		var exit exitError
		if !errors.As(err, &exit) || exit != 9 {
			t.Errorf("exit status not wrapped: %v", err)
		}
	}

	// With nothing said, the exit status alone.
	h.run = func(string, []string) ([]byte, []byte, error) { return nil, nil, exitError(2) }
	if _, err := GPUs(context.Background(), h); err == nil || err.Error() != "nvidia-smi: exit status 2" {
		t.Errorf("error = %v", err)
	}

	// A driver without devices is no GPU, not a failure.
	h.run = func(string, []string) ([]byte, []byte, error) {
		return []byte("No devices were found\n"), nil, exitError(6)
	}
	if _, err := GPUs(context.Background(), h); !errors.Is(err, ErrNoGPU) {
		t.Errorf("error = %v, want ErrNoGPU", err)
	}
}

func TestParseGPUs(t *testing.T) {
	unknown := func(raw string) Reading { return Reading{Raw: raw} }
	tests := []struct {
		name string
		in   string
		want []GPU
	}{
		{"empty", "", nil},
		{"not available", "0, GPU-a, NVIDIA H100 80GB HBM3, 81559, [N/A], [Not Supported]\n",
			[]GPU{{0, "GPU-a", "NVIDIA H100 80GB HBM3", known(81559), unknown("[N/A]"), unknown("[Not Supported]")}}},
		{"extra spaces, no trailing newline", "  0 ,  GPU-a ,  NVIDIA A100-SXM4-40GB  ,  40960 ,  12 ,  7  ",
			[]GPU{{0, "GPU-a", "NVIDIA A100-SXM4-40GB", known(40960), known(12), known(7)}}},
		{"CRLF and blank lines", "\r\n0, GPU-a, T4, 15360, 0, 0\r\n\r\n",
			[]GPU{{0, "GPU-a", "T4", known(15360), known(0), known(0)}}},
		{"several", "0, GPU-a, NVIDIA H200, 143771, 4093, 100\n1, GPU-b, NVIDIA H200, 143771, 0, 0\n2, GPU-c, NVIDIA H200, 143771, 140000, 97\n",
			[]GPU{
				{0, "GPU-a", "NVIDIA H200", known(143771), known(4093), known(100)},
				{1, "GPU-b", "NVIDIA H200", known(143771), known(0), known(0)},
				{2, "GPU-c", "NVIDIA H200", known(143771), known(140000), known(97)},
			}},
		{"comma in name", "0, GPU-a, Odd, Name, 100, 1, 2\n",
			[]GPU{{0, "GPU-a", "Odd, Name", known(100), known(1), known(2)}}},
		{"quote in name", "0, GPU-a, 8\" card, 100, 1, 2\n",
			[]GPU{{0, "GPU-a", "8\" card", known(100), known(1), known(2)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseGPUs([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	// An unknown reading is not zero, and says what the tool said.
	got, _ := ParseGPUs([]byte("0, GPU-a, X, [N/A], 5, [Not Supported]\n"))
	if got[0].MemTotalMiB.Known || got[0].String() != "GPU 0 X: 5 of [N/A] MiB used, [Not Supported]% utilised" {
		t.Errorf("got %+v: %s", got[0], got[0])
	}
}

func TestParseGPUsErrors(t *testing.T) {
	for in, want := range map[string]string{
		"0, GPU-a, X, 1, 2\n":                          "line 1: 5 fields, want 6",
		"0, GPU-a, X, 1, 2, 3\nx, GPU-b, X, 1, 2, 3\n": `line 2: index "x" is not a GPU index`,
		"0, GPU-a, X, lots, 2, 3\n":                    `memory.total: "lots" is not a count`,
		"0, GPU-a, X, 1, -2, 3\n":                      `memory.used: "-2" is not a count`,
		"-1, GPU-a, X, 1, 2, 3\n":                      `index "-1"`,
	} {
		_, err := ParseGPUs([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseGPUs(%q) error = %v, want %q", in, err, want)
		}
	}
}

func TestParseGPUProcesses(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []GPUProcess
	}{
		{"none", "", nil},
		{"only blank lines", "\n\n", nil},
		{"old driver message", "No running processes found\n", nil},
		{"not available", "GPU-a, 4242, /usr/bin/python3.10, [N/A]\n",
			[]GPUProcess{{"GPU-a", 4242, "/usr/bin/python3.10", Reading{Raw: "[N/A]"}}}},
		{"several", "GPU-a, 10, VLLM::Worker_TP0, 130000\nGPU-b,11,python,  512  \n",
			[]GPUProcess{{"GPU-a", 10, "VLLM::Worker_TP0", known(130000)}, {"GPU-b", 11, "python", known(512)}}},
		{"comma in name", "GPU-a, 10, a,b, 1\n", []GPUProcess{{"GPU-a", 10, "a, b", known(1)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseGPUProcesses([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	for in, want := range map[string]string{
		"GPU-a, 0, p, 1\n":   `pid "0"`,
		"GPU-a, x, p, 1\n":   `pid "x"`,
		"GPU-a, 5, p\n":      "3 fields, want 4",
		"GPU-a, 5, p, big\n": `used_memory: "big"`,
	} {
		if _, err := ParseGPUProcesses([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseGPUProcesses(%q) error = %v, want %q", in, err, want)
		}
	}
}

// On a host with nvidia-smi, the real output parses.
func TestSystemGPUs(t *testing.T) {
	if _, err := exec.LookPath("nvidia-smi"); err != nil {
		t.Skip("no nvidia-smi")
	}
	h := System()
	gpus, err := GPUs(context.Background(), h)
	if errors.Is(err, ErrNoGPU) {
		t.Skip(err)
	}
	if err != nil || len(gpus) == 0 {
		t.Fatalf("GPUs = %v, %v", gpus, err)
	}
	procs, err := GPUProcesses(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gpus {
		t.Log(g)
	}
	for _, p := range procs {
		t.Log(p, "—", Owner(h, p.PID, Self(h)))
	}
}
