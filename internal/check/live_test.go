package check

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/probe"
)

// recorded is nvidia-smi's output captured on an H200 host.
const recorded = "../../testdata/nvidia-smi/"

func recordedGPUs(t *testing.T, state string) ([]probe.GPU, []probe.GPUProcess) {
	t.Helper()
	g, err := os.ReadFile(recorded + state + "/query-gpu.csv")
	if err != nil {
		t.Fatal(err)
	}
	gpus, err := probe.ParseGPUs(g)
	if err != nil {
		t.Fatal(err)
	}
	a, err := os.ReadFile(recorded + state + "/query-apps.csv")
	if err != nil {
		t.Fatal(err)
	}
	procs, err := probe.ParseGPUProcesses(a)
	if err != nil {
		t.Fatal(err)
	}
	return gpus, procs
}

// eight is an 8-GPU host, by index and uuid.
func eight() []probe.GPU {
	var gpus []probe.GPU
	for i := range 8 {
		gpus = append(gpus, probe.GPU{Index: i, UUID: "GPU-" + string(rune('a'+i))})
	}
	return gpus
}

func holder(uuid string, pid int, class probe.Class, cmd string) Holder {
	return Holder{Process: probe.GPUProcess{GPUUUID: uuid, PID: pid, Name: "python3"}, Owner: probe.Ownership{PID: pid, Class: class}, Command: cmd}
}

type judged struct {
	States []State
	Kinds  []Kind
	Free   []string
}

func TestJudgeGPUs(t *testing.T) {
	busyGPUs, busyProcs := recordedGPUs(t, "busy")
	idleGPUs, _ := recordedGPUs(t, "idle")
	for _, tc := range []struct {
		name    string
		gpus    []probe.GPU
		holders []Holder
		need    int
		share   bool
		want    judged
	}{
		{
			name: "no GPU visible blocks",
			need: 1,
			want: judged{States: []State{Block}, Kinds: []Kind{KindNoGPU}},
		},
		{
			name: "an idle H200",
			gpus: idleGPUs, need: 1,
			want: judged{States: []State{OK}, Kinds: []Kind{KindGPUs}, Free: []string{"0"}},
		},
		{
			name: "the only GPU held by my own process outside rlxp blocks",
			gpus: busyGPUs, holders: []Holder{{Process: busyProcs[0], Owner: probe.Ownership{PID: 431, Class: probe.SameUser}, Command: "python3 train.py"}}, need: 1,
			want: judged{States: []State{Warn, Block}, Kinds: []Kind{KindOwnGPU, KindGPUs}},
		},
		{
			name: "the only GPU held by a process this host cannot see blocks",
			gpus: busyGPUs, holders: []Holder{{Process: busyProcs[0], Owner: probe.Ownership{PID: 431, Class: probe.Unknown}}}, need: 1,
			want: judged{States: []State{Warn, Block}, Kinds: []Kind{"", KindGPUs}},
		},
		{
			name: "sharing allowed: my own process's GPU is usable",
			gpus: busyGPUs, holders: []Holder{{Process: busyProcs[0], Owner: probe.Ownership{PID: 431, Class: probe.SameUser}}}, need: 1, share: true,
			want: judged{States: []State{Warn, OK}, Kinds: []Kind{KindOwnGPU, KindGPUs}, Free: []string{"0"}},
		},
		{
			name: "sharing allowed: another user's GPU is not",
			gpus: busyGPUs, holders: []Holder{{Process: busyProcs[0], Owner: probe.Ownership{PID: 431, Class: probe.Foreign}}}, need: 1, share: true,
			want: judged{States: []State{Block, Block}, Kinds: []Kind{KindForeignGPU, KindGPUs}},
		},
		{
			name: "sharing allowed: a run in flight keeps its GPU",
			gpus: busyGPUs, holders: []Holder{{Process: busyProcs[0], Owner: probe.Ownership{PID: 431, Class: probe.Ours}}}, need: 1, share: true,
			want: judged{States: []State{OK, Block}, Kinds: []Kind{"", KindGPUs}},
		},
		{
			name: "8 GPUs, 3 held: the 5 free ones, in index order",
			gpus: eight(), need: 4,
			holders: []Holder{holder("GPU-b", 10, probe.SameUser, "python3 a.py"), holder("GPU-e", 11, probe.Unknown, ""), holder("GPU-h", 12, probe.SameUser, "python3 b.py")},
			want:    judged{States: []State{Warn, Warn, Warn, OK}, Kinds: []Kind{KindOwnGPU, "", KindOwnGPU, KindGPUs}, Free: []string{"0", "2", "3", "5", "6"}},
		},
		{
			name: "8 GPUs, 5 held: fewer free than one run needs blocks",
			gpus: eight(), need: 4,
			holders: []Holder{holder("GPU-a", 1, probe.SameUser, ""), holder("GPU-b", 2, probe.SameUser, ""), holder("GPU-c", 3, probe.SameUser, ""), holder("GPU-d", 4, probe.SameUser, ""), holder("GPU-e", 5, probe.SameUser, "")},
			want:    judged{States: []State{Warn, Warn, Warn, Warn, Warn, Block}, Kinds: []Kind{KindOwnGPU, KindOwnGPU, KindOwnGPU, KindOwnGPU, KindOwnGPU, KindGPUs}, Free: []string{"5", "6", "7"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, free := JudgeGPUs(tc.gpus, tc.holders, tc.need, tc.share)
			got := judged{Free: free}
			for _, r := range rows {
				got.States = append(got.States, r.State)
				got.Kinds = append(got.Kinds, r.Kind)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("JudgeGPUs (-want +got):\n%s\nrows: %v", diff, rows)
			}
		})
	}
}

func TestNextSteps(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []Row
		want []string
	}{
		{
			name: "nothing blocks",
			rows: []Row{{Layer: LayerLive, State: Warn, Kind: KindOwnGPU, PID: 7}},
			want: []string{"safe to launch: a human confirms 'rlxp launch x'"},
		},
		{
			name: "a trainer outside rlxp: its pid, command and how to stop it",
			rows: []Row{{Layer: LayerLive, State: Block, Kind: KindTrainer, PID: 4242, Command: "python3 train.py --lr 3e-4"}},
			want: []string{"a trainer started outside rlxp runs in this repo: pid 4242 (python3 train.py --lr 3e-4); let it finish, or stop it with 'kill 4242'"},
		},
		{
			name: "my own processes hold the GPUs: each named",
			rows: []Row{
				{Layer: LayerLive, State: Warn, Kind: KindOwnGPU, PID: 10, Command: "python3 a.py"},
				{Layer: LayerLive, State: Warn, Kind: KindOwnGPU, PID: 11},
				{Layer: LayerLive, State: Block, Kind: KindGPUs},
			},
			want: []string{
				"your own process outside rlxp holds a GPU: pid 10 (python3 a.py); let it finish, or stop it with 'kill 10'",
				"your own process outside rlxp holds a GPU: pid 11 (command line not visible); let it finish, or stop it with 'kill 11'",
				"or, if runs may share a GPU, a human sets hardware.share_gpus: true in the contract",
			},
		},
		{
			name: "gate first, each step once",
			rows: []Row{{State: Block, Kind: KindGate}, {State: Block, Kind: KindGate}, {State: Block, Kind: KindNoGPU}},
			want: []string{
				"open the gate: 'rlxp gate x' lists what a human must approve or fix",
				"run where the contract's GPUs are visible (nvidia-smi lists them), or have a human change hardware.gpus_per_run",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, NextSteps(tc.rows, "x")); diff != "" {
				t.Errorf("NextSteps (-want +got):\n%s", diff)
			}
		})
	}
}
