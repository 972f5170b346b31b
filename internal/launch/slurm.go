package launch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/slurm"
)

// BatchScript is the sbatch script of run i: the scheduler enforces the
// wall-clock allowance (--time), and the script brackets the run's output
// with the same [rlxp] lines the local supervisor writes. A plan under an
// approval is held to it on the compute node: rlxp (exe, the launching
// binary, which the node reaches at the same path, as it reaches the
// repository) recomputes the pin before the command runs, and nothing
// runs when it changed, and again after it ended.
func (p *Plan) BatchScript(id string, i int, runsDir, exe string) string {
	r := p.Runs[i]
	var b strings.Builder
	b.WriteString("#!/bin/bash\n")
	directive := func(format string, args ...any) {
		fmt.Fprintf(&b, "#SBATCH "+format+"\n", args...)
	}
	directive("--job-name=rlxp-%s", id)
	directive("--output=%s", filepath.Join(runsDir, id, "log"))
	directive("--chdir=%s", p.Root)
	directive("--time=%s", slurmTime(p.WallClock.Value()))
	directive("--nodes=%d", p.Nodes)
	if p.GPUsPerRun > 0 {
		directive("--gres=gpu:%d", p.GPUsPerRun)
	}
	if s := p.Slurm; s != nil {
		for _, o := range []struct{ flag, v string }{{"partition", s.Partition}, {"account", s.Account}, {"qos", s.QOS}} {
			if o.v != "" {
				directive("--%s=%s", o.flag, o.v)
			}
		}
	}
	for _, kv := range p.Env(id, i, nil) {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "export %s=%s\n", k, adapter.ShellQuote(v))
	}
	hold := fmt.Sprintf("%s supervise --hold %s", adapter.ShellQuote(exe), id)
	if p.Approved != "" {
		// written stays in this shell, where the run cannot change it.
		fmt.Fprintf(&b, "written=$(%s) || exit 3\n", hold)
	}
	fmt.Fprintf(&b, "echo %s\n", adapter.ShellQuote(fmt.Sprintf("[rlxp] run %s: %s", id, r.Command)))
	fmt.Fprintf(&b, "bash -c %s\n", adapter.ShellQuote(r.Command))
	b.WriteString("status=$?\n")
	if p.Approved != "" {
		fmt.Fprintf(&b, "%s --end --written \"$written\"\n", hold)
	}
	fmt.Fprintf(&b, "echo \"[rlxp] run %s ended: exit status $status\"\n", id)
	b.WriteString("exit $status\n")
	return b.String()
}

// slurmTime renders d as sbatch --time's hours:minutes:seconds, rounded
// down so that the scheduler never allows more than the budget does.
func slurmTime(d time.Duration) string {
	s := int64(max(d/time.Second, 1))
	return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
}

// SubmitSlurm writes each run's batch script next to its record and submits
// it. Runs beyond the plan's concurrency wait for an earlier one to end
// (--dependency=afterany). It returns the job ids submitted, in order; the
// records are updated with theirs. When a submission fails, the records of
// the runs not submitted are removed: they never started.
func SubmitSlurm(ctx context.Context, c *slurm.Client, p *Plan, ids []string, runsDir, exe string) (jobs []string, err error) {
	defer func() {
		if err != nil {
			removeRecords(runsDir, ids[len(jobs):])
		}
	}()
	for i, id := range ids {
		script := filepath.Join(runsDir, id, "job.sh")
		if err := os.WriteFile(script, []byte(p.BatchScript(id, i, runsDir, exe)), 0o755); err != nil {
			return jobs, fmt.Errorf("write %s: %w", script, err)
		}
		if p.Approved != "" {
			// The job holds the run to this approval on its node, from
			// the moment it may start.
			if err := holdTo(runsDir, id, p.Approved); err != nil {
				return jobs, err
			}
		}
		var args []string
		if n := max(p.Concurrency, 1); i >= n {
			args = append(args, "--dependency=afterany:"+jobs[i-n])
		}
		job, err := c.Submit(ctx, append(args, script)...)
		if err != nil {
			return jobs, err
		}
		jobs = append(jobs, job)
		rec, err := runs.Read(runs.Path(runsDir, id))
		if err != nil {
			return jobs, err
		}
		rec.JobID = job
		if err := runs.Write(runsDir, rec); err != nil {
			return jobs, err
		}
	}
	return jobs, nil
}

// holdTo records the approval a run is held to.
func holdTo(runsDir, id, approval string) error {
	rec, err := runs.Read(runs.Path(runsDir, id))
	if err != nil {
		return err
	}
	rec.Held = &runs.Held{Approval: approval}
	return runs.Write(runsDir, rec)
}

// Refresh fills in, from the scheduler, how Slurm runs without a recorded
// end have fared: start, end and exit of jobs that ended, and TIMEOUT as a
// stop at the wall-clock budget. It changes the records in memory only; a
// job the controller no longer knows is left as it is (charged its whole
// allowance).
func Refresh(ctx context.Context, c *slurm.Client, recs []runs.Record) {
	for i := range recs {
		r := &recs[i]
		if r.Backend != runs.Slurm || r.Ended() || r.JobID == "" {
			continue
		}
		j, err := c.Job(ctx, r.JobID)
		if err != nil {
			continue
		}
		ApplyJob(r, j)
	}
}

// ApplyJob records what the scheduler says about a run's job.
func ApplyJob(r *runs.Record, j slurm.Job) {
	start := j.Began()
	if !start.IsZero() {
		r.StartedAt = start.UTC().Format(time.RFC3339)
	}
	if !j.Ended() {
		return
	}
	end := j.Finished()
	if end.Before(start) {
		end = start
	}
	if end.IsZero() {
		// Cancelled before it started: it used nothing.
		end, _ = time.Parse(time.RFC3339, r.StartedAt)
	}
	r.EndedAt = end.UTC().Format(time.RFC3339)
	switch {
	case j.State == "TIMEOUT":
		r.StoppedBy = runs.StoppedBudget
		r.Note = fmt.Sprintf("Slurm stopped job %s at its time limit %s", j.ID, j.TimeLimit)
	case j.State == "CANCELLED":
		r.StoppedBy = "user"
		r.Note = fmt.Sprintf("Slurm job %s was cancelled", j.ID)
	case j.State != "COMPLETED" && j.State != "FAILED":
		r.Note = fmt.Sprintf("Slurm job %s ended %s (%s)", j.ID, j.State, j.Reason)
	}
	if j.Signal != 0 {
		r.Signal = fmt.Sprintf("signal %d", j.Signal)
	} else {
		code := j.Exit
		r.Exit = &code
	}
}
