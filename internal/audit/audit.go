// Package audit reads an RL repository, without running anything from it,
// and reports what an experiment contract needs: the frameworks it uses,
// how it trains and evaluates, its config system, the metric tags it logs
// and where, its launchers, simulators and hardware hints. Every finding
// cites file and line and carries a confidence; guesses say so.
package audit

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Schema is the schema name of the audit's JSON report.
const Schema = "rlxp.audit/v1"

// A Confidence is how sure a finding is: high (the code says so
// directly), medium (a strong pattern), low (a hint or a guess).
type Confidence string

const (
	High   Confidence = "high"
	Medium Confidence = "medium"
	Low    Confidence = "low"
)

func rank(c Confidence) int {
	switch c {
	case High:
		return 3
	case Medium:
		return 2
	case Low:
		return 1
	}
	return 0
}

// Evidence is a line of a file. Line 0 means the file as a whole (its
// path is the evidence).
type Evidence struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Text string `json:"text,omitempty"`
}

func (e Evidence) String() string {
	if e.Line == 0 {
		return e.File
	}
	return fmt.Sprintf("%s:%d", e.File, e.Line)
}

// A Finding is one thing the audit found.
type Finding struct {
	Name       string     `json:"name"`
	Kind       string     `json:"kind,omitempty"`
	Detail     string     `json:"detail,omitempty"`
	Confidence Confidence `json:"confidence"`
	Evidence   []Evidence `json:"evidence"`
}

// An EntryPoint is a runnable command that trains, evaluates or does
// something else.
type EntryPoint struct {
	Kind    string `json:"kind"` // train | eval | other
	Command string `json:"command"`
	Via     string `json:"via"` // shell | make | script | module | console_script
	Target  string `json:"target,omitempty"`
	Usage   string `json:"usage,omitempty"`
	// Documented is the command as the repository's README or docs show
	// it, with its arguments; Rank orders the candidates (1 is the one
	// the draft takes): documented commands first.
	Documented string     `json:"documented,omitempty"`
	Rank       int        `json:"rank"`
	Runs       []string   `json:"runs,omitempty"`
	Confidence Confidence `json:"confidence"`
	Evidence   []Evidence `json:"evidence"`

	flags     []flagDef
	preflag   string // how its own preflight is asked for
	wraps     bool
	fixed     bool // its kind comes from its name; what it runs does not change it
	refs      int  // examples and usage lines that run it
	docRank   int  // where it is documented: 1 the root README, 2-3 the docs' start pages, 4 other docs, 5 another README, 6 release notes; 0 nowhere
	docArgv   []string
	docAt     Evidence // where: earlier documented first
	docTrn    bool     // the documented command trains (runner.py --train, spinup.run ppo)
	docForm   bool     // the documented command has placeholders to fill in (--env <env>)
	docRooted bool     // a documented command as close as docAt runs it from the repository's root
	// score weighs the evidence that it is the way to train, for
	// choosing among undocumented candidates; why says what it is.
	score int
	why   []string
}

// A Tag is a metric tag the code logs.
type Tag struct {
	Tag     string `json:"tag"`
	Backend string `json:"backend"`
	Role    string `json:"role"`
	Output  string `json:"output,omitempty"` // the file it is written to, when known
	// WrittenBy names the framework that writes the tag itself (from its
	// profile); Guessed marks a tag no code here or in an installed
	// library shows, nor a run has written yet.
	WrittenBy  string     `json:"written_by,omitempty"`
	Guessed    bool       `json:"guessed,omitempty"`
	Confidence Confidence `json:"confidence"`
	Evidence   []Evidence `json:"evidence"`
}

// An Output is a file or directory runs write.
type Output struct {
	Path       string     `json:"path"`
	Kind       string     `json:"kind"` // metrics | checkpoint | logdir | config | log | existing
	Format     string     `json:"format,omitempty"`
	Role       string     `json:"role,omitempty"` // train | eval
	Confidence Confidence `json:"confidence"`
	Evidence   []Evidence `json:"evidence"`
}

// A Candidate is a metric the contract could use.
type Candidate struct {
	Tag        string     `json:"tag"`
	Role       string     `json:"role"` // held_out_eval | train_reward | guardrail kind
	Source     string     `json:"source,omitempty"`
	Goal       string     `json:"goal,omitempty"`
	Confidence Confidence `json:"confidence"`
	Guessed    bool       `json:"guessed,omitempty"`
	Note       string     `json:"note,omitempty"`
	Evidence   []Evidence `json:"evidence,omitempty"`
}

// A Question is one a person must answer before training starts.
type Question struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Hints    []string `json:"hints,omitempty"`
}

// SkippedDir is a directory the audit did not enter.
type SkippedDir struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Files counts what the audit read and what it skipped, by reason.
type Files struct {
	Listed      int            `json:"listed"`
	Scanned     int            `json:"scanned"`
	Skipped     map[string]int `json:"skipped"`
	SkippedDirs []SkippedDir   `json:"skipped_dirs,omitempty"`
}

