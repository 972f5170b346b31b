package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/audit"
	"github.com/rlxp/rlxp/internal/state"
)

type auditOptions struct {
	root    string
	write   bool
	json    bool
	observe string
}

func newAuditCmd() *Command {
	var o auditOptions
	fs := pflag.NewFlagSet("audit", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.BoolVar(&o.write, "write", false, "draft .rlxp/adapter.yaml from the findings (after 'rlxp init'), filling only empty fields, and print the diff")
	fs.StringVar(&o.observe, "observe", "", "after a first run: read what the run in `RUN_DIR` wrote and confirm or correct adapter.yaml's metric sources and tags")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp audit [--root DIR] [--write] [--observe RUN_DIR] [--json]",
		Short:     "scan an RL repository for frameworks, entry points, configs and metric tags",
		Long: `Audit reads the target repository (--root, default the current directory)
and runs nothing from it. It reports the RL frameworks in use, the
commands that train and evaluate, the config system and main config
files, the logging backends and the metric tags the code logs, where runs
write, launchers, simulators and hardware hints. Every finding cites
file:line and says how sure it is (high, medium, low); what is guessed
says so. From these it proposes metric candidates (held-out evaluation
first; training reward is flagged as such), guardrail candidates, the
budget questions a person must answer, and a draft of adapter.yaml.

The walk honours .gitignore files at every level and skips vendored code
(vendor/, third_party/, node_modules/, virtualenvs, a copy of a known RL
library), run outputs (wandb/, mlruns/), binary files and files over
1 MiB; the report counts what it skipped and why.

--write merges the draft into .rlxp/adapter.yaml, which 'rlxp init'
creates: it fills only fields that are missing, empty or still the
template's, keeps everything a person wrote (values, comments, order),
checks that the result reads back, and prints a unified diff of what it
changed. With --json the diff is in the object's write field. Metric
sources it drafts list the tags the code writes there as guessed.

--observe RUN_DIR, after a short first run, reads what that run wrote
(the metric readers of 'rlxp metrics') where adapter.yaml's sources say
and confirms or corrects each: the file (the one file of that name and
format the run wrote elsewhere, when the declared one is absent), its tags with
their points, and metric files no source declares. Confirmed and
corrected sources are rewritten with the observed tags and no longer
marked guessed; a source the run did not write stays as it was.

EXIT STATUS
  0  found an RL framework
  1  error: the root is missing, or adapter.yaml is malformed or missing
  2  usage error
  3  no RL framework recognised ("unknown"); the rest is still reported;
     with --observe: the run wrote no metric file
  4  locked: another rlxp process holds .rlxp/.lock (with --write)`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runAudit(ctx, env, &o, args)
		},
	}
}

// auditWrite is what --write did.
type auditWrite struct {
	Path   string   `json:"path"`
	Filled []string `json:"filled"`
	Diff   string   `json:"diff"`
}

type auditResult struct {
	*audit.Report
	Write *auditWrite `json:"write,omitempty"`
}

