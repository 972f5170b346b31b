// Command audit-accuracy scores rlxp audit against facts about public
// repositories checked by hand (facts.yaml): it audits a checkout of each
// repository and prints, per kind of fact, how many the report states,
// and every framework it names in a repository that is not RL training
// code.
//
//	go run ./bench/audit-accuracy -repos DIR [-facts FILE] [-v]
//
// DIR holds one checkout per repository, named as in facts.yaml
// (scripts/bench-audit-fetch.sh makes them); a repository without a
// checkout is skipped with a message.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/rlxp/rlxp/internal/audit"
)

type fact struct {
	ID  string `yaml:"id"`
	Tag string `yaml:"tag"`
	At  string `yaml:"at"`
}

type trainFact struct {
	Cmd     string `yaml:"cmd"`
	Program string `yaml:"program"`
	// Or lists other programs the humans document as the way to train
	// (wrapper scripts that run Program with its arguments written in
	// them: args are not asked of them).
	Or   []string `yaml:"or"`
	Args []string `yaml:"args"`
	At   string   `yaml:"at"`
}

type repo struct {
	Name       string     `yaml:"name"`
	URL        string     `yaml:"url"`
	Commit     string     `yaml:"commit"`
	RL         *bool      `yaml:"rl"`
	Note       string     `yaml:"note"`
	Batch      string     `yaml:"batch"`
	Frameworks []fact     `yaml:"frameworks"`
	Train      *trainFact `yaml:"train"`
	Backends   []fact     `yaml:"backends"`
	Tags       []fact     `yaml:"tags"`
}

type factsFile struct {
	Repos []repo `yaml:"repos"`
}

// tally counts facts of one kind.
type tally struct{ found, total int }

func (t tally) String() string {
	if t.total == 0 {
		return "   -"
	}
	return fmt.Sprintf("%3d/%-3d %5.1f%%", t.found, t.total, 100*float64(t.found)/float64(t.total))
}

func main() {
	factsPath := flag.String("facts", "bench/audit-accuracy/facts.yaml", "the hand-checked facts")
	reposDir := flag.String("repos", "", "directory holding a checkout of each repository, named as in the facts")
	verbose := flag.Bool("v", false, "list the facts found too, not only the missed ones")
	flag.Parse()
	if *reposDir == "" {
		fmt.Fprintln(os.Stderr, "audit-accuracy: -repos DIR is required (scripts/bench-audit-fetch.sh DIR fetches the repositories)")
		os.Exit(2)
	}
	data, err := os.ReadFile(*factsPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "audit-accuracy: %v\n", err)
		os.Exit(1)
	}
	var ff factsFile
	if err := yaml.Unmarshal(data, &ff); err != nil {
		fmt.Fprintf(os.Stderr, "audit-accuracy: %s: %v\n", *factsPath, err)
		os.Exit(1)
	}
	kinds := []string{"frameworks", "train (drafted)", "backends", "tags (exact)"}
	totals := map[string]*tally{}
	for _, k := range kinds {
		totals[k] = &tally{}
	}
	// Repositories added in a later batch are also counted apart: their
	// figures measure how the audit does on code it was not tuned on.
	batches := map[string]map[string]*tally{}
	var falseFW []string
	scored, skipped := 0, 0
	for _, r := range ff.Repos {
		dir := filepath.Join(*reposDir, r.Name)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			fmt.Printf("skip %s: no checkout at %s\n", r.Name, dir)
			skipped++
			continue
		}
		rep, err := audit.Run(context.Background(), dir, audit.Options{})
		if err != nil {
			fmt.Fprintf(os.Stderr, "audit-accuracy: %s: %v\n", r.Name, err)
			os.Exit(1)
		}
		scored++
		fmt.Printf("== %s\n", r.Name)
		if r.Batch != "" && batches[r.Batch] == nil {
			batches[r.Batch] = map[string]*tally{}
			for _, k := range kinds {
				batches[r.Batch][k] = &tally{}
			}
		}
		check := func(kind, what string, ok bool) {
			ts := []*tally{totals[kind]}
			if r.Batch != "" {
				ts = append(ts, batches[r.Batch][kind])
			}
			for _, t := range ts {
				t.total++
				if ok {
					t.found++
				}
			}
			if !ok || *verbose {
				mark := "MISS"
				if ok {
					mark = "ok  "
				}
				fmt.Printf("  %s %-16s %s\n", mark, kind, what)
			}
		}
		named := map[string]bool{}
		for _, f := range rep.Frameworks {
			if f.Kind != "unknown" {
				named[f.Kind] = true
			}
		}
		if r.RL != nil && !*r.RL {
			for _, f := range rep.Frameworks {
				if f.Kind == "unknown" {
					continue
				}
				e := ""
				if len(f.Evidence) > 0 {
					e = " (" + f.Evidence[0].String() + ")"
				}
				falseFW = append(falseFW, fmt.Sprintf("%s: %s %s%s", r.Name, f.Kind, f.Confidence, e))
				fmt.Printf("  FALSE framework %s %s%s\n", f.Kind, f.Confidence, e)
			}
			continue
		}
		for _, f := range r.Frameworks {
			check("frameworks", f.ID, named[f.ID])
		}
		if r.Train != nil {
			got := rep.Adapter.Commands["train"]
			check("train (drafted)", fmt.Sprintf("%s %s (drafted: %q)", r.Train.Program, strings.Join(r.Train.Args, " "), got), trainMatches(*r.Train, got))
		}
		backends := map[string]bool{}
		for _, l := range rep.Logging {
			backends[l.Kind] = true
		}
		for _, b := range r.Backends {
			check("backends", b.ID, backends[b.ID])
		}
		tags := map[string]bool{}
		for _, t := range rep.Tags {
			tags[t.Tag] = true
		}
		for _, t := range r.Tags {
			check("tags (exact)", t.Tag, tags[t.Tag])
		}
	}
	fmt.Printf("\n%d repositories scored, %d skipped\n", scored, skipped)
	fmt.Println("recall per kind of fact (goal: >= 90%)")
	for _, k := range kinds {
		fmt.Printf("  %-16s %s\n", k, totals[k])
	}
	names := make([]string, 0, len(batches))
	for b := range batches {
		names = append(names, b)
	}
	sort.Strings(names)
	for _, b := range names {
		fmt.Printf("of which batch %s (added untuned; first-run figures in facts.yaml):\n", b)
		for _, k := range kinds {
			fmt.Printf("  %-16s %s\n", k, batches[b][k])
		}
	}
	sort.Strings(falseFW)
	fmt.Printf("false frameworks on repositories that are not RL training code: %d (goal: 0)\n", len(falseFW))
	for _, f := range falseFW {
		fmt.Println("  " + f)
	}
}

