package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/gocarina/gocsv"
	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/state"
)

func newLedgerCmd() *Command {
	return &Command{
		UsageLine: "rlxp ledger <subcommand>",
		Short:     "show, verify and diff the hash-chained results ledger",
		Long: `The ledger (.rlxp/ledger.jsonl) is the append-only record of scored
results: one JSON object per line, each carrying the hash of the line
before it, so that an edit, a deletion or a reordering anywhere breaks the
chain where it happened. 'rlxp score' appends to it; these commands only
read it, except 'verify --repair', which removes a torn last line that a
crash during an append left behind.`,
		Commands: []*Command{newLedgerShowCmd(), newLedgerVerifyCmd(), newLedgerDiffCmd()},
	}
}

type ledgerShowOptions struct {
	root       string
	json       bool
	csv        bool
	experiment string
}

func newLedgerShowCmd() *Command {
	var o ledgerShowOptions
	fs := pflag.NewFlagSet("show", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	fs.BoolVar(&o.csv, "csv", false, "print CSV with a header row instead of text")
	fs.StringVar(&o.experiment, "experiment", "", "show only the entries of experiment `ID`")
	return &Command{
		UsageLine: "rlxp ledger show [--root DIR] [--json] [--csv] [--experiment ID]",
		Short:     "list the scored results in the ledger",
		Long: `Show lists the ledger's entries: seq, time, experiment, run, primary
metric, its mean over seeds, the number of seeds, and the verdict. --json
prints the entries as written; --csv prints one row per entry with the
columns seq, time, experiment, run, metric, mean, std, n, ci_low, ci_high,
baseline_delta, p_value, verdict and hash, numbers exactly as recorded.

Only entries whose chain verifies are shown. When a line does not verify,
a warning names it and the entries before it are shown; 'rlxp ledger
verify' says more.

EXIT STATUS
  0  shown (an empty ledger shows no rows)
  1  the ledger is missing or unreadable
  2  usage error`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runLedgerShow(env, &o, args)
		},
	}
}

// ledgerCSVRow is one entry as a CSV row. Numbers are kept as recorded, and
// a value the entry lacks is an empty cell, never a zero.
type ledgerCSVRow struct {
	Seq           int64  `csv:"seq"`
	Time          string `csv:"time"`
	Experiment    string `csv:"experiment"`
	Run           string `csv:"run"`
	Metric        string `csv:"metric"`
	Mean          string `csv:"mean"`
	Std           string `csv:"std"`
	N             string `csv:"n"`
	CILow         string `csv:"ci_low"`
	CIHigh        string `csv:"ci_high"`
	BaselineDelta string `csv:"baseline_delta"`
	PValue        string `csv:"p_value"`
	Verdict       string `csv:"verdict"`
	Hash          string `csv:"hash"`
}

