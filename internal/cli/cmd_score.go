package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/experiment"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/score"
	"github.com/rlxp/rlxp/internal/state"
)

type scoreOptions struct {
	root    string
	runDir  string
	sources []string
	format  string
	dryRun  bool
	json    bool
}

func newScoreCmd() *Command {
	var o scoreOptions
	fs := pflag.NewFlagSet("score", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.StringVar(&o.runDir, "run-dir", "", "each seed's run directory, a `TEMPLATE` with {experiment} and {seed} (default: from .rlxp/runs/*/run.json)")
	fs.StringArrayVar(&o.sources, "source", nil, "metric source path `NAME=TEMPLATE`, overriding adapter.yaml (repeatable)")
	addFormatFlag(fs, &o.format)
	fs.BoolVar(&o.dryRun, "dry-run", false, "score and print, but do not append to the ledger")
	addJSONFlag(fs, &o.json)
	return &Command{
		UsageLine: "rlxp score EXPERIMENT [--run-dir TEMPLATE] [--source NAME=TEMPLATE]... [--format FORMAT] [--dry-run] [--root DIR] [--json]",
		Short:     "score an experiment's runs by the contract and append the result to the ledger",
		Long: `Score applies the contract's evaluation protocol to each seed of an
experiment: it reads the primary metric and every guardrail from the metric
sources adapter.yaml declares (paths may use {run_dir}, {seed} and
{experiment}), aggregates each seed's series as the contract says (last,
max, min, mean_last_n, at_step), summarises across seeds (mean, std, n, 95%
CI), compares with the baseline's latest ledger entry (Welch's t-test, or
"too few seeds"), checks the guardrails, and decides the verdict:
baseline, improved, regressed, inconclusive, guardrail_violated or invalid.

A seed whose value is missing, NaN or infinite makes the result invalid,
with the reason; never a silent zero. A tag found in no seed's file is an
error instead (most likely a wrong name), with the closest tags suggested.
The entry, with every source file's format, sha256 and point count, the
contract and config digests and the git commit, is appended to
.rlxp/ledger.jsonl under the lock.

EXIT STATUS
  0  scored: baseline, improved or inconclusive
  1  a file is missing, unreadable or corrupt, a tag is unknown, or a state
     file is malformed; nothing is appended
  2  usage error
  3  scored, and the answer is negative: regressed, guardrail_violated or
     invalid
  4  another rlxp process holds the lock`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runScore(env, &o, args)
		},
	}
}

// ledgerBody is a ledger entry's content, before the ledger adds its chain
// fields.
type ledgerBody struct {
	score.Result
	Runs           []string     `json:"runs"`
	ContractDigest string       `json:"contract_digest"`
	ConfigDigest   string       `json:"config_digest"`
	Git            *gitState    `json:"git"`
	Sources        []sourceFile `json:"sources"`
}

type gitState struct {
	Commit string `json:"commit"`
	Dirty  bool   `json:"dirty"`
}

type sourceFile struct {
	Seed   int    `json:"seed"`
	Source string `json:"source"`
	Path   string `json:"path"`
	Format string `json:"format"`
	SHA256 string `json:"sha256"`
	Points int64  `json:"points"`
}

// metricSpec is one metric the protocol needs from every seed.
type metricSpec struct {
	name, source, aggregate string
	n                       int
	step                    int64
}