// trainMatches reports whether the drafted train command runs the
// documented program with the documented arguments. A documented script
// path may be relative to a directory the README changes into first, so
// a drafted path ending in it counts.
func trainMatches(want trainFact, drafted string) bool {
	if drafted == "" {
		return false
	}
	got := program(shellFields(drafted))
	runs := func(p string) bool {
		w := program(shellFields("python " + p))
		if strings.HasPrefix(p, "-m ") {
			w = p
		}
		return got == w || strings.HasSuffix(got, "/"+w)
	}
	for _, p := range want.Or {
		if runs(p) {
			return true
		}
	}
	if !runs(want.Program) {
		return false
	}
	for _, a := range want.Args {
		if !strings.Contains(drafted, a) {
			return false
		}
	}
	return true
}

// program is what a command line runs: "-m module", a script path, or a
// console script with its subcommand, looking through environment
// assignments and launchers.
func program(argv []string) string {
	for i := 0; i < len(argv); i++ {
		w := argv[i]
		switch {
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "-"):
			continue // VAR=value
		case w == "--":
			continue
		case strings.HasPrefix(w, "-"):
			// -m, or a cluster of Python's one-letter options ending in
			// it (-um, -Bm)
			if len(w) > 1 && w[1] != '-' && strings.HasSuffix(w, "m") && strings.Trim(w[1:], "bBdEiIOqsSuvR") == "m" && i+1 < len(argv) {
				return "-m " + argv[i+1]
			}
			if w == "--module" && i+1 < len(argv) {
				return "-m " + argv[i+1]
			}
			continue
		}
		base := filepath.Base(w)
		switch {
		case strings.HasPrefix(base, "python"), base == "bash", base == "sh", base == "uv", base == "poetry", base == "pipenv", base == "run",
			base == "torchrun", base == "deepspeed", base == "accelerate", base == "launch", base == "srun", base == "exec":
			continue
		case strings.HasSuffix(w, ".yaml") || strings.HasSuffix(w, ".yml") || strings.HasSuffix(w, ".json"):
			continue // a launcher's config (accelerate launch --config_file X)
		case strings.Contains(w, "/") || strings.HasSuffix(w, ".py") || strings.HasSuffix(w, ".sh"):
			return strings.TrimPrefix(w, "./")
		}
		if i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") && !strings.Contains(argv[i+1], "{") {
			return w + " " + argv[i+1]
		}
		return w
	}
	return ""
}

// shellFields splits a command line on blanks, keeping quoted words
// whole (enough for the commands the audit drafts).
func shellFields(s string) []string {
	var out []string
	var cur strings.Builder
	quote := byte(0)
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
