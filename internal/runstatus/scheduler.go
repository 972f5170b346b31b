package runstatus

import (
	"context"
	"errors"
	"fmt"

	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/slurm"
)

// Scheduler answers diagnose's questions about Slurm jobs with scontrol.
func Scheduler(c *slurm.Client) diagnose.Scheduler { return slurmScheduler{c} }

type slurmScheduler struct{ c *slurm.Client }

func (s slurmScheduler) Job(ctx context.Context, id string) (diagnose.Job, error) {
	j, err := s.c.Job(ctx, id)
	if errors.Is(err, slurm.ErrUnknownJob) {
		return diagnose.Job{ID: id}, fmt.Errorf("%w: %v", diagnose.ErrNoJob, err)
	}
	if err != nil {
		return diagnose.Job{ID: id}, err
	}
	return diagnose.Job{ID: j.ID, State: j.State, ExitCode: j.Exit, Reason: j.Reason, Node: j.Nodes, StartTime: j.Began(), EndTime: j.Finished()}, nil
}