func runAudit(ctx context.Context, env *Env, o *auditOptions, args []string) error {
	if len(args) > 0 {
		return usagef("audit takes no arguments (use --root DIR)")
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	if o.observe != "" {
		if o.write {
			return usagef("--observe and --write do not go together (observe after the first run)")
		}
		return runAuditObserve(env, r, o)
	}
	rep, err := audit.Run(ctx, r.Root, audit.Options{})
	if err != nil {
		return err
	}
	rep.Root = r.Display(".")
	res := auditResult{Report: rep}
	if o.write {
		if res.Write, err = writeAdapterDraft(env, r, rep.Adapter); err != nil {
			return err
		}
	}
	if o.json {
		if err := writeJSON(env.Stdout, res); err != nil {
			return err
		}
	} else {
		printAudit(env, rep)
		if res.Write != nil {
			printAuditWrite(env, res.Write)
		}
	}
	if rep.Unknown() {
		return errNegative
	}
	return nil
}

// writeAdapterDraft merges the draft into adapter.yaml under the state
// lock; an unchanged file is not rewritten.
func writeAdapterDraft(env *Env, r *state.Repo, d audit.Draft) (*auditWrite, error) {
	// Without .rlxp there is no lock file either: say how to create it.
	if _, err := r.Read(state.Adapter); err != nil {
		return nil, err
	}
	lock, err := lockRepo(env, r)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	old, err := r.Read(state.Adapter)
	if err != nil {
		return nil, err
	}
	show := r.Show(state.Adapter)
	merged, filled, err := audit.Fill(show, old, d)
	if err != nil {
		return nil, err
	}
	w := &auditWrite{Path: show, Filled: filled}
	if filled == nil {
		w.Filled = []string{}
	}
	if bytes.Equal(old, merged) {
		return w, nil
	}
	if err := state.WriteFile(r.Path(state.Adapter), merged, 0o644); err != nil {
		return nil, err
	}
	w.Diff = string(diff.Diff("a/"+show, old, "b/"+show, merged))
	return w, nil
}

// section prints one part of the report: a title and an aligned table on
// a terminal; when piped, TSV rows that start with the section's key, so
// that scripts can grep and cut them.
func section(env *Env, title, key string, header []string, rows [][]string) {
	if len(rows) == 0 {
		if env.StdoutTTY {
			fmt.Fprintf(env.Stdout, "\n%s\n  (none found)\n", title)
		}
		return
	}
	if env.StdoutTTY {
		fmt.Fprintf(env.Stdout, "\n%s\n", title)
		header[0] = "  " + header[0]
		for _, r := range rows {
			r[0] = "  " + r[0]
		}
		printTable(env, header, rows)
		return
	}
	for _, r := range rows {
		printTable(env, nil, [][]string{append([]string{key}, r...)})
	}
}

// evidenceCell shows up to two pieces of evidence.
func evidenceCell(ev []audit.Evidence) string {
	var parts []string
	for i, e := range ev {
		if i == 2 {
			parts = append(parts, fmt.Sprintf("+%d", len(ev)-2))
			break
		}
		parts = append(parts, e.String())
	}
	return strings.Join(parts, " ")
}

func findingRows(fs []audit.Finding, withKind bool) [][]string {
	rows := make([][]string, 0, len(fs))
	for _, f := range fs {
		name := f.Name
		if f.Detail != "" && f.Kind != "generic" && len(f.Detail) < 60 {
			name += " (" + f.Detail + ")"
		}
		r := []string{name, string(f.Confidence), evidenceCell(f.Evidence)}
		if withKind {
			r = append([]string{f.Kind}, r...)
		}
		rows = append(rows, r)
	}
	return rows
}

// maxRows bounds a long section on a terminal; --json has everything.
const maxRows = 40

// longSection is section for a list that may run long: on a terminal it
// shows the first maxRows rows and says how many more there are.
func longSection(env *Env, title, key, what string, header []string, rows [][]string) {
	more := 0
	if env.StdoutTTY && len(rows) > maxRows {
		more, rows = len(rows)-maxRows, rows[:maxRows]
	}
	section(env, title, key, header, rows)
	if more > 0 {
		fmt.Fprintf(env.Stdout, "  ... %d more %s (see --json)\n", more, what)
	}
}

func printAudit(env *Env, rep *audit.Report) {
	var skipped []string
	for _, k := range sortedMapKeys(rep.Files.Skipped) {
		skipped = append(skipped, fmt.Sprintf("%d %s", rep.Files.Skipped[k], k))
	}
	summary := fmt.Sprintf("%d files listed, %d read", rep.Files.Listed, rep.Files.Scanned)
	if len(skipped) > 0 {
		summary += "; skipped: " + strings.Join(skipped, ", ")
	}
	if env.StdoutTTY {
		fmt.Fprintf(env.Stdout, "RL audit of %s (nothing was run)\n%s\n", rep.Root, summary)
	} else {
		printTable(env, nil, [][]string{{"files", summary}})
	}
	var dirs [][]string
	for _, d := range rep.Files.SkippedDirs {
		if d.Reason != "gitignored" {
			dirs = append(dirs, []string{d.Path, d.Reason})
		}
	}
	if len(dirs) > 0 {
		longSection(env, "SKIPPED DIRECTORIES", "skipped", "directories", []string{"PATH", "WHY"}, dirs)
	}

	section(env, "FRAMEWORKS", "framework", []string{"FRAMEWORK", "CONFIDENCE", "EVIDENCE"}, findingRows(rep.Frameworks, false))

	var eps [][]string
	for _, e := range rep.EntryPoints {
		cmd := e.Command
		if e.Usage != "" && e.Usage != e.Command {
			cmd += "  — e.g. " + e.Usage
		}
		eps = append(eps, []string{e.Kind, cmd, string(e.Confidence), evidenceCell(e.Evidence)})
	}
	longSection(env, "ENTRY POINTS", "entry", "entry points", []string{"KIND", "COMMAND", "CONFIDENCE", "EVIDENCE"}, eps)
	longSection(env, "CONFIG", "config", "config findings", []string{"KIND", "WHAT", "CONFIDENCE", "EVIDENCE"}, findingRows(rep.Config, true))
	section(env, "LOGGING", "logging", []string{"BACKEND", "CONFIDENCE", "EVIDENCE"}, findingRows(rep.Logging, false))

	var tags [][]string
	for _, t := range rep.Tags {
		tags = append(tags, []string{t.Tag, t.Role, t.Backend, dash(t.Output), string(t.Confidence), evidenceCell(t.Evidence)})
	}
	longSection(env, "METRIC TAGS", "tag", "tags", []string{"TAG", "ROLE", "BACKEND", "WRITTEN TO", "CONFIDENCE", "EVIDENCE"}, tags)

	var outs [][]string
	for _, o := range rep.Outputs {
		outs = append(outs, []string{o.Path, o.Kind, dash(o.Format), dash(o.Role), string(o.Confidence), evidenceCell(o.Evidence)})
	}
	longSection(env, "OUTPUTS", "output", "outputs", []string{"PATH", "KIND", "FORMAT", "ROLE", "CONFIDENCE", "EVIDENCE"}, outs)
	section(env, "LAUNCHERS", "launcher", []string{"LAUNCHER", "CONFIDENCE", "EVIDENCE"}, findingRows(rep.Launchers, false))
	longSection(env, "SIMULATORS AND ENVIRONMENTS", "simulator", "environments", []string{"KIND", "WHAT", "CONFIDENCE", "EVIDENCE"}, findingRows(rep.Simulators, true))
	var hw [][]string
	for _, h := range rep.Hardware {
		hw = append(hw, []string{h.Name, dash(h.Detail), string(h.Confidence), evidenceCell(h.Evidence)})
	}
	section(env, "HARDWARE HINTS", "hardware", []string{"HINT", "VALUE", "CONFIDENCE", "EVIDENCE"}, hw)

	longSection(env, "METRIC CANDIDATES (held-out evaluation first)", "candidate", "candidates", []string{"TAG", "ROLE", "SOURCE", "GOAL", "CONFIDENCE", "NOTE"},
		candidateRows(rep.MetricCandidates))
	longSection(env, "GUARDRAIL CANDIDATES", "guardrail", "candidates", []string{"TAG", "KIND", "SOURCE", "GOAL", "CONFIDENCE", "NOTE"},
		candidateRows(rep.Guardrails))

	var ps [][]string
	for _, p := range rep.Scope {
		ps = append(ps, []string{p.Name, p.Value, p.From, evidenceCell(p.Evidence)})
	}
	longSection(env, "TUNING SCOPE CANDIDATES (defaults; a person sets the ranges)", "scope", "parameters", []string{"NAME", "DEFAULT", "FROM", "EVIDENCE"}, ps)

	var qs [][]string
	for i, q := range rep.Questions {
		text := q.Question
		if len(q.Hints) > 0 {
			text += " — repo: " + strings.Join(q.Hints, "; ")
		}
		qs = append(qs, []string{strconv.Itoa(i+1) + ".", q.ID, text})
	}
	section(env, "BUDGET QUESTIONS (a person answers these)", "question", []string{"#", "ID", "QUESTION"}, qs)
	var gs [][]string
	for _, g := range rep.Guesses {
		gs = append(gs, []string{g})
	}
	section(env, "GUESSES", "guess", []string{"NOTE"}, gs)
	section(env, "ADAPTER DRAFT (rlxp audit --write fills .rlxp/adapter.yaml)", "adapter", []string{"FIELD", "VALUE"}, draftRows(rep.Adapter))
}

func candidateRows(cs []audit.Candidate) [][]string {
	var rows [][]string
	for _, c := range cs {
		note := c.Note
		if c.Guessed {
			note = "GUESS: " + note
		}
		rows = append(rows, []string{c.Tag, c.Role, dash(c.Source), dash(c.Goal), string(c.Confidence), note})
	}
	return rows
}

func draftRows(d audit.Draft) [][]string {
	var rows [][]string
	for _, k := range []string{"train", "eval", "preflight"} {
		if v := d.Commands[k]; v != "" {
			rows = append(rows, []string{"commands." + k, v})
		}
	}
	for _, kv := range [][2]string{{"system", d.Config.System}, {"default", d.Config.Default}, {"override", d.Config.Override}} {
		if kv[1] != "" {
			rows = append(rows, []string{"config." + kv[0], kv[1]})
		}
	}
	for _, name := range sortedMapKeys(d.Sources) {
		s := d.Sources[name]
		rows = append(rows, []string{"metrics.sources." + name, s.Path + " (" + s.Format + ")"})
	}
	if len(d.Imports) > 0 {
		rows = append(rows, []string{"runtime.imports", strings.Join(d.Imports, ", ")})
	}
	return rows
}

func printAuditWrite(env *Env, w *auditWrite) {
	if w.Diff == "" {
		fmt.Fprintf(env.Stdout, "\n%s: nothing to fill; every drafted field is already set\n", w.Path)
		return
	}
	fmt.Fprintf(env.Stdout, "\nfilled %s in %s:\n%s", strings.Join(w.Filled, ", "), w.Path, w.Diff)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func sortedMapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// auditObserved is audit --observe's answer.
type auditObserved struct {
	Schema       string              `json:"schema"`
	RunDir       string              `json:"run_dir"`
	Observations []audit.Observation `json:"observations"`
	Write        *auditWrite         `json:"write,omitempty"`
}

func runAuditObserve(env *Env, r *state.Repo, o *auditOptions) error {
	runDir := o.observe
	if !filepath.IsAbs(runDir) {
		runDir = filepath.Join(env.Dir, runDir)
	}
	if st, err := os.Stat(runDir); err != nil || !st.IsDir() {
		return fmt.Errorf("--observe %s: not a run directory", o.observe)
	}
	if _, err := r.Read(state.Adapter); err != nil {
		return err
	}
	lock, err := lockRepo(env, r)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	old, err := r.Read(state.Adapter)
	if err != nil {
		return err
	}
	show := r.Show(state.Adapter)
	ad, err := adapter.Parse(show, old)
	if err != nil {
		return err
	}
	obs, err := audit.Observe(runDir, ad.Metrics.Sources)
	if err != nil {
		return err
	}
	for i := range obs {
		if obs[i].File != "" {
			obs[i].File = shownPath(r, obs[i].File)
		}
	}
	res := auditObserved{Schema: audit.Schema, RunDir: shownPath(r, runDir), Observations: obs}
	if res.Observations == nil {
		res.Observations = []audit.Observation{}
	}
	merged, filled, err := audit.Observed(show, old, obs)
	if err != nil {
		return err
	}
	w := &auditWrite{Path: show, Filled: filled}
	if w.Filled == nil {
		w.Filled = []string{}
	}
	if !bytes.Equal(old, merged) {
		if err := state.WriteFile(r.Path(state.Adapter), merged, 0o644); err != nil {
			return err
		}
		w.Diff = string(diff.Diff("a/"+show, old, "b/"+show, merged))
	}
	res.Write = w
	if o.json {
		if err := writeJSON(env.Stdout, res); err != nil {
			return err
		}
	} else {
		for _, ob := range obs {
			var points int64
			for _, t := range ob.Tags {
				points += t.Points
			}
			fmt.Fprintf(env.Stdout, "source\t%s\t%s\t%s\t%d tags, %d points\n", ob.Source, ob.Status, orDash(ob.File), len(ob.Tags), points)
			if ob.Path != ob.Declared && ob.Declared != "" {
				fmt.Fprintf(env.Stdout, "path\t%s\t%s -> %s\n", ob.Source, ob.Declared, ob.Path)
			}
			for _, t := range ob.Confirmed {
				fmt.Fprintf(env.Stdout, "tag\t%s\t%s\tconfirmed\n", ob.Source, t)
			}
			for _, t := range ob.Missing {
				fmt.Fprintf(env.Stdout, "tag\t%s\t%s\tnot written\n", ob.Source, t)
			}
			for _, t := range ob.Added {
				fmt.Fprintf(env.Stdout, "tag\t%s\t%s\tobserved\n", ob.Source, t)
			}
			if ob.Error != "" {
				fmt.Fprintf(env.Stdout, "error\t%s\t%s\n", ob.Source, ob.Error)
			}
		}
		printAuditWrite(env, w)
	}
	for _, ob := range obs {
		if ob.Status != audit.ObsMissing {
			return nil
		}
	}
	fmt.Fprintf(env.Stderr, "rlxp: the run in %s wrote no metric file\n", shownPath(r, runDir))
	return errNegative
}

// shownPath is a path as the person named it: under the repository,
// relative to how they named the root.
func shownPath(r *state.Repo, p string) string {
	if rel, err := filepath.Rel(r.Root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return r.Display(rel)
	}
	return p
}
