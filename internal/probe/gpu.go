package probe

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrNoGPU means no NVIDIA GPU is visible: nvidia-smi is not installed, or
// it found no device. That is the normal state of a CPU-only host, so
// callers decide whether it matters.
var ErrNoGPU = errors.New("no NVIDIA GPUs visible")

// The nvidia-smi queries, exactly as run.
var (
	gpuQuery = []string{"--query-gpu=index,uuid,name,memory.total,memory.used,utilization.gpu", "--format=csv,noheader,nounits"}
	appQuery = []string{"--query-compute-apps=gpu_uuid,pid,process_name,used_memory", "--format=csv,noheader,nounits"}
)

// A GPU is one row of nvidia-smi --query-gpu.
type GPU struct {
	Index       int
	UUID        string
	Name        string
	MemTotalMiB Reading
	MemUsedMiB  Reading
	UtilPct     Reading
}

func (g GPU) String() string {
	return fmt.Sprintf("GPU %d %s: %s of %s MiB used, %s%% utilised", g.Index, g.Name, g.MemUsedMiB, g.MemTotalMiB, g.UtilPct)
}

// A GPUProcess is one row of nvidia-smi --query-compute-apps. Its PID is as
// nvidia-smi sees it, which in a container may be a host pid.
type GPUProcess struct {
	GPUUUID    string
	PID        int
	Name       string
	UsedMemMiB Reading
}

func (p GPUProcess) String() string {
	return fmt.Sprintf("pid %d (%s) holds %s MiB on %s", p.PID, p.Name, p.UsedMemMiB, p.GPUUUID)
}

// GPUs lists the visible NVIDIA GPUs. The error matches ErrNoGPU when there
// are none to see; any other error is nvidia-smi failing, in one line.
func GPUs(ctx context.Context, h Host) ([]GPU, error) {
	out, err := nvidiaSMI(ctx, h, gpuQuery)
	if err != nil {
		return nil, err
	}
	return ParseGPUs(out)
}

// GPUProcesses lists the compute processes holding GPU memory; none is an
// empty list. Errors are as for GPUs.
func GPUProcesses(ctx context.Context, h Host) ([]GPUProcess, error) {
	out, err := nvidiaSMI(ctx, h, appQuery)
	if err != nil {
		return nil, err
	}
	return ParseGPUProcesses(out)
}

func nvidiaSMI(ctx context.Context, h Host, args []string) ([]byte, error) {
	stdout, stderr, err := h.Run(ctx, "nvidia-smi", args...)
	if err == nil {
		return stdout, nil
	}
	if notFound(err) {
		return nil, fmt.Errorf("%w: nvidia-smi not found", ErrNoGPU)
	}
	// nvidia-smi writes its own diagnosis to stdout, the one worth showing.
	msg := firstLine(stdout, stderr)
	if strings.Contains(strings.ToLower(msg), "no devices were found") {
		return nil, fmt.Errorf("%w: nvidia-smi: %s", ErrNoGPU, msg)
	}
	if msg == "" {
		return nil, fmt.Errorf("nvidia-smi: %w", err)
	}
	return nil, fmt.Errorf("nvidia-smi: %s (%w)", msg, err)
}

// ParseGPUs reads the output of the --query-gpu command GPUs runs. A header
// line and unit suffixes are tolerated, so output captured without
// noheader,nounits reads the same.
func ParseGPUs(data []byte) ([]GPU, error) {
	var gpus []GPU
	err := eachRecord(data, "index", 6, func(f []string) error {
		idx, err := strconv.Atoi(f[0])
		if err != nil || idx < 0 {
			return fmt.Errorf("index %q is not a GPU index", f[0])
		}
		g := GPU{Index: idx, UUID: f[1], Name: f[2]}
		for _, r := range []struct {
			name string
			text string
			into *Reading
		}{{"memory.total", f[3], &g.MemTotalMiB}, {"memory.used", f[4], &g.MemUsedMiB}, {"utilization.gpu", f[5], &g.UtilPct}} {
			if *r.into, err = parseReading(r.text); err != nil {
				return fmt.Errorf("%s: %w", r.name, err)
			}
		}
		gpus = append(gpus, g)
		return nil
	})
	return gpus, err
}

// ParseGPUProcesses reads the output of the --query-compute-apps command
// GPUProcesses runs. Empty output means no process.
func ParseGPUProcesses(data []byte) ([]GPUProcess, error) {
	var procs []GPUProcess
	err := eachRecord(data, "gpu_uuid", 4, func(f []string) error {
		pid, err := strconv.Atoi(f[1])
		if err != nil || pid <= 0 {
			return fmt.Errorf("pid %q is not a process id", f[1])
		}
		mem, err := parseReading(f[3])
		if err != nil {
			return fmt.Errorf("used_memory: %w", err)
		}
		procs = append(procs, GPUProcess{GPUUUID: f[0], PID: pid, Name: f[2], UsedMemMiB: mem})
		return nil
	})
	return procs, err
}

// eachRecord calls fn with each row of nvidia-smi CSV output, as exactly
// want trimmed fields. nvidia-smi does not quote, so a name containing a
// comma arrives split; the name is the third field of both queries, and the
// surplus fields are joined back into it.
func eachRecord(data []byte, header string, want int, fn func([]string) error) error {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	r.LazyQuotes = true
	for first := true; ; first = false {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("parse nvidia-smi output: %w", err)
		}
		line, _ := r.FieldPos(0)
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		if first && strings.EqualFold(rec[0], header) {
			continue
		}
		if len(rec) == 1 && strings.HasPrefix(strings.ToLower(rec[0]), "no running processes found") {
			continue
		}
		if len(rec) < want {
			return fmt.Errorf("parse nvidia-smi output: line %d: %d fields, want %d", line, len(rec), want)
		}
		if extra := len(rec) - want; extra > 0 {
			name := strings.Join(rec[2:3+extra], ", ")
			rec = append(append(rec[:2:2], name), rec[3+extra:]...)
		}
		if err := fn(rec); err != nil {
			return fmt.Errorf("parse nvidia-smi output: line %d: %w", line, err)
		}
	}
}
