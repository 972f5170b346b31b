package builtin

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
)

// The example repository's train command, as its drafted adapter fills it.
const exampleCommand = "bash scripts/run.sh train configs/baseline.json --seed 0 --out runs/lr01/seed0 --set lr=0.01 && " +
	"bash scripts/run.sh eval runs/lr01/seed0/policy.json --episodes 20 --seed-base 10000 --out runs/lr01/seed0"

func exampleInput(b *testing.B) Input {
	root, err := filepath.Abs("../../../examples/cartpole")
	if err != nil {
		b.Fatal(err)
	}
	return Input{Root: root, Command: exampleCommand, Seed: 0, RunDir: "runs/lr01/seed0", Python: "python3",
		Config: "configs/baseline.json", Override: "--set {name}={value}", HeldOut: []int{10000, 10001, 10002}, Live: true}
}

// BenchmarkExample is the whole built-in preflight of the example, as check
// runs it; compare with BenchmarkInterpreterStart, the part that is the
// interpreter's own start.
func BenchmarkExample(b *testing.B) {
	in := exampleInput(b)
	for b.Loop() {
		r, err := Run(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		if n := r.Count("FATAL"); n > 0 {
			b.Fatalf("%d FATAL: %v", n, r.Messages("FATAL"))
		}
	}
}

func BenchmarkInterpreterStart(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("python3", "-c", "pass").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