func runScore(env *Env, o *scoreOptions, args []string) error {
	if len(args) != 1 {
		return usagef("score takes one experiment ID")
	}
	id, err := argID(args[0])
	if err != nil {
		return err
	}
	format, err := parseFormatFlag(o.format)
	if err != nil {
		return err
	}
	overrides := map[string]string{}
	for _, s := range o.sources {
		name, path, ok := strings.Cut(s, "=")
		if !ok || name == "" || path == "" {
			return usagef("invalid --source %q: want NAME=TEMPLATE", s)
		}
		overrides[name] = path
	}
	r, l, err := openContract(env, o.root)
	if err != nil {
		return err
	}
	if err := requireSections(l, "metrics", "evaluation", "baseline"); err != nil {
		return err
	}
	c := l.Contract
	seeds, exp, err := experimentSeeds(r, c, id)
	if err != nil {
		return err
	}
	sources, err := metricSources(r, overrides)
	if err != nil {
		return err
	}
	runDirs, err := seedRunDirs(r, o.runDir, id, seeds)
	if err != nil {
		return err
	}

	specs := []metricSpec{{c.Metrics.Primary.Name, c.Metrics.Primary.Source, c.Metrics.Primary.Aggregate, c.Metrics.Primary.N, c.Metrics.Primary.Step}}
	for _, g := range c.Metrics.Guardrails {
		specs = append(specs, metricSpec{g.Name, g.Source, g.Aggregate, g.N, g.Step})
	}
	values, files, err := readSeeds(r, id, seeds, runDirs, specs, sources, format)
	if err != nil {
		return err
	}
	in := score.Input{Contract: c, Experiment: id, IsBaseline: id == c.Baseline.Experiment, Primary: values[0]}
	for i := range c.Metrics.Guardrails {
		in.Guardrails = append(in.Guardrails, values[i+1])
	}

	body := ledgerBody{
		ContractDigest: contractDigest(l),
		ConfigDigest:   exp.Digest(),
		Git:            gitInfo(r.Root),
		Sources:        files,
	}
	for _, s := range seeds {
		body.Runs = append(body.Runs, runDirs[s])
	}

	var appended *ledger.Entry
	lock, err := lockRepo(env, r)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	entries, err := ledger.ReadAll(r.Path(state.Ledger))
	if err != nil {
		return err
	}
	in.Baseline = findBaseline(entries, c.Baseline.Experiment)
	body.Result = score.Judge(in)
	if !o.dryRun {
		e, err := ledger.Append(r.Path(state.Ledger), body, env.Now())
		if err != nil {
			return err
		}
		appended = &e
	}
	for _, w := range body.Warnings {
		warnf(env, "%s", w)
	}
	if o.json {
		out := map[string]any{"schema": "rlxp.score/v1", "dry_run": o.dryRun, "result": body}
		if appended != nil {
			out["ledger"] = map[string]any{"seq": appended.Seq, "hash": appended.Hash}
		}
		if err := writeJSON(env.Stdout, out); err != nil {
			return err
		}
	} else {
		printScore(env, body, appended)
	}
	switch body.Verdict {
	case score.Regressed, score.GuardrailViolated, score.Invalid:
		return errNegative
	}
	return nil
}

// experimentSeeds returns the experiment and its seeds; the contract's
// baseline may be scored without an experiments.yaml entry.
func experimentSeeds(r *state.Repo, c contract.Contract, id string) ([]int, *experiment.Experiment, error) {
	set, err := loadExperiments(r)
	if err != nil {
		return nil, nil, err
	}
	e, err := set.Get(id)
	if err == nil {
		return e.Seeds, e, nil
	}
	if id == c.Baseline.Experiment {
		e := &experiment.Experiment{ID: id, Seeds: c.Baseline.Seeds}
		return e.Seeds, e, nil
	}
	return nil, nil, err
}

func metricSources(r *state.Repo, overrides map[string]string) (map[string]adapter.Source, error) {
	data, err := r.Read(state.Adapter)
	if err != nil {
		return nil, err
	}
	a, err := adapter.Parse(r.Show(state.Adapter), data)
	if err != nil {
		return nil, err
	}
	sources := map[string]adapter.Source{}
	for name, s := range a.Metrics.Sources {
		sources[name] = s
	}
	for name, path := range overrides {
		s := sources[name]
		s.Path = path
		sources[name] = s
	}
	return sources, nil
}

// seedRunDirs maps each seed to its run directory, relative to the
// repository: from the template, or from the run records.
func seedRunDirs(r *state.Repo, template, id string, seeds []int) (map[int]string, error) {
	dirs := map[int]string{}
	if template != "" {
		for _, s := range seeds {
			d, err := adapter.Expand(template, map[string]string{"experiment": id, "seed": strconv.Itoa(s)})
			if err != nil {
				return nil, &UsageError{Err: fmt.Errorf("--run-dir %w", err)}
			}
			dirs[s] = d
		}
		return dirs, nil
	}
	recs, err := runs.List(r.Path(state.Runs))
	if err != nil {
		return nil, err
	}
	for _, run := range recs {
		if run.Experiment == id && run.Seed != nil && run.RunDir != "" {
			dirs[*run.Seed] = run.RunDir
		}
	}
	for _, s := range seeds {
		if _, ok := dirs[s]; !ok {
			return nil, fmt.Errorf("no run of %s with seed %d in %s; pass --run-dir, e.g. --run-dir 'runs/{experiment}/seed{seed}'", id, s, r.Show(state.Runs))
		}
	}
	return dirs, nil
}

