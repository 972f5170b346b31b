package builtin

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/preflight"
)

// The help texts in testdata/help are the real output of the programs
// beside them (argparse under Python 3.11 and 3.13, click 8 and absl from
// Debian's python3-click and python3-absl), except tyro's, which is not
// packaged for Debian: that one is written in the format tyro's
// documentation shows.
var helpCases = []struct {
	file, prog, module, format string
	want                       []string
}{
	{"argparse-py3.11.txt", "argparse_prog.py", "argparse", "argparse", []string{"-h", "--help", "--config", "-e", "--epochs", "--learning-rate", "--lr", "--cuda", "--no-cuda", "--tags", "--a-very-long-option-name-that-wraps", "--fast", "--slow", "--env-id"}},
	{"argparse-py3.13.txt", "", "", "argparse", []string{"-h", "--help", "--config", "-e", "--epochs", "--learning-rate", "--lr", "--cuda", "--no-cuda", "--tags", "--a-very-long-option-name-that-wraps", "--fast", "--slow", "--env-id"}},
	{"click-8.txt", "click_prog.py", "click", "click", []string{"--config", "-e", "--epochs", "--lr", "--learning-rate", "--cuda", "--no-cuda", "--shout", "--name", "--help"}},
	{"absl-help.txt", "", "", "absl", []string{"--algo", "--config", "--cuda", "--nocuda", "--epochs", "--learning_rate", "--tags"}},
	{"absl-helpfull.txt", "absl_prog.py", "absl", "absl", []string{"--algo", "--config", "--cuda", "--nocuda", "--epochs", "--learning_rate", "--tags",
		"--help", "--nohelp", "--helpfull", "--nohelpfull", "--helpshort", "--nohelpshort", "--helpxml", "--nohelpxml", "--only_check_args", "--noonly_check_args",
		"--pdb", "--nopdb", "--pdb_post_mortem", "--nopdb_post_mortem", "--profile_file", "--run_with_pdb", "--norun_with_pdb", "--run_with_profiling", "--norun_with_profiling",
		"--use_cprofile_for_profiling", "--nouse_cprofile_for_profiling", "--alsologtostderr", "--noalsologtostderr", "--log_dir", "--logger_levels", "--logtostderr", "--nologtostderr",
		"--showprefixforinfo", "--noshowprefixforinfo", "--stderrthreshold", "--verbosity", "--flagfile", "--undefok"}},
	{"tyro-documented.txt", "", "", "tyro", []string{"-h", "--help", "--lr", "--epochs", "--cuda", "--no-cuda", "--env.id", "--env.num-envs"}},
}

