package guard

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCommands: the simple commands a runner script runs, wrappers and
// nested shells peeled off, as the audit reads them.
func TestCommands(t *testing.T) {
	src := `set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ -n "$DRY" ]; then echo dry; fi
CUDA_VISIBLE_DEVICES=0 nohup python3 -m verl.trainer.main_ppo trainer.n_gpus_per_node=8 "$@" &
bash -c 'torchrun --nproc_per_node=2 train.py --lr 3e-4'
`
	var got []string
	for _, c := range Commands(src) {
		got = append(got, c.Argv[0]+" | "+c.Env["CUDA_VISIBLE_DEVICES"])
	}
	want := []string{"set | ", "dirname | ", "cd | ", "pwd | ", "[ | ", "echo | ", "python3 | 0", "torchrun | "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