// readSeeds reads every source file of every seed once, feeding the
// aggregates of all specs; values[i] holds spec i's per-seed results.
func readSeeds(r *state.Repo, id string, seeds []int, runDirs map[int]string, specs []metricSpec, sources map[string]adapter.Source, format metrics.Format) ([][]score.SeedValue, []sourceFile, error) {
	values := make([][]score.SeedValue, len(specs))
	var files []sourceFile
	// A tag missing from every seed is a wrong name, not a failed run.
	missing := make([]int, len(specs))
	hints := make([][]string, len(specs))
	// Each source file is read once per seed, for all the specs it feeds.
	bySource := map[string][]int{}
	var order []string
	for i, sp := range specs {
		if _, ok := bySource[sp.source]; !ok {
			order = append(order, sp.source)
		}
		bySource[sp.source] = append(bySource[sp.source], i)
	}
	for _, seed := range seeds {
		aggs := make([]*score.Agg, len(specs))
		for _, name := range order {
			src, ok := sources[name]
			if !ok {
				return nil, nil, fmt.Errorf("metric source %q is not declared in %s metrics.sources (nor given with --source)", name, r.Show(state.Adapter))
			}
			rel, err := adapter.Expand(src.Path, map[string]string{"run_dir": runDirs[seed], "seed": strconv.Itoa(seed), "experiment": id})
			if err != nil {
				return nil, nil, fmt.Errorf("%s metrics.sources.%s.path: %w", r.Show(state.Adapter), name, err)
			}
			path := rel
			if !filepath.IsAbs(path) {
				path = filepath.Join(r.Root, rel)
			}
			f := format
			if f == "" && src.Format != "" {
				if f, err = metrics.ParseFormat(src.Format); err != nil {
					return nil, nil, fmt.Errorf("%s metrics.sources.%s.format: %w", r.Show(state.Adapter), name, err)
				}
			}
			col := score.NewCollector()
			for _, i := range bySource[name] {
				sp := specs[i]
				aggs[i] = score.NewAgg(sp.aggregate, sp.n, sp.step)
				col.Track(sp.name, aggs[i])
			}
			sum := hashAsync(path)
			shown := rel
			if !filepath.IsAbs(rel) {
				shown = r.Display(rel)
			}
			info, err := readMetrics(path, shown, f, col)
			digest := <-sum
			if err != nil {
				return nil, nil, err
			}
			if digest.err != nil {
				return nil, nil, digest.err
			}
			if info.TruncatedAt > 0 {
				// A run whose log ends mid-record is still running or
				// crashed: its last values are not the run's result.
				return nil, nil, &metrics.Error{Path: shown, Offset: info.TruncatedAt,
					Msg: "truncated record: the run is still writing or its writer crashed; score it once the run has ended"}
			}
			files = append(files, sourceFile{Seed: seed, Source: name, Path: rel, Format: string(info.Format), SHA256: digest.sum, Points: info.Points})
			for _, i := range bySource[name] {
				if !col.Seen(specs[i].name) {
					missing[i]++
					hints[i] = col.Closest(specs[i].name)
				}
			}
		}
		for i, a := range aggs {
			sv := score.SeedValue{Seed: seed, Run: runDirs[seed]}
			if v, err := a.Value(); err != nil {
				sv.Error = err.Error()
				if a.Points() == 0 && missing[i] > 0 {
					sv.Error = fmt.Sprintf("tag %s not found", specs[i].name)
				}
			} else {
				sv.Value = &v
			}
			values[i] = append(values[i], sv)
		}
	}
	for i, sp := range specs {
		if missing[i] == len(seeds) {
			msg := fmt.Sprintf("unknown tag %q in source %s of every seed", sp.name, sp.source)
			if len(hints[i]) > 0 {
				msg += fmt.Sprintf(" (closest: %s)", strings.Join(hints[i], ", "))
			}
			return nil, nil, errors.New(msg + "; check the contract's metric names with 'rlxp metrics inspect'")
		}
	}
	return values, files, nil
}

type hashResult struct {
	sum string
	err error
}

// hashAsync computes a source's sha256 on another core while the reader
// parses it: for a large file the two together cost about one pass.
func hashAsync(path string) <-chan hashResult {
	ch := make(chan hashResult, 1)
	go func() {
		h := sha256.New()
		err := hashPath(h, path)
		ch <- hashResult{"sha256:" + hex.EncodeToString(h.Sum(nil)), err}
	}()
	return ch
}

// hashPath hashes a file, or a directory (an MLflow run) as its files'
// relative names and contents in name order.
func hashPath(h io.Writer, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil // the reader reports a missing file with its own message
	}
	if !fi.IsDir() {
		return hashFile(h, path)
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("hash %s: %w", path, err)
	}
	sort.Strings(files)
	for _, p := range files {
		rel, _ := filepath.Rel(path, p)
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		if err := hashFile(h, p); err != nil {
			return err
		}
	}
	return nil
}

func hashFile(h io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("hash %s: %w", path, err)
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("hash %s: %w", path, err)
	}
	return nil
}

// contractDigest covers the seven sections (not the approvals), so an
// entry says exactly which protocol scored it.
func contractDigest(l *contract.Loaded) string {
	m := map[string]any{}
	for _, s := range contract.Sections() {
		m[s] = l.Section(s)
	}
	return contract.Digest(m)
}

