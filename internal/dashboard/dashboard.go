// Package dashboard serves a local, read-only web view of a repository's
// rlxp state: the contract, experiments, leaderboard, runs and learning
// curves. Every request reads the files afresh through a Backend; nothing
// is cached and nothing is written.
package dashboard

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/plot"
	"github.com/rlxp/rlxp/internal/state"
)

//go:embed static
var assets embed.FS

// ErrUnknownRun is what a Backend returns for a run id it does not have.
var ErrUnknownRun = errors.New("no such run")

// DefaultPoints is how many points a curve gets when a request does not say.
const DefaultPoints = 500

// maxTagLen bounds a tag parameter: tags are compared, never used as paths.
const maxTagLen = 256

// maxTags bounds how many distinct tags /api/tags collects from one run.
const maxTags = 10000

// A Source is one metric file of a run.
type Source struct {
	Path   string         // absolute
	Format metrics.Format // empty: detected
	// NotBefore drops points stamped before the run started: an earlier run
	// appending to the same file.
	NotBefore time.Time
	// Fallback sources (the run's console log) give only the tags no other
	// source has: a value a trainer both prints and writes counts once.
	Fallback bool
}

// Charts is what the curves show: one chart per tag, each run a line.
type Charts struct {
	Tags []ChartTag `json:"tags"`
	Runs []ChartRun `json:"runs"`
}

// ChartTag is one chart: the primary metric or a guardrail.
type ChartTag struct {
	Tag   string `json:"tag"`
	Title string `json:"title"`
}

// ChartRun is one run drawn on every chart.
type ChartRun struct {
	ID         string `json:"id"`
	Label      string `json:"label"`
	Experiment string `json:"experiment"`
	Seed       *int   `json:"seed"`
	Baseline   bool   `json:"baseline"`
}

// A Backend reads the state for each request.
type Backend interface {
	// State is the JSON document /api/state serves.
	State(ctx context.Context) (any, error)
	// Charts says which tags are drawn and which runs overlaid.
	Charts(ctx context.Context) (Charts, error)
	// Sources lists a run's metric files; ErrUnknownRun when there is no
	// such run.
	Sources(ctx context.Context, run string) ([]Source, error)
	// Compare sets two experiments' latest ledger entries side by side;
	// ErrNotScored when one has none.
	Compare(ctx context.Context, a, b string) (Comparison, error)
}

// Server answers the dashboard's requests.
type Server struct {
	Backend Backend
	Root    string // the repository shown, for /api/instance
	PID     int
}

// staticFiles maps each URL the page uses to its embedded file and type.
// Requests are matched against this table only, never joined into a path.
func staticFiles() map[string][2]string {
	return map[string][2]string{
		"/":                   {"static/index.html", "text/html; charset=utf-8"},
		"/index.html":         {"static/index.html", "text/html; charset=utf-8"},
		"/static/app.js":      {"static/app.js", "text/javascript; charset=utf-8"},
		"/static/style.css":   {"static/style.css", "text/css; charset=utf-8"},
		"/static/favicon.svg": {"static/favicon.svg", "image/svg+xml"},
	}
}

// ServeHTTP routes a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "only GET and HEAD are allowed")
		return
	}
	switch r.URL.Path {
	case "/api/state":
		s.state(w, r)
	case "/api/instance":
		writeJSON(w, http.StatusOK, map[string]any{"schema": "rlxp.dashboard/v1", "root": s.Root, "pid": s.PID})
	case "/api/tags":
		s.tags(w, r)
	case "/api/series":
		s.series(w, r)
	case "/api/chart":
		s.chart(w, r)
	case "/api/curves":
		s.curves(w, r)
	case "/api/compare":
		s.compare(w, r)
	default:
		f, ok := staticFiles()[r.URL.Path]
		if !ok {
			writeError(w, http.StatusNotFound, "not found")
			return
		}
		data, err := assets.ReadFile(f[0])
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		h.Set("Content-Type", f[1])
		w.Write(data)
	}
}

func (s *Server) state(w http.ResponseWriter, r *http.Request) {
	st, err := s.Backend.State(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, st)
}

