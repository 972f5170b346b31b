package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rlxp/rlxp/internal/cli"
)

// TestMain runs the scripts' "rlxp guard" as rlxp-guard, and every other
// rlxp command line (setting up repositories) as rlxp.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"rlxp": func() {
			if len(os.Args) == 2 && os.Args[1] == "guard" {
				os.Args = os.Args[:1]
				os.Exit(run())
			}
			os.Exit(cli.Main(os.Args[1:], cli.SystemEnv("test")))
		},
	})
}

// TestGuardScripts: rlxp's guard scripts pass with rlxp-guard as the hook.
func TestGuardScripts(t *testing.T) {
	files, err := filepath.Glob("../rlxp/testdata/script/guard_*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no guard scripts: %v", err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Files:               files,
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			env.Setenv("USER", "tester")
			env.Setenv("REPO", repo)
			env.Setenv("FIXTURES", filepath.Join(repo, "cmd", "rlxp", "testdata", "fixtures"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"code": exitCode},
	})
}

// exitCode is rlxp's scripts' "code N command [args...]": the command
// exits with status N.
func exitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: code N command [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("code: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("code: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