// gitInfo records the commit the repository was at; nil outside git.
func gitInfo(root string) *gitState {
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return nil
	}
	g := &gitState{Commit: strings.TrimSpace(string(out))}
	// .rlxp/ changes on every score; only the code's state matters here.
	st, err := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude).rlxp").Output()
	g.Dirty = err != nil || len(strings.TrimSpace(string(st))) > 0
	return g
}

// findBaseline returns the latest usable ledger entry of the baseline.
func findBaseline(entries []ledger.Entry, id string) *score.BaselineRef {
	for i := len(entries) - 1; i >= 0; i-- {
		f := entries[i].Fields
		if f["experiment"] != id || f["verdict"] == score.Invalid {
			continue
		}
		ref := &score.BaselineRef{Experiment: id, Seq: entries[i].Seq, Guardrails: map[string]float64{}}
		p, _ := f["primary"].(map[string]any)
		ref.Metric, _ = p["name"].(string)
		ref.Aggregate, _ = p["aggregate"].(string)
		perSeed, _ := p["per_seed"].([]any)
		for _, s := range perSeed {
			if v, ok := number(s.(map[string]any)["value"]); ok {
				ref.Values = append(ref.Values, v)
			}
		}
		gs, _ := f["guardrails"].([]any)
		for _, g := range gs {
			gm, _ := g.(map[string]any)
			name, _ := gm["name"].(string)
			if v, ok := number(gm["value"]); ok {
				ref.Guardrails[name] = v
			}
		}
		return ref
	}
	return nil
}

// number reads a JSON number decoded with UseNumber (or a float64).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case interface{ Float64() (float64, error) }:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

func printScore(env *Env, b ledgerBody, e *ledger.Entry) {
	w := env.Stdout
	p := b.Primary
	held := "held-out"
	if !p.HeldOut {
		held = "NOT held-out"
	}
	fmt.Fprintf(w, "experiment %s: %s (%s, %s, %s)\n", b.Experiment, p.Name, p.Aggregate, p.Goal, held)
	rows := [][]string{}
	for _, s := range p.PerSeed {
		v := "—"
		if s.Value != nil {
			v = fmtNum(*s.Value)
		}
		rows = append(rows, []string{strconv.Itoa(s.Seed), s.Run, v, s.Error})
	}
	printTable(env, []string{"SEED", "RUN", "VALUE", "PROBLEM"}, rows)
	if p.N > 0 {
		line := fmt.Sprintf("mean %s", fmtNum(p.Mean))
		if p.Std != nil {
			line += fmt.Sprintf(" ± %s (std, n=%d), 95%% CI [%s, %s]", fmtNum(*p.Std), p.N, fmtNum(p.CI95[0]), fmtNum(p.CI95[1]))
		} else {
			line += fmt.Sprintf(" (n=%d: no spread estimate)", p.N)
		}
		fmt.Fprintln(w, line)
	}
	if c := b.Baseline; c != nil {
		line := fmt.Sprintf("vs baseline %s (ledger #%d, mean %s, n=%d): delta %+.4g", c.Experiment, c.Seq, fmtNum(c.Mean), c.N, c.Delta)
		if c.RelativeDelta != nil {
			line += fmt.Sprintf(" (%+.1f%%)", *c.RelativeDelta*100)
		}
		switch c.Test {
		case "welch_t":
			line += fmt.Sprintf(", Welch t = %.3g, df = %.3g, p = %.3g", *c.T, *c.DF, *c.PValue)
		case "too_few_seeds":
			line += ", too few seeds for a test"
		}
		fmt.Fprintln(w, line)
	}
	for _, g := range b.Guardrails {
		state := "not checked"
		if g.Pass != nil {
			state = map[bool]string{true: env.paint(green, "pass"), false: env.paint(red, "FAIL")}[*g.Pass]
		}
		v := "—"
		if g.Value != nil {
			v = fmtNum(*g.Value)
		}
		fmt.Fprintf(w, "guardrail %s %s: %s %s\n", g.Name, g.Bound, v, state)
	}
	for _, reason := range b.Reasons {
		fmt.Fprintf(w, "  because: %s\n", reason)
	}
	color := green
	switch b.Verdict {
	case score.Regressed, score.GuardrailViolated, score.Invalid:
		color = red
	case score.Inconclusive:
		color = yellow
	}
	fmt.Fprintf(w, "VERDICT: %s\n", env.paint(color, b.Verdict))
	if e != nil {
		fmt.Fprintf(w, "ledger: appended #%d (%s…)\n", e.Seq, e.Hash[:19])
	} else {
		fmt.Fprintln(w, "ledger: not appended (--dry-run)")
	}
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }
