package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rlxp/rlxp/internal/cli"
	"github.com/rlxp/rlxp/internal/repotest"
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
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"code": repotest.ExitCode},
	})
}
