// Package builtin is rlxp's own preflight, for repositories that have
// none: it reads the resolved train command, the program it starts and its
// config without running anything, and says in the preflight line format
// what would fail before a GPU is touched. Its rules are data; a profile
// adds the rules of a framework it knows.
package builtin

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/preflight"
)

// A Finding is one line of the preflight.
type Finding struct {
	Level   preflight.Level `json:"level"`
	Rule    string          `json:"rule"`
	Message string          `json:"message"`
}

// A Rule is one class of check: what it checks and why, and the check.
type Rule struct {
	ID     string
	Checks string
	Why    string
	Run    func(t *Target) []Finding
}

// A Profile adds the rules of a framework to the generic ones when it
// recognises the repository.
type Profile struct {
	Name    string
	Matches func(t *Target) bool
	Rules   []Rule
}

// Input is what the preflight reads: the resolved command of one seed and
// the approved contract's facts about it.
type Input struct {
	Root    string
	Command string
	Seed    int
	RunDir  string
	// Python is the declared interpreter (adapter runtime.python).
	Python string
	// Config is the config file the command is given (adapter config.default)
	// and Override how one parameter is passed ("--set {name}={value}").
	Config   string
	Override string
	// List passes parameters as items of one option (adapter config.list).
	List *adapter.List
	// HeldOut are the evaluation seeds a training run must not use.
	HeldOut []int
	// GPUsPerRun is the contract's GPUs per node and Nodes its nodes.
	GPUsPerRun int
	Nodes      int
	// Runs is how many runs are to launch, each writing a directory like
	// RunDir (0: one).
	Runs  int
	Ports []int
	// Live says the caller probes the machine itself (check's live rows),
	// so the preflight leaves ports alone.
	Live bool
	// Env is the environment the run would get.
	Env []string
	// AskTimeout bounds one run of a program for --help or --cfg job
	// (0: eight seconds).
	AskTimeout time.Duration
}

// A Target is the preflight's view of the run, shared by the rules.
type Target struct {
	Input
	Calls   []Call
	Entries []Entry
	// Programs are what reading each entry found, by script.
	Programs map[string]*Program
	// ConfigKeys are the dotted keys of the config file; nil when it could
	// not be read.
	ConfigKeys []string
	configErr  error
	// help and composed are, by entry, what the program said of itself
	// when asked (nil: not asked).
	help, composed []*Answer
}

// A Program is what the static reading of one entry point found.
type Program struct {
	Script   string   `json:"script"`
	Compiles bool     `json:"compiles"`
	Error    string   `json:"error"`
	Missing  []string `json:"missing"`
	Options  []string `json:"options"`
	Parsers  []string `json:"parsers"`
	Uses     []string `json:"uses"`
	// NoHelp says a parser of the program is built with add_help=False.
	NoHelp bool `json:"no_help"`
	// Single are the argparse options whose action keeps one value: given
	// twice, the first is dropped without a word.
	Single []string `json:"single"`
	Hydra  *struct {
		ConfigPath string `json:"config_path"`
		ConfigName string `json:"config_name"`
	} `json:"hydra"`
	readErr string
}

// Schema names the JSON form of a Report.
const Schema = "rlxp.preflight/v1"

// A Report is the preflight's outcome.
type Report struct {
	Schema string `json:"schema"`
	// Experiment names the experiment whose run was read, where the caller
	// says.
	Experiment string        `json:"experiment,omitempty"`
	Command    string        `json:"command"`
	Seed       int           `json:"seed"`
	Findings   []Finding     `json:"findings"`
	Duration   time.Duration `json:"duration_ns"`
}

// Count says how many findings have level l.
func (r Report) Count(l preflight.Level) int {
	n := 0
	for _, f := range r.Findings {
		if f.Level == l {
			n++
		}
	}
	return n
}

// Err is a preflight's failure: nil unless a finding is FATAL.
func (r Report) Err() error {
	if n := r.Count(preflight.Fatal); n > 0 {
		return fmt.Errorf("preflight of %s seed %d: %d FATAL", r.Experiment, r.Seed, n)
	}
	return nil
}

// Messages are the findings of level l.
func (r Report) Messages(l preflight.Level) []string {
	var m []string
	for _, f := range r.Findings {
		if f.Level == l {
			m = append(m, f.Message)
		}
	}
	return m
}

//go:embed entrypoints.py
var entrypointsPy string

// Run reads the run and applies the generic rules and those of every
// profile that matches.
func Run(ctx context.Context, in Input, profiles ...Profile) (Report, error) {
	start := time.Now()
	t := &Target{Input: in, Programs: map[string]*Program{}}
	calls, err := parseCommand(in.Command)
	if err != nil {
		return Report{}, fmt.Errorf("read the command %q: %w", in.Command, err)
	}
	t.Calls = calls
	for i := range t.Calls {
		if e, ok := entryOf(in.Root, &t.Calls[i]); ok || e.Runner != "" {
			t.Entries = append(t.Entries, e)
		}
	}
	t.readPrograms(ctx)
	t.readConfig()
	t.askPrograms(ctx)
	rules := Rules()
	for _, p := range profiles {
		if p.Matches(t) {
			rules = append(rules, p.Rules...)
		}
	}
	r := Report{Schema: Schema, Command: in.Command, Seed: in.Seed}
	for _, rule := range rules {
		for _, f := range rule.Run(t) {
			f.Rule = rule.ID
			r.Findings = append(r.Findings, f)
		}
	}
	r.Duration = time.Since(start)
	return r, nil
}