func TestParseHelp(t *testing.T) {
	for _, tc := range helpCases {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata/help", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			opts, format := ParseHelp(string(data))
			if format != tc.format {
				t.Errorf("format = %q, want %q", format, tc.format)
			}
			if diff := cmp.Diff(tc.want, opts); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseHelpLive reads the help the programs print now, under the
// Debian interpreter that has their parser: a parser's new format shows
// here first.
func TestParseHelpLive(t *testing.T) {
	const py = "/usr/bin/python3"
	for _, tc := range helpCases {
		if tc.prog == "" {
			continue
		}
		t.Run(tc.prog, func(t *testing.T) {
			if err := exec.Command(py, "-c", "import "+tc.module).Run(); err != nil {
				t.Skipf("%s cannot import %s (Debian package python3-%s): %v", py, tc.module, tc.module, err)
			}
			flag := "--help"
			if tc.module == "absl" {
				flag = "--helpfull"
			}
			out, _ := exec.Command(py, filepath.Join("testdata/help", tc.prog), flag).Output()
			opts, format := ParseHelp(string(out))
			if format != tc.format {
				t.Errorf("format = %q, want %q\n%s", format, tc.format, out)
			}
			if diff := cmp.Diff(tc.want, opts); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseComposed(t *testing.T) {
	data, err := os.ReadFile("testdata/help/hydra-cfg-job.txt")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := ParseComposed(string(data))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"db", "db.driver", "db.pass", "db.user", "seed", "trainer", "trainer.epochs", "trainer.lr", "trainer.optim", "trainer.optim.betas", "trainer.optim.name"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "Error merging override x=1\nKey 'x' is not in struct", "- a\n- b\n"} {
		if _, err := ParseComposed(bad); err == nil {
			t.Errorf("ParseComposed(%q) = nil error", bad)
		}
	}
}

// TestAskHelp: options the parser definitions do not name (built at run
// time) are settled by the program's --help; a program that answers
// nothing falls back to the static reading and says why; a program that
// imports no parser is never run.
func TestAskHelp(t *testing.T) {
	dynamic := "import argparse\np = argparse.ArgumentParser()\nfor name in ('lr', 'epochs'):\n    p.add_argument('--' + name)\np.add_argument('--seed')\np.parse_args()\n"
	root := repo(t, map[string]string{
		"dynamic.py": dynamic,
		"slow.py":    "import argparse, time\ntime.sleep(30)\np = argparse.ArgumentParser()\np.add_argument('--seed')\n",
		"plain.py":   "import sys\nopen('ran', 'w').write(' '.join(sys.argv))\n",
		"nohelp.py":  "import argparse, sys\np = argparse.ArgumentParser(add_help=False)\np.add_argument('--seed')\np.parse_known_args()\nopen('ran', 'w').write(' '.join(sys.argv))\n",
	})
	for _, tc := range []struct {
		cmd     string
		timeout time.Duration
		want    []Finding
	}{
		{"python3 dynamic.py --seed 0 --lr 0.1", 0, []Finding{
			{Level: preflight.OK, Rule: "options", Message: "every option given to dynamic.py is one it reads (argparse, from its --help)"}}},
		{"python3 dynamic.py --seed 0 --epohcs 3", 0, []Finding{
			{Level: preflight.Fatal, Rule: "options", Message: "option --epohcs is not read by dynamic.py (closest accepted: --epochs; argparse, from its --help)"}}},
		{"python3 dynamic.py --seed 0 --epoch 3", 0, []Finding{
			{Level: preflight.Warn, Rule: "options", Message: "option --epoch is an abbreviation argparse expands to --epochs unless the parser sets allow_abbrev=False; spell it out"},
			{Level: preflight.OK, Rule: "options", Message: "every option given to dynamic.py is one it reads (argparse, from its --help)"}}},
		{"python3 slow.py --seed 0 --lr 0.1", 300 * time.Millisecond, []Finding{
			{Level: preflight.Fatal, Rule: "options", Message: "option --lr is not read by slow.py (closest accepted: --seed; argparse, read from its parser definitions; --help did not answer within 300ms)"}}},
		{"python3 nohelp.py --seed 0 --lr 0.1", 0, []Finding{
			{Level: preflight.Fatal, Rule: "options", Message: "option --lr is not read by nohelp.py (closest accepted: --seed; argparse, read from its parser definitions)"}}},
		{"python3 plain.py --lr 0.1", 0, []Finding{
			{Level: preflight.Skip, Rule: "options", Message: "plain.py defines no options rlxp can read (no argparse, click or absl definitions): its options are not checked"}}},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			start := time.Now()
			r, err := Run(context.Background(), Input{Root: root, Command: tc.cmd, Live: true, AskTimeout: tc.timeout})
			if err != nil {
				t.Fatal(err)
			}
			var got []Finding
			for _, f := range r.Findings {
				if f.Rule == "options" {
					got = append(got, f)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if strings.Contains(tc.cmd, "slow") && time.Since(start) > 10*time.Second {
				t.Errorf("the program that does not answer held the preflight %s", time.Since(start))
			}
		})
	}
	if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
		t.Error("a program that imports no parser, or whose parser does not answer --help, was run")
	}
	if entries, _ := filepath.Glob(filepath.Join(root, "__pycache__", "*")); len(entries) > 0 {
		t.Errorf("--help wrote bytecode: %v", entries)
	}
}

func FuzzParseHelp(f *testing.F) {
	files, _ := filepath.Glob("testdata/help/*.txt")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, text string) {
		opts, _ := ParseHelp(text)
		if slices.ContainsFunc(opts, func(o string) bool { return !strings.HasPrefix(o, "-") }) {
			t.Errorf("an option that does not start with -: %q", opts)
		}
		_, _ = ParseComposed(text)
	})
}