// Query holds a request's validated parameters.
type Query struct {
	Run string
	Tag string
	Max int
}

// ParseQuery validates the parameters of a curve request. The run, when
// asked for, must be a valid id; the tag is only ever compared.
func ParseQuery(get func(string) string, needRun, needTag bool) (Query, error) {
	q := Query{Run: get("run"), Tag: get("tag"), Max: DefaultPoints}
	if needRun {
		if q.Run == "" {
			return q, errors.New("missing run parameter")
		}
		if err := state.ValidID(q.Run); err != nil {
			return q, err
		}
	}
	if needTag {
		if q.Tag == "" {
			return q, errors.New("missing tag parameter")
		}
		if len(q.Tag) > maxTagLen {
			return q, fmt.Errorf("tag longer than %d bytes", maxTagLen)
		}
	}
	if v := get("max"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 || n > plot.MaxPoints {
			return q, fmt.Errorf("max %q: want a whole number from 2 to %d", v, plot.MaxPoints)
		}
		q.Max = n
	}
	return q, nil
}

// sources finds a run's files, answering the request itself on failure.
func (s *Server) sources(w http.ResponseWriter, r *http.Request, run string) ([]Source, bool) {
	srcs, err := s.Backend.Sources(r.Context(), run)
	switch {
	case errors.Is(err, ErrUnknownRun):
		writeError(w, http.StatusNotFound, fmt.Sprintf("no run %q", run))
		return nil, false
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
		return nil, false
	}
	return srcs, true
}

func (s *Server) tags(w http.ResponseWriter, r *http.Request) {
	q, err := ParseQuery(r.URL.Query().Get, true, false)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	srcs, ok := s.sources(w, r, q.Run)
	if !ok {
		return
	}
	ts := &tagSink{seen: map[string]bool{}}
	if err := readAll(r.Context(), srcs)(ts); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"run": q.Run, "tags": ts.sorted()})
}

func (s *Server) series(w http.ResponseWriter, r *http.Request) {
	q, err := ParseQuery(r.URL.Query().Get, true, true)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	srcs, ok := s.sources(w, r, q.Run)
	if !ok {
		return
	}
	pts, err := plot.Downsample(readAll(r.Context(), srcs), q.Tag, q.Max)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := make([][2]float64, len(pts))
	for i, p := range pts {
		out[i] = [2]float64{float64(p.Step), p.Value}
	}
	writeJSON(w, http.StatusOK, map[string]any{"run": q.Run, "tag": q.Tag, "max": q.Max, "count": len(out), "points": out})
}

// tagQuery reads a chart request's parameters and the runs it draws,
// answering the request itself on failure.
func (s *Server) tagQuery(w http.ResponseWriter, r *http.Request) (Query, Charts, bool) {
	q, err := ParseQuery(r.URL.Query().Get, false, true)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return q, Charts{}, false
	}
	cs, err := s.Backend.Charts(r.Context())
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return q, Charts{}, false
	}
	return q, cs, true
}

// chart draws one tag for every run, the same drawing report --plots writes.
func (s *Server) chart(w http.ResponseWriter, r *http.Request) {
	q, cs, ok := s.tagQuery(w, r)
	if !ok {
		return
	}
	t := ChartTag{Tag: q.Tag, Title: q.Tag}
	for _, ct := range cs.Tags {
		if ct.Tag == q.Tag {
			t = ct
		}
	}
	svg, err := Draw(r.Context(), s.Backend, cs, t, q.Max)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write(svg)
}

// curveSeed is one run's points as /api/curves sends them: [step, value,
// wall time] each.
type curveSeed struct {
	Run    string       `json:"run"`
	Seed   *int         `json:"seed"`
	Label  string       `json:"label"`
	Points [][3]float64 `json:"points"`
}

type curveGroup struct {
	plot.Group
	Seeds []curveSeed `json:"seeds"`
}

