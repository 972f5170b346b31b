package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/cli"
	"github.com/rlxp/rlxp/internal/guard"
)

// TestReadsAsRlxp: rlxp-guard reads every command line as rlxp does: each
// command and subcommand, alone and with help, each of its flags in every
// spelling with a good, a bad and a missing value, unknown flags, flags
// before a subcommand and after "--".
func TestReadsAsRlxp(t *testing.T) {
	good := map[string]string{"bool": "false", "string": "v", "int": "3", "duration": "5m", "intSlice": "1,2", "stringArray": "a,b"}
	var lines [][]string
	var walk func(path []string, c *guard.CommandSpec)
	walk = func(path []string, c *guard.CommandSpec) {
		with := func(words ...string) {
			lines = append(lines, append(append([]string{}, path...), words...))
		}
		with()
		with("--help")
		with("-h")
		with("--no-such-flag")
		with("--root", "x")
		with("exp-1", "--", "--confirm", "sha256:00")
		for _, f := range c.Flags {
			name := "--" + f.Name
			with(name)
			with(name, "exp-1")
			with(name+"="+good[f.Type], "exp-1")
			with(name, good[f.Type], "exp-1")
			with(name + "=not a value")
			with("exp-1", name, "--version")
			if f.Shorthand != "" {
				with("-"+f.Shorthand, good[f.Type])
				with("-" + f.Shorthand)
			}
		}
		for i := range c.Commands {
			walk(append(append([]string{}, path...), c.Commands[i].Name), &c.Commands[i])
		}
	}
	walk(nil, rlxp)
	lines = append(lines, []string{}, []string{"help", "contract", "approve"}, []string{"--version"}, []string{"contract", "--by", "x", "approve"}, []string{"nonsense"})
	if len(lines) < 200 {
		t.Fatalf("only %d command lines: is commands.go empty?", len(lines))
	}
	for _, args := range lines {
		if diff := cmp.Diff(cli.ReadArgv(args), rlxp.Read(args)); diff != "" {
			t.Errorf("rlxp %q (-rlxp +rlxp-guard):\n%s", args, diff)
		}
	}
}

// BenchmarkRead: reading an rlxp command line, as the hook does for each
// one it meets, from the generated table and from rlxp's own.
func BenchmarkRead(b *testing.B) {
	args := []string{"launch", "exp-1", "--confirm", "sha256:0f3c"}
	b.Run("rlxp-guard", func(b *testing.B) {
		for b.Loop() {
			if rlxp.Read(args).Command != "launch" {
				b.Fatal("not read as launch")
			}
		}
	})
	b.Run("rlxp", func(b *testing.B) {
		for b.Loop() {
			if cli.ReadArgv(args).Command != "launch" {
				b.Fatal("not read as launch")
			}
		}
	})
}
