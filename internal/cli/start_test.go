package cli

import (
	"testing"
)

// BenchmarkContractStatus is the work of 'rlxp contract status --json'
// after the process has started: the command table, the contract, the
// approvals log, the adapter and the experiments (see scripts/bench-guard.sh
// for the whole process against an empty Go binary).
func BenchmarkContractStatus(b *testing.B) {
	dir := initFixture(b)
	env, _, errb := testEnv(b, dir, "", false)
	if code := Main([]string{"contract", "approve", "--all", "--yes", "--by", "bench"}, env); code != 0 {
		b.Fatalf("approve: exit %d: %s", code, errb)
	}
	for b.Loop() {
		env, out, errb := testEnv(b, dir, "", false)
		if code := Main([]string{"contract", "status", "--json"}, env); code != 0 || out.Len() == 0 {
			b.Fatalf("contract status: exit %d: %s", code, errb)
		}
	}
}