func runLedgerShow(env *Env, o *ledgerShowOptions, args []string) error {
	if len(args) > 0 {
		return usagef("show takes no arguments")
	}
	if o.json && o.csv {
		return usagef("--json and --csv exclude each other")
	}
	if o.experiment != "" {
		if _, err := argID(o.experiment); err != nil {
			return err
		}
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	data, err := r.Read(state.Ledger)
	if err != nil {
		return err
	}
	all, rep := ledger.Load(r.Show(state.Ledger), data)
	if rep.Problem != nil {
		warnf(env, "%s; showing the %d entries before it (run 'rlxp ledger verify')", rep.Problem, len(all))
	}
	entries := []ledger.Entry{}
	for _, e := range all {
		if o.experiment == "" || e.String("experiment") == o.experiment {
			entries = append(entries, e)
		}
	}
	switch {
	case o.json:
		return writeJSON(env.Stdout, struct {
			Schema  string         `json:"schema"`
			Entries []ledger.Entry `json:"entries"`
		}{"rlxp.ledger-show/v1", entries})
	case o.csv:
		rows := make([]ledgerCSVRow, len(entries))
		for i, e := range entries {
			rows[i] = ledgerCSV(e)
		}
		return gocsv.Marshal(rows, env.Stdout)
	}
	rows := [][]string{}
	for _, e := range entries {
		rows = append(rows, []string{
			strconv.FormatInt(e.Seq, 10), e.Time, ledgerOrDash(e.String("experiment")), ledgerOrDash(ledgerRun(e)),
			ledgerOrDash(e.String("primary", "name")), ledgerOrDash(e.Number("primary", "mean")),
			ledgerOrDash(e.Number("primary", "n")), ledgerVerdictCell(env, e.String("verdict")),
		})
	}
	printTable(env, []string{"SEQ", "TIME", "EXPERIMENT", "RUN", "METRIC", "MEAN", "N", "VERDICT"}, rows)
	return nil
}

func ledgerCSV(e ledger.Entry) ledgerCSVRow {
	row := ledgerCSVRow{
		Seq: e.Seq, Time: e.Time, Experiment: e.String("experiment"), Run: ledgerRun(e),
		Metric: e.String("primary", "name"), Mean: e.Number("primary", "mean"),
		Std: e.Number("primary", "std"), N: e.Number("primary", "n"),
		BaselineDelta: e.Number("baseline", "delta"), PValue: e.Number("baseline", "p_value"),
		Verdict: e.String("verdict"), Hash: e.Hash,
	}
	if v, ok := e.Lookup("primary", "ci95"); ok {
		if a, ok := v.([]any); ok && len(a) == 2 {
			row.CILow, _ = ledgerNumberText(a[0])
			row.CIHigh, _ = ledgerNumberText(a[1])
		}
	}
	return row
}

// ledgerRun is the run an entry scored: "run", or the per-seed "runs".
func ledgerRun(e ledger.Entry) string {
	if s := e.String("run"); s != "" {
		return s
	}
	v, _ := e.Lookup("runs")
	a, _ := v.([]any)
	var runs []string
	for _, x := range a {
		if s, ok := x.(string); ok && s != "" {
			runs = append(runs, s)
		}
	}
	return strings.Join(runs, ",")
}

func ledgerNumberText(v any) (string, bool) {
	n, ok := v.(interface{ String() string })
	if !ok {
		return "", false
	}
	return n.String(), true
}

func ledgerOrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func ledgerVerdictCell(env *Env, v string) string {
	switch v {
	case "":
		return "-"
	case "improved", "baseline":
		return env.paint(green, v)
	case "inconclusive":
		return env.paint(yellow, v)
	}
	return env.paint(red, v)
}

type ledgerVerifyOptions struct {
	root    string
	json    bool
	repair  bool
	sources bool
}

func newLedgerVerifyCmd() *Command {
	var o ledgerVerifyOptions
	fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	addJSONFlag(fs, &o.json)
	fs.BoolVar(&o.repair, "repair", false, "remove a torn last line left by a crash during an append (nothing else)")
	fs.BoolVar(&o.sources, "sources", false, "also hash every metric file the entries recorded and report each one changed or vanished")
	return &Command{
		UsageLine: "rlxp ledger verify [--root DIR] [--json] [--repair] [--sources]",
		Short:     "recompute the ledger's hash chain and name the first bad line",
		Long: `Verify recomputes the chain of .rlxp/ledger.jsonl: every line an entry,
seq counting up from 1 without gaps, each prev the hash of the line before,
and each hash that of its own content. It prints one line: the number of
entries when the chain holds, or the first line that fails as FILE:LINE and
what is wrong with it (an edited value, a missing or reordered entry).

A torn last line is what a crash during an append leaves: an incomplete
entry at the end of the file. --repair removes it (or adds the newline a
complete last entry lacks), rewriting the file atomically under the lock,
and says what it dropped. It repairs nothing else: a bad line before the
end is corruption or tampering; restore the ledger from version control.

--sources hashes again every metric file the entries recorded (each
once) and prints one line for each that changed or vanished since it was
scored, naming the entry, the seed and the file.

EXIT STATUS
  0  the chain verifies (with --repair: after removing a torn last line;
     with --sources: and every recorded source is unchanged)
  1  the ledger is missing or unreadable, or --repair refused damage that
     is not a torn last line
  2  usage error
  3  a line does not verify, or (--sources) a recorded source changed or
     vanished; the output names it
  4  another rlxp process holds the lock (--repair only)`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runLedgerVerify(env, &o, args)
		},
	}
}

type ledgerProblemView struct {
	Line    int    `json:"line"`
	Torn    bool   `json:"torn"`
	Message string `json:"message"`
}

type ledgerRepairView struct {
	Line           int    `json:"line"`
	Completed      bool   `json:"completed"`
	DroppedBytes   int    `json:"dropped_bytes"`
	DroppedPreview string `json:"dropped_preview,omitempty"`
}

