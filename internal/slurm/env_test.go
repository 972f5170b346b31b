package slurm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestClientEnv: the variables sbatch takes as options never reach it;
// nor those that make the job script's bash run other code; the
// controller's address and everything else do.
func TestClientEnv(t *testing.T) {
	got := clientEnv([]string{"SLURM_CONF=/etc/slurm.conf", "SBATCH_TIMELIMIT=99:00:00", "SBATCH_GRES=gpu:8", "PATH=/bin", "MY_SBATCH_X=1", "BASH_ENV=/tmp/evil.sh", "BASH_FUNC_python%%=() { :; }"})
	want := []string{"SLURM_CONF=/etc/slurm.conf", "PATH=/bin", "MY_SBATCH_X=1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("clientEnv (-want +got):\n%s", diff)
	}
}
