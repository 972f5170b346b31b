package slurm

import (
	"bufio"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// recorded returns the scontrol lines recorded from a real controller.
func recorded(t testing.TB) []string {
	f, err := os.Open("testdata/scontrol-show-job.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "JobId=") {
			lines = append(lines, l)
		}
	}
	return lines
}

func TestParseJobRecorded(t *testing.T) {
	type summary struct {
		State, Reason   string
		Exit, Signal    int
		Ended           bool
		Started, Finish bool
		Nodes           string
	}
	want := map[string]summary{
		"94 PENDING":     {"PENDING", "None", 0, 0, false, false, false, ""},
		"94 RUNNING":     {"RUNNING", "None", 0, 0, false, true, true, "vm"},
		"94 TIMEOUT":     {"TIMEOUT", "TimeLimit", 0, 9, true, true, true, "vm"},
		"95 COMPLETED":   {"COMPLETED", "None", 0, 0, true, true, true, "vm"},
		"97 FAILED":      {"FAILED", "NonZeroExitCode", 3, 0, true, true, true, "vm"},
		"111 CANCELLED":  {"CANCELLED", "None", 0, 9, true, true, true, "vm"},
		"112 CANCELLED":  {"CANCELLED", "None", 0, 15, true, true, true, "vm"},
		"105 PENDING":    {"PENDING", "JobHeldUser", 0, 0, false, false, false, ""},
		"111 COMPLETING": {"COMPLETING", "None", 0, 0, false, true, true, "vm"},
		"109 PENDING":    {"PENDING", "Priority", 0, 0, false, true, true, ""}, // an estimated start and end,
		"101 FAILED":     {"FAILED", "JobLaunchFailure", 0, 53, true, true, true, "vm"},
		"104 COMPLETED":  {"COMPLETED", "None", 0, 0, true, true, true, "vm"},
		"105 CANCELLED":  {"CANCELLED", "JobHeldUser", 0, 0, true, true, true, ""}, // cancelled while pending: start = end,
		"98 FAILED":      {"FAILED", "JobLaunchFailure", 0, 9, true, true, true, "vm"},
		"112 RUNNING":    {"RUNNING", "None", 0, 0, false, true, true, "vm"},
		"111 RUNNING":    {"RUNNING", "None", 0, 0, false, true, true, "vm"},
		"94 COMPLETING":  {"COMPLETING", "TimeLimit", 0, 0, false, true, true, "vm"},
		"114 COMPLETING": {"COMPLETING", "None", 0, 0, false, true, true, "vm"},
	}
	seen := 0
	for _, line := range recorded(t) {
		j, err := ParseJob([]byte(line), time.UTC)
		if err != nil {
			t.Fatalf("%.60s…: %v", line, err)
		}
		w, ok := want[j.ID+" "+j.State]
		if !ok {
			t.Errorf("unexpected recording %s %s", j.ID, j.State)
			continue
		}
		seen++
		got := summary{j.State, j.Reason, j.Exit, j.Signal, j.Ended(), !j.Start.IsZero(), !j.End.IsZero(), j.Nodes}
		if d := cmp.Diff(w, got); d != "" {
			t.Errorf("%s %s (-want +got):\n%s", j.ID, j.State, d)
		}
		if !strings.HasPrefix(j.StdOut, "/") {
			t.Errorf("%s: StdOut %q", j.ID, j.StdOut)
		}
	}
	if seen != len(want) {
		t.Errorf("checked %d recordings, want %d", seen, len(want))
	}
}

func TestParseJobTimes(t *testing.T) {
	line := "JobId=7 JobName=a b JobState=RUNNING ExitCode=0:0 SubmitTime=2026-11-29T14:33:51 StartTime=2026-11-29T14:33:52 EndTime=Unknown Command=/x/my job.sh WorkDir=/x"
	j, err := ParseJob([]byte(line), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	want := Job{ID: "7", Name: "a b", State: "RUNNING",
		Submit: time.Date(2026, 11, 29, 14, 33, 51, 0, time.UTC), Start: time.Date(2026, 11, 29, 14, 33, 52, 0, time.UTC)}
	if d := cmp.Diff(want, j); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestParseJobErrors(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"", "no JobId or JobState"},
		{"garbage JobId=1", `unexpected "garbage" before the first Key=Value`},
		{"JobId=1 JobState=RUNNING ExitCode=x", "ExitCode=x: want status:signal"},
		{"JobId=1 JobState=RUNNING StartTime=yesterday", "StartTime=yesterday"},
	} {
		_, err := ParseJob([]byte(tc.line), time.UTC)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseJob(%q) = %v, want %q", tc.line, err, tc.want)
		}
	}
}

// fakeRun answers client commands from a table, as a controller would.
func fakeRun(answers map[string][2]string) Runner {
	return func(_ context.Context, name string, args ...string) ([]byte, []byte, error) {
		a, ok := answers[name+" "+strings.Join(args, " ")]
		if !ok {
			return nil, []byte("unexpected command"), errors.New("exit status 1")
		}
		var err error
		if a[1] != "" {
			err = errors.New("exit status 1")
		}
		return []byte(a[0]), []byte(a[1]), err
	}
}

func TestClient(t *testing.T) {
	lines := recorded(t)
	c := NewWith(fakeRun(map[string][2]string{
		"sbatch --parsable job.sh":    {"95\n", ""},
		"sbatch --parsable other.sh":  {"96;local\n", ""},
		"sbatch --parsable bad.sh":    {"", "sbatch: error: Batch job submission failed: Invalid partition name specified"},
		"scontrol show job -o 95":     {lines[0] + "\n", ""},
		"scontrol show job -o 999999": {"", "slurm_load_jobs error: Invalid job id specified"},
		"scancel 95":                  {"", ""},
	}))
	ctx := context.Background()
	if id, err := c.Submit(ctx, "job.sh"); id != "95" || err != nil {
		t.Errorf("Submit = %q, %v", id, err)
	}
	if id, err := c.Submit(ctx, "other.sh"); id != "96" || err != nil {
		t.Errorf("Submit with a cluster = %q, %v", id, err)
	}
	if _, err := c.Submit(ctx, "bad.sh"); err == nil || !strings.Contains(err.Error(), "Invalid partition name") {
		t.Errorf("Submit refused = %v", err)
	}
	if _, err := c.Job(ctx, "999999"); !errors.Is(err, ErrUnknownJob) {
		t.Errorf("Job(unknown) = %v, want ErrUnknownJob", err)
	}
	if j, err := c.Job(ctx, "95"); err != nil || j.ID == "" {
		t.Errorf("Job = %+v, %v", j, err)
	}
	if err := c.Cancel(ctx, "95"); err != nil {
		t.Error(err)
	}
}

func FuzzParseJob(f *testing.F) {
	for _, l := range recorded(f) {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		j, err := ParseJob(line, time.UTC)
		if err == nil && (j.ID == "" || j.State == "") {
			t.Errorf("accepted a job without id or state: %+v", j)
		}
	})
}
