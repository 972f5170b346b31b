package audit

import (
	"fmt"
	"strconv"
	"strings"
)

// A Section is one part of the report as a table: a terminal shows the
// title and aligned rows, a pipe gets TSV rows that start with Key.
type Section struct {
	Title  string
	Key    string
	Header []string
	Rows   [][]string
	// Long names what the rows are when the list may run long; a
	// terminal shows the first few and says how many more there are.
	Long string
	// Quiet leaves out an empty section altogether instead of saying
	// that nothing was found.
	Quiet bool
}

// Summary is the report's first line: files listed, read and skipped.
func (r *Report) Summary() string {
	var skipped []string
	for _, k := range sortedKeys(r.Files.Skipped) {
		skipped = append(skipped, fmt.Sprintf("%d %s", r.Files.Skipped[k], k))
	}
	s := fmt.Sprintf("%d files listed, %d read", r.Files.Listed, r.Files.Scanned)
	if len(skipped) > 0 {
		s += "; skipped: " + strings.Join(skipped, ", ")
	}
	return s
}

// Sections is the report as tables, in the order a person reads it.
func (r *Report) Sections() []Section {
	var dirs [][]string
	for _, d := range r.Files.SkippedDirs {
		if d.Reason != "gitignored" {
			dirs = append(dirs, []string{d.Path, d.Reason})
		}
	}
	var eps [][]string
	for _, e := range r.EntryPoints {
		cmd := e.Command
		if e.Usage != "" && e.Usage != e.Command {
			cmd += "  — e.g. " + e.Usage
		}
		eps = append(eps, []string{e.Kind, cmd, string(e.Confidence), evidenceCell(e.Evidence)})
	}
	var tags [][]string
	for _, t := range r.Tags {
		tags = append(tags, []string{t.Tag, t.Role, t.Backend, dash(t.Output), string(t.Confidence), evidenceCell(t.Evidence)})
	}
	var outs [][]string
	for _, o := range r.Outputs {
		outs = append(outs, []string{o.Path, o.Kind, dash(o.Format), dash(o.Role), string(o.Confidence), evidenceCell(o.Evidence)})
	}
	var hw [][]string
	for _, h := range r.Hardware {
		hw = append(hw, []string{h.Name, dash(h.Detail), string(h.Confidence), evidenceCell(h.Evidence)})
	}
	var ps [][]string
	for _, p := range r.Scope {
		ps = append(ps, []string{p.Name, p.Value, p.From, evidenceCell(p.Evidence)})
	}
	var qs [][]string
	for i, q := range r.Questions {
		text := q.Question
		if len(q.Hints) > 0 {
			text += " — repo: " + strings.Join(q.Hints, "; ")
		}
		qs = append(qs, []string{strconv.Itoa(i+1) + ".", q.ID, text})
	}
	var gs [][]string
	for _, g := range r.Guesses {
		gs = append(gs, []string{g})
	}
	four := []string{"KIND", "WHAT", "CONFIDENCE", "EVIDENCE"}
	cand := []string{"TAG", "ROLE", "SOURCE", "GOAL", "CONFIDENCE", "NOTE"}
	return []Section{
		{Title: "SKIPPED DIRECTORIES", Key: "skipped", Header: []string{"PATH", "WHY"}, Rows: dirs, Long: "directories", Quiet: true},
		{Title: "FRAMEWORKS", Key: "framework", Header: []string{"FRAMEWORK", "CONFIDENCE", "EVIDENCE"}, Rows: findingRows(r.Frameworks, false)},
		{Title: "ENTRY POINTS", Key: "entry", Header: []string{"KIND", "COMMAND", "CONFIDENCE", "EVIDENCE"}, Rows: eps, Long: "entry points"},
		{Title: "CONFIG", Key: "config", Header: four, Rows: findingRows(r.Config, true), Long: "config findings"},
		{Title: "LOGGING", Key: "logging", Header: []string{"BACKEND", "CONFIDENCE", "EVIDENCE"}, Rows: findingRows(r.Logging, false)},
		{Title: "METRIC TAGS", Key: "tag", Header: []string{"TAG", "ROLE", "BACKEND", "WRITTEN TO", "CONFIDENCE", "EVIDENCE"}, Rows: tags, Long: "tags"},
		{Title: "OUTPUTS", Key: "output", Header: []string{"PATH", "KIND", "FORMAT", "ROLE", "CONFIDENCE", "EVIDENCE"}, Rows: outs, Long: "outputs"},
		{Title: "LAUNCHERS", Key: "launcher", Header: []string{"LAUNCHER", "CONFIDENCE", "EVIDENCE"}, Rows: findingRows(r.Launchers, false)},
		{Title: "SIMULATORS AND ENVIRONMENTS", Key: "simulator", Header: four, Rows: findingRows(r.Simulators, true), Long: "environments"},
		{Title: "HARDWARE HINTS", Key: "hardware", Header: []string{"HINT", "VALUE", "CONFIDENCE", "EVIDENCE"}, Rows: hw},
		{Title: "METRIC CANDIDATES (held-out evaluation first)", Key: "candidate", Header: cand, Rows: candidateRows(r.MetricCandidates), Long: "candidates"},
		{Title: "GUARDRAIL CANDIDATES", Key: "guardrail", Header: []string{"TAG", "KIND", "SOURCE", "GOAL", "CONFIDENCE", "NOTE"}, Rows: candidateRows(r.Guardrails), Long: "candidates"},
		{Title: "TUNING SCOPE CANDIDATES (defaults; a person sets the ranges)", Key: "scope", Header: []string{"NAME", "DEFAULT", "FROM", "EVIDENCE"}, Rows: ps, Long: "parameters"},
		{Title: "BUDGET QUESTIONS (a person answers these)", Key: "question", Header: []string{"#", "ID", "QUESTION"}, Rows: qs},
		{Title: "GUESSES", Key: "guess", Header: []string{"NOTE"}, Rows: gs},
		{Title: "ADAPTER DRAFT (rlxp audit --write fills .rlxp/adapter.yaml)", Key: "adapter", Header: []string{"FIELD", "VALUE"}, Rows: draftRows(r.Adapter)},
	}
}