// Report is the audit's answer.
type Report struct {
	Schema           string       `json:"schema"`
	Root             string       `json:"root"`
	Files            Files        `json:"files"`
	Frameworks       []Finding    `json:"frameworks"`
	EntryPoints      []EntryPoint `json:"entry_points"`
	Config           []Finding    `json:"config"`
	Logging          []Finding    `json:"logging"`
	Tags             []Tag        `json:"tags"`
	Outputs          []Output     `json:"outputs"`
	Launchers        []Finding    `json:"launchers"`
	Simulators       []Finding    `json:"simulators"`
	Hardware         []Finding    `json:"hardware"`
	MetricCandidates []Candidate  `json:"metric_candidates"`
	Guardrails       []Candidate  `json:"guardrail_candidates"`
	Scope            []Param      `json:"scope_candidates"`
	Questions        []Question   `json:"budget_questions"`
	Guesses          []string     `json:"guesses"`
	Adapter          Draft        `json:"adapter_draft"`
	// Write is what audit --write did to adapter.yaml.
	Write *Write `json:"write,omitempty"`
}

// Unknown reports that no RL framework was recognised.
func (r *Report) Unknown() bool {
	return len(r.Frameworks) == 0 || r.Frameworks[0].Kind == "unknown"
}

// Options tune a run of the audit.
type Options struct {
	// MaxFileSize is the largest file read, in bytes (default 1 MiB).
	MaxFileSize int64
	// Workers read and scan files in parallel (default GOMAXPROCS).
	Workers int
}

// Run audits the repository at root.
func Run(ctx context.Context, root string, opts Options) (*Report, error) {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = 1 << 20
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	st, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("audit: %s is not a directory", root)
	}
	profiles, err := Profiles()
	if err != nil {
		return nil, err
	}
	vendor := map[string]bool{}
	for _, p := range profiles {
		for _, v := range p.Vendor {
			vendor[v] = true
		}
	}
	lst, err := listRepo(ctx, root, vendor)
	if err != nil {
		return nil, err
	}
	sc := newScanner(profiles)
	all, skipped, err := scanAll(ctx, root, lst, sc, opts)
	if err != nil {
		return nil, err
	}
	for k, v := range skipped {
		lst.skipped[k] += v
	}
	return assemble(root, lst, all, profiles, sc), nil
}

// scanAll reads and scans every listed file on opts.Workers goroutines;
// the facts come back in listing order.
func scanAll(ctx context.Context, root string, lst *listing, sc *scanner, opts Options) ([]*facts, map[string]int, error) {
	out := make([]*facts, len(lst.files))
	reasons := make([]string, len(lst.files))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				data, why := readSource(root, lst.files[i], opts.MaxFileSize)
				if why != "" {
					reasons[i] = why
					continue
				}
				out[i] = sc.scan(lst.files[i], lst.kinds[i], string(data))
				if out[i] == nil {
					reasons[i] = skipType
				}
			}
		}()
	}
	var err error
	for i := range lst.files {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err != nil {
		return nil, nil, err
	}
	skipped := map[string]int{}
	var kept []*facts
	for i, f := range out {
		if f == nil {
			skipped[reasons[i]]++
			continue
		}
		kept = append(kept, f)
	}
	return kept, skipped, nil
}

// scan reads one file's facts; nil when it turns out not to be source.
// A scanner bug on some odd input costs that file, never the audit (the
// fuzz tests call scanFile, which does not recover).
func (sc *scanner) scan(rel string, kind fileKind, src string) (f *facts) {
	defer func() {
		if recover() != nil {
			f = nil
		}
	}()
	return sc.scanFile(rel, kind, src)
}

func (sc *scanner) scanFile(rel string, kind fileKind, src string) *facts {
	if kind == kindMaybeScript {
		first, _, _ := strings.Cut(src, "\n")
		switch {
		case !strings.HasPrefix(first, "#!"):
			return nil
		case strings.Contains(first, "python"):
			kind = kindPython
		case strings.Contains(first, "sh"):
			kind = kindShell
		default:
			return nil
		}
	}
	f := &facts{path: rel, kind: kind}
	var ls *literalSet
	if kind == kindPython {
		ls = sc.pyLits
	}
	t := newText(src, ls)
	switch kind {
	case kindPython:
		sc.scanPython(f, t)
	case kindShell:
		sc.scanShell(f, t)
	case kindMake:
		sc.scanMake(f, t)
	case kindPyproject:
		sc.scanPyproject(f, t)
	case kindSetupCfg:
		sc.scanSetupCfg(f, t)
	case kindRequirements:
		sc.scanRequirements(f, t)
	case kindReadme:
		sc.scanReadme(f, t)
	case kindEnv:
		sc.scanEnv(f, t)
	case kindYAML:
		sc.scanYAML(f, t)
	case kindConfig:
		configBackends(f, t)
	}
	return f
}

// sortEvidence orders evidence by file and line and keeps the first n.
func sortEvidence(ev []Evidence, n int) []Evidence {
	sort.SliceStable(ev, func(i, j int) bool {
		if ev[i].File != ev[j].File {
			return ev[i].File < ev[j].File
		}
		return ev[i].Line < ev[j].Line
	})
	out := ev[:0]
	for _, e := range ev {
		if len(out) > 0 && e.File == out[len(out)-1].File && e.Line == out[len(out)-1].Line {
			continue
		}
		out = append(out, e)
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}