type ledgerVerifyResult struct {
	Schema  string               `json:"schema"`
	File    string               `json:"file"`
	OK      bool                 `json:"ok"`
	Entries int                  `json:"entries"`
	Head    string               `json:"head"`
	Problem *ledgerProblemView   `json:"problem"`
	Repair  *ledgerRepairView    `json:"repair,omitempty"`
	Sources []ledger.SourceCheck `json:"sources,omitempty"`
}

func ledgerProblem(p *ledger.Problem) *ledgerProblemView {
	if p == nil {
		return nil
	}
	return &ledgerProblemView{Line: p.Line, Torn: p.Torn, Message: p.Msg}
}

func runLedgerVerify(env *Env, o *ledgerVerifyOptions, args []string) error {
	if len(args) > 0 {
		return usagef("verify takes no arguments")
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	name := r.Show(state.Ledger)
	res := ledgerVerifyResult{Schema: "rlxp.ledger-verify/v1", File: name}
	if o.repair {
		// Make sure it exists, with the message that says how to create it.
		if _, err := r.Read(state.Ledger); err != nil {
			return err
		}
		lock, err := lockRepo(env, r)
		if err != nil {
			return err
		}
		defer lock.Unlock()
		rr, err := ledger.File{Path: r.Path(state.Ledger), Name: name}.Repair()
		if err != nil {
			return err
		}
		res.OK, res.Entries, res.Head = true, rr.Entries, rr.Head
		if rr.Repaired {
			res.Repair = &ledgerRepairView{Line: rr.Line, Completed: rr.Completed, DroppedBytes: rr.DroppedBytes, DroppedPreview: ledgerPreview(rr.Dropped, 60)}
		}
		if o.json {
			return writeJSON(env.Stdout, res)
		}
		switch {
		case res.Repair == nil:
			fmt.Fprintf(env.Stdout, "%s: %s, chain verifies; nothing to repair\n", name, ledgerCount(res.Entries))
			return nil
		case rr.Completed:
			fmt.Fprintf(env.Stdout, "%s:%d: repaired: added the final newline the last entry lacked\n", name, rr.Line)
		default:
			fmt.Fprintf(env.Stdout, "%s:%d: repaired: dropped the torn last line (%d bytes of an incomplete entry: %s)\n", name, rr.Line, rr.DroppedBytes, strconv.Quote(ledgerPreview(rr.Dropped, 60)))
		}
		fmt.Fprintf(env.Stdout, "%s: %s, chain verifies\n", name, ledgerCount(res.Entries))
		return nil
	}
	data, err := r.Read(state.Ledger)
	if err != nil {
		return err
	}
	entries, rep := ledger.Load(name, data)
	res.OK, res.Entries, res.Head, res.Problem = rep.OK(), rep.Entries, rep.Head, ledgerProblem(rep.Problem)
	bad := 0
	if o.sources {
		res.Sources = ledger.VerifySources(entries, r.Root, sourceHasher(env))
		for _, c := range res.Sources {
			if c.State != ledger.SourceUnchanged {
				bad++
			}
		}
		res.OK = res.OK && bad == 0
	}
	if o.json {
		if err := writeJSON(env.Stdout, res); err != nil {
			return err
		}
	} else {
		if rep.Problem != nil {
			fmt.Fprintln(env.Stdout, rep.Problem)
		} else {
			fmt.Fprintf(env.Stdout, "%s: %s, chain verifies\n", name, ledgerCount(rep.Entries))
		}
		printSourceChecks(env, res.Sources, o.sources, bad)
	}
	if rep.Problem != nil || bad > 0 {
		return errNegative
	}
	return nil
}

func ledgerCount(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

// ledgerPreview is the start of s, for saying what was dropped without printing
// a whole entry.
func ledgerPreview(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

type ledgerDiffOptions struct {
	root string
	base string
	json bool
}

func newLedgerDiffCmd() *Command {
	var o ledgerDiffOptions
	fs := pflag.NewFlagSet("diff", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.StringVar(&o.base, "base", "", "git `REF` of the base (for a pull request: the target branch, e.g. origin/main)")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp ledger diff --base REF [--root DIR] [--json]",
		Short:     "check that the ledger only grew since a git ref and render the new entries",
		Long: `Diff compares .rlxp/ledger.jsonl, and .rlxp/approvals.jsonl, with the same
files at git REF, as
'git show REF:.rlxp/ledger.jsonl' prints it (a ledger missing at REF counts
as empty). The ledger is append-only, so the base must be, line for line,
the start of the current ledger, and the current ledger's chain must
verify.

It prints the new entries as Markdown for a pull-request comment: a heading
"### rlxp ledger: N new entries", a table (seq, experiment, primary metric
mean ± 95% CI and seeds, delta against the baseline with its p-value, or
"n too small", guardrails passed, verdict), notes from each entry's reasons
and warnings, and the chain's head hash. Then the approvals added since REF, each with
what was approved, its digest, who, how, the terminal and the ancestry;
the approvals log obeys the same rules as the ledger and is refused the
same way.

EXIT STATUS
  0  the ledger only grew; the new entries are printed
  1  the ledger is missing or unreadable, git is missing, --root is not
     in a git repository, or REF is not a commit
  2  usage error
  3  history was rewritten (the base is not a prefix), or the chain does
     not verify, of the ledger or of the approvals log; the output names
     the line`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runLedgerDiff(ctx, env, &o, args)
		},
	}
}

type ledgerDiffResult struct {
	Schema      string             `json:"schema"`
	Base        string             `json:"base"`
	File        string             `json:"file"`
	OK          bool               `json:"ok"`
	BaseEntries int                `json:"base_entries"`
	Entries     int                `json:"entries"`
	Head        string             `json:"head"`
	Problem     *ledgerProblemView `json:"problem"`
	New         []ledger.Entry     `json:"new"`
	Approvals   approvalsDiffView  `json:"approvals"`
	Markdown    string             `json:"markdown"`
}

// approvalsDiffView is what the approvals log adds since the base.
type approvalsDiffView struct {
	File          string         `json:"file"`
	BaseApprovals int            `json:"base_approvals"`
	Added         []approvalView `json:"added"`
}

// approvalsComment is the approvals part of the pull-request comment.
func approvalsComment(base string, d approval.Diff) string {
	n := len(d.Added)
	if n == 0 {
		return fmt.Sprintf("\n### rlxp approvals: none added\n\nNo approval recorded since `%s` (%d there).\n", base, d.Base)
	}
	s := "s"
	if d.Base == 1 {
		s = ""
	}
	return fmt.Sprintf("\n### rlxp approvals: %d added\n\n%s\nThe approvals log verifies and extends the one at `%s` (%d approval%s there).\n", n, approval.Markdown(d.Added), base, d.Base, s)
}

func runLedgerDiff(ctx context.Context, env *Env, o *ledgerDiffOptions, args []string) error {
	if len(args) > 0 {
		return usagef("diff takes no arguments (use --base REF)")
	}
	if o.base == "" {
		return usagef("diff needs --base REF, e.g. --base origin/main")
	}
	if strings.HasPrefix(o.base, "-") || strings.ContainsAny(o.base, ": \t\n") {
		return usagef("invalid --base %q: want a git ref such as origin/main", o.base)
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	name := r.Show(state.Ledger)
	base, err := stateAtRef(ctx, r, o.base, state.Ledger)
	if err != nil {
		return err
	}
	head, err := r.Read(state.Ledger)
	if err != nil {
		_, serr := os.Stat(r.Path(state.Ledger))
		if !errors.Is(serr, fs.ErrNotExist) || len(base) == 0 {
			return err
		}
		// Deleted on this branch: Diff reports the entries it removed.
		head = nil
	}
	res := ledgerDiffResult{Schema: "rlxp.ledger-diff/v1", Base: o.base, File: name, New: []ledger.Entry{}}
	refuse := func(p *ledgerProblemView, line string) error {
		res.Problem = p
		if o.json {
			if err := writeJSON(env.Stdout, res); err != nil {
				return err
			}
		} else {
			fmt.Fprintln(env.Stdout, line)
		}
		return errNegative
	}
	rep := ledger.Check(name, head)
	res.Entries, res.Head = rep.Entries, rep.Head
	if rep.Problem != nil {
		return refuse(ledgerProblem(rep.Problem), rep.Problem.Error())
	}
	d, err := ledger.Diff(base, head)
	var he *ledger.HistoryError
	if errors.As(err, &he) {
		msg := fmt.Sprintf("%s; the ledger is append-only, but %s does not extend %s:%s", he.Msg, name, o.base, name)
		return refuse(&ledgerProblemView{Line: he.Line, Message: msg}, fmt.Sprintf("%s:%d: %s", name, he.Line, msg))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	// The approvals beside the results: same rules, same refusal.
	aname := r.Show(state.Approvals)
	abase, err := stateAtRef(ctx, r, o.base, state.Approvals)
	if err != nil {
		return err
	}
	ahead, err := os.ReadFile(r.Path(state.Approvals))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", aname, err)
	}
	ad, err := approval.DiffLogs(aname, abase, ahead)
	var ap *ledger.Problem
	switch {
	case errors.As(err, &he):
		msg := fmt.Sprintf("%s; the approvals log is append-only, but %s does not extend %s:%s", he.Msg, aname, o.base, aname)
		return refuse(&ledgerProblemView{Line: he.Line, Message: msg}, fmt.Sprintf("%s:%d: %s", aname, he.Line, msg))
	case errors.As(err, &ap):
		return refuse(ledgerProblem(ap), ap.Error())
	case err != nil:
		return err
	}
	res.OK, res.BaseEntries, res.New = true, d.Base, d.New
	res.Approvals = approvalsDiffView{File: aname, BaseApprovals: ad.Base, Added: approvalViews(ad.Added)}
	res.Markdown = ledgerComment(o.base, d, rep) + approvalsComment(o.base, ad)
	if o.json {
		return writeJSON(env.Stdout, res)
	}
	fmt.Fprint(env.Stdout, res.Markdown)
	return nil
}

// ledgerComment is the pull-request comment for the new entries.
func ledgerComment(base string, d ledger.DiffResult, head ledger.Report) string {
	var b strings.Builder
	n := len(d.New)
	if n == 1 {
		b.WriteString("### rlxp ledger: 1 new entry\n\n")
	} else {
		fmt.Fprintf(&b, "### rlxp ledger: %d new entries\n\n", n)
	}
	if n == 0 {
		fmt.Fprintf(&b, "No new entries since `%s`.\n\n", base)
	} else {
		b.WriteString(ledger.MarkdownTable(d.New))
		b.WriteString("\n")
		var notes []string
		for _, e := range d.New {
			for _, key := range []string{"reasons", "warnings"} {
				mark := ""
				if key == "warnings" {
					mark = "⚠ "
				}
				v, _ := e.Lookup(key)
				a, _ := v.([]any)
				for _, x := range a {
					if s, ok := x.(string); ok && s != "" {
						notes = append(notes, fmt.Sprintf("- seq %d: %s%s", e.Seq, mark, strings.ReplaceAll(s, "\n", " ")))
					}
				}
			}
		}
		if len(notes) > 0 {
			b.WriteString("**Notes**\n\n" + strings.Join(notes, "\n") + "\n\n")
		}
	}
	if head.Head == "" {
		fmt.Fprintf(&b, "The ledger is empty, as it is at `%s`.\n", base)
		return b.String()
	}
	fmt.Fprintf(&b, "Chain head `%s`: %s, verified; `%s` had %d.\n", head.Head, ledgerCount(head.Entries), base, d.Base)
	return b.String()
}

// stateAtRef returns a state file's content at ref, or nothing when it did
// not exist there. Errors carry git's own message.
func stateAtRef(ctx context.Context, r *state.Repo, ref, file string) ([]byte, error) {
	git := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", r.Root}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if msg := strings.TrimSpace(stderr.String()); msg != "" {
					return nil, fmt.Errorf("git %s: %s", args[0], msg)
				}
			}
			if errors.Is(err, exec.ErrNotFound) {
				return nil, fmt.Errorf("ledger diff reads the base with git, which is not on PATH: %w", err)
			}
			return nil, fmt.Errorf("git %s: %w", args[0], err)
		}
		return out, nil
	}
	if _, err := git("rev-parse", "--show-toplevel"); err != nil {
		return nil, err
	}
	if _, err := git("cat-file", "-e", ref+"^{commit}"); err != nil {
		return nil, fmt.Errorf("base %s: %w", ref, err)
	}
	// "./" makes the path relative to --root, wherever that is in the repo.
	obj := ref + ":./" + state.DirName + "/" + file
	if _, err := git("cat-file", "-e", obj); err != nil {
		return nil, nil
	}
	return git("cat-file", "blob", obj)
}