// evidenceCell shows up to two pieces of evidence.
func evidenceCell(ev []Evidence) string {
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

func findingRows(fs []Finding, withKind bool) [][]string {
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

func candidateRows(cs []Candidate) [][]string {
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

func draftRows(d Draft) [][]string {
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
	for _, name := range sortedKeys(d.Sources) {
		s := d.Sources[name]
		rows = append(rows, []string{"metrics.sources." + name, s.Path + " (" + s.Format + ")"})
	}
	if len(d.Imports) > 0 {
		rows = append(rows, []string{"runtime.imports", strings.Join(d.Imports, ", ")})
	}
	return rows
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// terminalRows bounds a long section on a terminal; --json has everything.
const terminalRows = 40

// Terminal lays the section out for a terminal: the header and rows
// indented under the title, at most terminalRows rows of a long list,
// and a note to close with: that nothing was found, or how many rows
// more --json has. A quiet section with no rows shows nothing (ok false).
func (s Section) Terminal() (header []string, rows [][]string, note string, ok bool) {
	if len(s.Rows) == 0 {
		return nil, nil, "(none found)", !s.Quiet
	}
	rows = s.Rows
	if s.Long != "" && len(rows) > terminalRows {
		note = fmt.Sprintf("... %d more %s (see --json)", len(rows)-terminalRows, s.Long)
		rows = rows[:terminalRows]
	}
	header = append([]string{"  " + s.Header[0]}, s.Header[1:]...)
	indented := make([][]string, len(rows))
	for i, r := range rows {
		indented[i] = append([]string{"  " + r[0]}, r[1:]...)
	}
	return header, indented, note, true
}

// Rows is the whole report as rows that start with their section's key,
// the summary's first, for scripts to grep and cut.
func (r *Report) Rows() [][]string {
	rows := [][]string{{"files", r.Summary()}}
	for _, s := range r.Sections() {
		for _, row := range s.Rows {
			rows = append(rows, append([]string{s.Key}, row...))
		}
	}
	return rows
}