// curves answers one tag's groups: every run's points, and per experiment
// the mean and 95% band across seeds, or the dots of a metric logged once
// per run. The page draws, smooths and compares them.
func (s *Server) curves(w http.ResponseWriter, r *http.Request) {
	q, cs, ok := s.tagQuery(w, r)
	if !ok {
		return
	}
	groups, err := Groups(r.Context(), s.Backend, cs, q.Tag, q.Max)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	out := make([]curveGroup, len(groups))
	for i, g := range groups {
		out[i] = curveGroup{Group: g, Seeds: make([]curveSeed, len(g.Seeds))}
		for j, sd := range g.Seeds {
			pts := make([][3]float64, len(sd.Points))
			for k, p := range sd.Points {
				pts[k] = [3]float64{float64(p.Step), p.Value, p.WallTime}
			}
			out[i].Seeds[j] = curveSeed{Run: sd.Run, Seed: sd.Seed, Label: sd.Label, Points: pts}
		}
	}
	kind := "curves"
	if plot.Once(groups) {
		kind = "dots"
	}
	writeJSON(w, http.StatusOK, map[string]any{"tag": q.Tag, "max": q.Max, "kind": kind, "grid_points": plot.GridPoints, "groups": out})
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	a, b := r.URL.Query().Get("a"), r.URL.Query().Get("b")
	for _, id := range []string{a, b} {
		if err := state.ValidID(id); err != nil {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("experiment %q: %v", id, err))
			return
		}
	}
	c, err := s.Backend.Compare(r.Context(), a, b)
	switch {
	case errors.Is(err, ErrNotScored):
		writeError(w, http.StatusNotFound, err.Error())
	case err != nil:
		writeError(w, http.StatusInternalServerError, err.Error())
	default:
		writeJSON(w, http.StatusOK, c)
	}
}

// Draw reads one tag of every run of cs and draws it as report --plots
// does: grouped by experiment, each run downsampled to at most max points.
func Draw(ctx context.Context, b Backend, cs Charts, t ChartTag, max int) ([]byte, error) {
	groups, err := Groups(ctx, b, cs, t.Tag, max)
	if err != nil {
		return nil, err
	}
	return plot.SVG(plot.Chart{Title: t.Title, Tag: t.Tag, Groups: groups}), nil
}

// Groups reads one tag of the runs of cs, each downsampled to at most max
// points, and groups them by experiment: the baseline first, then the
// others in the order they first ran. A seed run more than once counts
// with its latest run, as status reports an experiment's seeds.
func Groups(ctx context.Context, b Backend, cs Charts, tag string, max int) ([]plot.Group, error) {
	var order []string
	latest := map[string]map[string]ChartRun{} // experiment → seed key → run
	baseline := map[string]bool{}
	for _, run := range cs.Runs { // in start order
		if latest[run.Experiment] == nil {
			latest[run.Experiment] = map[string]ChartRun{}
			order = append(order, run.Experiment)
		}
		latest[run.Experiment][seedKey(run)] = run
		baseline[run.Experiment] = baseline[run.Experiment] || run.Baseline
	}
	sort.SliceStable(order, func(i, j int) bool { return baseline[order[i]] && !baseline[order[j]] })
	groups := []plot.Group{}
	for _, exp := range order {
		g := plot.Group{Experiment: exp, Baseline: baseline[exp], Seeds: []plot.Seed{}}
		for _, run := range cs.Runs {
			if latest[exp][seedKey(run)] != run {
				continue
			}
			srcs, err := b.Sources(ctx, run.ID)
			if err != nil {
				return nil, err
			}
			pts, err := plot.Downsample(readAll(ctx, srcs), tag, max)
			if err != nil {
				return nil, err
			}
			g.Seeds = append(g.Seeds, plot.Seed{Run: run.ID, Seed: run.Seed, Label: run.Label, Points: pts})
		}
		sort.SliceStable(g.Seeds, func(i, j int) bool { return seedOrder(g.Seeds[i].Seed) < seedOrder(g.Seeds[j].Seed) })
		groups = append(groups, g)
	}
	plot.Aggregate(groups)
	return groups, nil
}

func seedKey(run ChartRun) string {
	if run.Seed == nil {
		return run.ID
	}
	return "seed " + strconv.Itoa(*run.Seed)
}

func seedOrder(s *int) int {
	if s == nil {
		return -1
	}
	return *s
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		code, data = http.StatusInternalServerError, []byte(`{"error":"cannot encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(data, '\n'))
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}