// readPrograms reads every entry point in one interpreter start.
func (t *Target) readPrograms(ctx context.Context) {
	byPython := map[string][]string{}
	for _, e := range t.Entries {
		if e.Script == "" {
			continue
		}
		py := t.Python
		if py == "" {
			py = e.Interpreter
		}
		if py == "" {
			py = "python3"
		}
		byPython[py] = append(byPython[py], filepath.Join(t.Root, e.Script))
	}
	for py, scripts := range byPython {
		req, _ := json.Marshal(map[string]any{"root": t.Root, "scripts": scripts})
		cmd := exec.CommandContext(ctx, py, "-c", entrypointsPy)
		cmd.Dir = t.Root
		cmd.Stdin = bytes.NewReader(req)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var progs []*Program
		if err == nil {
			err = json.Unmarshal(out, &progs)
		}
		if err != nil {
			msg := fmt.Sprintf("%s could not read the entry points: %v %s", py, err, lastLine(stderr.String()))
			for _, s := range scripts {
				t.Programs[s] = &Program{Script: s, readErr: strings.TrimSpace(msg)}
			}
			continue
		}
		for _, p := range progs {
			t.Programs[p.Script] = p
		}
	}
}

func (t *Target) program(e Entry) *Program {
	if e.Script == "" {
		return nil
	}
	return t.Programs[filepath.Join(t.Root, e.Script)]
}

// readConfig reads the config file's keys (JSON or YAML).
func (t *Target) readConfig() {
	if t.Config == "" {
		return
	}
	data, err := os.ReadFile(filepath.Join(t.Root, t.Config))
	if err != nil {
		t.configErr = err
		return
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.configErr = document.SyntaxError(t.Config, data, err)
		return
	}
	t.ConfigKeys = flatten("", v)
}

// flatten lists the dotted keys of a config tree, parents included.
func flatten(prefix string, v any) []string {
	var keys []string
	switch m := v.(type) {
	case map[string]any:
		for k, sub := range m {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			keys = append(keys, key)
			keys = append(keys, flatten(key, sub)...)
		}
	}
	sort.Strings(keys)
	return keys
}

// WriteLines writes the report in the preflight line format: OK and SKIP
// to stdout, WARN and FATAL to stderr, then the summary.
func (r Report) WriteLines(stdout, stderr io.Writer) {
	var out, errs strings.Builder
	out.WriteString("───────────── rlxp preflight ─────────────\n")
	for _, f := range r.Findings {
		line := fmt.Sprintf("  %s %-6s %s\n", glyph(f.Level), f.Level, f.Message)
		if f.Level == preflight.Warn || f.Level == preflight.Fatal {
			errs.WriteString(line)
		} else {
			out.WriteString(line)
		}
	}
	fatal, warn := r.Count(preflight.Fatal), r.Count(preflight.Warn)
	if fatal > 0 {
		fmt.Fprintf(&errs, "[preflight] %d FATAL, %d WARN — refusing to start. Fix the ✗ items above.\n", fatal, warn)
	} else {
		fmt.Fprintf(&out, "[preflight] all fatal checks passed (%d WARN).\n", warn)
	}
	io.WriteString(stdout, out.String())
	io.WriteString(stderr, errs.String())
}

// Manual is the preflight command's help: how programs are read, the
// rules (from their data) and its exit statuses.
func Manual() string {
	return `Preflight reads the experiment's resolved train command (adapter.yaml
commands.train for one seed), the Python program it starts and its config,
without writing, and prints one line per check in the preflight format:

  ✓ OK / ⚠ WARN / ✗ FATAL / ⊘ SKIP  message

Confirmed wrong is FATAL; suspicious is WARN; what cannot be told is SKIP.
Programs are read, not run, with two exceptions that import the program
(its import-time code runs) but never its work: --help, only when the
parser definitions do not name an option of the command and the program
imports a parser that answers it (argparse, click, typer, absl, tyro; none
built with add_help=False), and Hydra's --cfg job when Hydra is
importable; each with no GPU (CUDA_VISIBLE_DEVICES empty), W&B disabled,
stdin empty, no bytecode written, killed after 8 s. Rows say which source
they used. A command run through a project runner (uv run, poetry run,
conda run ...) or a console script the repository's pyproject.toml or
setup.py declares is read as the program it starts.

Before the baseline is recorded in experiments.yaml, 'rlxp preflight
baseline' (the contract's baseline.experiment) reads the adapter's train
command with no parameter changes, on seed 0 or --seed: a drafted
adapter is checked before anything is approved. The checks:

` + describe() + `
'rlxp check' runs these when adapter.yaml declares no commands.preflight.

EXIT STATUS
  0  no FATAL
  1  a FATAL (as a repo's own preflight exits), or a state file is missing
     or malformed, or no such experiment
  2  usage error`
}

// describe lists the rules, the generic ones and then each profile's, with
// what each checks, wrapped to fit a terminal.
func describe() string {
	var b strings.Builder
	row := func(id, text string) {
		line := fmt.Sprintf("  %-14s", id)
		for _, w := range strings.Fields(text) {
			switch {
			case len(line)+1+len(w) > 78:
				b.WriteString(line + "\n")
				line = strings.Repeat(" ", 16) + w
			case strings.HasSuffix(line, " "):
				line += w
			default:
				line += " " + w
			}
		}
		b.WriteString(line + "\n")
	}
	for _, r := range Rules() {
		row(r.ID, r.Checks)
	}
	for _, p := range Profiles() {
		fmt.Fprintf(&b, "\nand where the repository uses %s:\n\n", p.Name)
		for _, r := range p.Rules {
			row(r.ID, r.Checks)
		}
	}
	return b.String()
}

// glyph marks a finding's level in the text report.
func glyph(l preflight.Level) string {
	switch l {
	case preflight.OK:
		return "✓"
	case preflight.Warn:
		return "⚠"
	case preflight.Fatal:
		return "✗"
	case preflight.Skip:
		return "⊘"
	}
	return ""
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}
