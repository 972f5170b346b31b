package check

// Manual is the check command's help: the layers of its table, what
// blocks, and its exit statuses.
const Manual = `Check answers "is it safe to run right now?" in one table of three layers:

  gate       the contract and the experiment (see 'rlxp gate')
  preflight  the repo's own validation: adapter.yaml commands.preflight, with
             {config} {seed} {run_dir} {params} {experiment} filled in; its
             ✓/⚠/✗/⊘ lines are read, and a non-zero exit without a FATAL line
             means the runner died before its preflight. Without one, rlxp's
             own ('rlxp preflight'): options nobody reads, missing paths, an
             unwritable run dir, held-out seeds, GPU counts
  live       GPUs the contract needs and who holds them (another user's
             process is a blocker), declared ports, disk and /dev/shm
             headroom, declared imports in the declared interpreter

Blockers: gate closed, FATAL, runner died, a run in flight or a trainer
of this repo outside rlxp, foreign GPU process, no GPUs visible when the
contract needs some, fewer free GPUs than a run needs (a GPU another
process holds is not free unless the contract's hardware.share_gpus is
true), port in use, missing import. Launch pins the free GPUs found here.
Warnings never flip the answer, and there is no flag that does.

EXIT STATUS
  0  SAFE TO RUN: YES
  1  a state file is missing or malformed, or no such experiment
  2  usage error
  3  SAFE TO RUN: NO`
