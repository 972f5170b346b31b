// Package plugin validates the RL Experiment Assistant plugin package as both
// hosts read it: the Claude Code marketplace (.claude-plugin/marketplace.json),
// the Codex marketplace (.agents/plugins/marketplace.json), each plugin's two
// manifests, and every skill, agent and hook file. It checks statically what
// Claude Code's "plugin validate" and Codex's marketplace and plugin loaders
// reject, and the cases where one host silently drops what the other loads.
package plugin

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// Severity says whether a finding breaks a host (error) or degrades the
// package or fails "claude plugin validate --strict" (warning).
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Finding is one problem in the package. File is relative to the validated
// directory, with forward slashes; Line is 1-based, 0 when unknown.
type Finding struct {
	File     string   `json:"file"`
	Line     int      `json:"line,omitempty"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// String renders the finding as "file:line: severity: message".
func (f Finding) String() string {
	loc := f.File
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return fmt.Sprintf("%s: %s: %s", loc, f.Severity, f.Message)
}

// PluginSummary describes one validated plugin.
type PluginSummary struct {
	Name     string   `json:"name"`
	Version  string   `json:"version,omitempty"`
	Dir      string   `json:"dir"`
	Skills   []string `json:"skills"`
	Commands []string `json:"commands"` // Claude Code only; each enters a skill
	Agents   []string `json:"agents"`
	Hooks    []string `json:"hooks"` // the events it has hooks for
}

// Report is the result of Validate.
type Report struct {
	Root     string          `json:"root"`
	Plugins  []PluginSummary `json:"plugins"`
	Findings []Finding       `json:"findings"`
}

// Errors counts error findings.
func (r *Report) Errors() int { return r.count(SeverityError) }

// Warnings counts warning findings.
func (r *Report) Warnings() int { return r.count(SeverityWarning) }

// WriteText writes the report as text: one line per finding, one per
// plugin, and a last line counting errors and warnings in dir (as the user
// named it).
func (r *Report) WriteText(w io.Writer, dir string) {
	for _, f := range r.Findings {
		fmt.Fprintln(w, f.String())
	}
	for _, p := range r.Plugins {
		hooks := "none"
		if len(p.Hooks) > 0 {
			hooks = strings.Join(p.Hooks, ", ")
		}
		fmt.Fprintf(w, "plugin %s %s: %d skills, %d commands, %d agents, hooks: %s\n", p.Name, p.Version, len(p.Skills), len(p.Commands), len(p.Agents), hooks)
	}
	fmt.Fprintf(w, "%s: %d errors, %d warnings\n", dir, r.Errors(), r.Warnings())
}

func (r *Report) count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == s {
			n++
		}
	}
	return n
}

// Paths of the package files, relative to a marketplace root or plugin dir.
const (
	ClaudeMarketplaceFile = ".claude-plugin/marketplace.json"
	CodexMarketplaceFile  = ".agents/plugins/marketplace.json"
	ClaudeManifestFile    = ".claude-plugin/plugin.json"
	CodexManifestFile     = ".codex-plugin/plugin.json"
)

// Validate checks the package at dir. dir is either a marketplace root (it
// holds .claude-plugin/marketplace.json and/or .agents/plugins/marketplace.json;
// both marketplaces and every local plugin they list are checked) or a
// plugin directory (it holds .claude-plugin/plugin.json or
// .codex-plugin/plugin.json). The error is only for I/O problems with dir
// itself; everything wrong inside the package is a Finding.
func Validate(dir string) (*Report, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("validate plugin package: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("validate plugin package: %s is not a directory", dir)
	}
	if _, err := os.ReadDir(dir); err != nil {
		return nil, fmt.Errorf("validate plugin package: %w", err)
	}
	v := &validator{root: dir}
	claudeMkt := v.isFile(ClaudeMarketplaceFile)
	codexMkt := v.isFile(CodexMarketplaceFile)
	switch {
	case claudeMkt || codexMkt:
		v.validateMarketplaces(claudeMkt, codexMkt)
	case v.isFile(ClaudeManifestFile) || v.isFile(CodexManifestFile):
		v.validatePlugin(".", pluginExpect{})
	default:
		v.errorf(".", 0, "no plugin package here: expected a marketplace (%s or %s) or a plugin manifest (%s or %s)",
			ClaudeMarketplaceFile, CodexMarketplaceFile, ClaudeManifestFile, CodexManifestFile)
	}
	rep := &Report{Root: dir, Plugins: v.plugins, Findings: v.findings}
	if rep.Plugins == nil {
		rep.Plugins = []PluginSummary{}
	}
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	return rep, nil
}

// validator collects findings for one Validate call.
type validator struct {
	root     string
	findings []Finding
	plugins  []PluginSummary
}

func (v *validator) add(sev Severity, file string, line int, format string, args ...any) {
	v.findings = append(v.findings, Finding{File: file, Line: line, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

func (v *validator) errorf(file string, line int, format string, args ...any) {
	v.add(SeverityError, file, line, format, args...)
}

func (v *validator) warnf(file string, line int, format string, args ...any) {
	v.add(SeverityWarning, file, line, format, args...)
}

// abs turns a package-relative slash path into an OS path.
func (v *validator) abs(rel string) string {
	return filepath.Join(v.root, filepath.FromSlash(rel))
}

func (v *validator) stat(rel string) (fs.FileInfo, error) {
	return os.Stat(v.abs(rel))
}

func (v *validator) isFile(rel string) bool {
	fi, err := v.stat(rel)
	return err == nil && fi.Mode().IsRegular()
}

func (v *validator) isDir(rel string) bool {
	fi, err := v.stat(rel)
	return err == nil && fi.IsDir()
}

// readFile reads a package file; a failure becomes a finding.
func (v *validator) readFile(rel string) ([]byte, bool) {
	data, err := os.ReadFile(v.abs(rel))
	if err != nil {
		v.errorf(rel, 0, "cannot read file: %v", unwrapPathError(err))
		return nil, false
	}
	return data, true
}

// readDir lists a package directory, sorted; a failure becomes a finding.
func (v *validator) readDir(rel string) []fs.DirEntry {
	ents, err := os.ReadDir(v.abs(rel))
	if err != nil {
		v.errorf(rel, 0, "cannot read directory: %v", unwrapPathError(err))
		return nil
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents
}

// readJSON reads and decodes a JSON package file; syntax errors and
// duplicate keys become findings. It returns nil when the file is unusable.
func (v *validator) readJSON(rel string) *jsonDoc {
	data, ok := v.readFile(rel)
	if !ok {
		return nil
	}
	return v.decodeJSON(rel, data)
}

// decodeJSON decodes the content of a JSON package file; syntax errors and
// duplicate keys become findings. It returns nil when the content is unusable.
func (v *validator) decodeJSON(rel string, data []byte) *jsonDoc {
	doc, serr := decodeJSONFile(data)
	if serr != nil {
		v.errorf(rel, serr.Line, "invalid JSON at line %d, column %d: %s", serr.Line, serr.Col, serr.Msg)
		return nil
	}
	for _, d := range doc.Duplicates {
		v.errorf(rel, d.Line, "duplicate key %s: Codex rejects a file with a duplicate field and Claude Code silently keeps the last one", describeJSONPath(d.Path))
	}
	return doc
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// pj joins package-relative slash paths ("." is the root).
func pj(elem ...string) string {
	return path.Join(elem...)
}

// cleanRelPath checks a manifest or marketplace path: it must start with
// "./" and must not contain "..". It returns the cleaned path relative to
// base, and a problem description when it is not acceptable.
func cleanRelPath(base, p string) (string, string) {
	if p == "" {
		return "", "is empty"
	}
	if strings.HasPrefix(p, "/") || filepath.IsAbs(p) {
		return "", fmt.Sprintf("%q is absolute; use a path relative to the plugin root starting with ./", p)
	}
	for _, seg := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if seg == ".." {
			return "", fmt.Sprintf("%q contains \"..\"; both hosts reject paths that leave the root", p)
		}
	}
	if !strings.HasPrefix(p, "./") {
		return "", fmt.Sprintf("%q must start with \"./\"", p)
	}
	return pj(base, p), ""
}

// sortedKeys returns the keys of m in order.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
