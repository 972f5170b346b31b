package dashboard

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/ledger"
	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/plot"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/report"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/runstatus"
	"github.com/rlxp/rlxp/internal/schema/validate"
	"github.com/rlxp/rlxp/internal/slurm"
	"github.com/rlxp/rlxp/internal/state"
)

// Repo is the Backend of a repository on disk: it reads the state files
// for each request, and each run's metric files only when they changed.
type Repo struct {
	r     *state.Repo
	now   func() time.Time
	host  probe.Host
	sched diagnose.Scheduler
	cache *runstatus.Cache
}

// NewRepo serves the repository r; now is the clock run ages are told by.
func NewRepo(r *state.Repo, now func() time.Time) *Repo {
	return &Repo{r: r, now: now, host: probe.System(), sched: runstatus.Scheduler(slurm.New()), cache: runstatus.NewCache()}
}

// State is /api/state.
type State struct {
	Schema string `json:"schema"`
	Root   string `json:"root"`
	// Problem says why runs cannot be shown (adapter.yaml or a run.json
	// unreadable); the rest of the state is shown all the same.
	Problem     string              `json:"problem,omitempty"`
	Contract    report.Contract     `json:"contract"`
	Experiments []report.Experiment `json:"experiments"`
	Leaderboard report.Leaderboard  `json:"leaderboard"`
	Runs        []runstatus.Run     `json:"runs"`
	Charts      Charts              `json:"charts"`
}

// State reads the contract, experiments, ledger and every run's status.
func (b *Repo) State(ctx context.Context) (any, error) {
	// The run records are read once for the report, the runs and the
	// charts: with a thousand runs, they are most of a warm request.
	recs, err := runs.List(b.r.Path(state.Runs))
	if err != nil {
		return nil, err
	}
	rep, _, err := report.Load(b.r, recs)
	if err != nil {
		return nil, err
	}
	st := State{Schema: "rlxp.dashboard/v1", Root: b.r.Root, Contract: rep.Contract, Experiments: rep.Experiments, Leaderboard: rep.Leaderboard, Runs: []runstatus.Run{}}
	if st.Charts, err = b.charts(recs); err != nil {
		return nil, err
	}
	ad, err := runstatus.Check(b.r, recs)
	if err != nil {
		st.Problem = err.Error()
		return st, nil
	}
	rd := &runstatus.Reader{Repo: b.r, Adapter: ad, Now: b.now, Stale: runstatus.DefaultStale, Cache: b.cache}
	for _, rec := range recs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		run, err := rd.Of(rec, diagnose.Check(ctx, b.host, b.sched, rec))
		if err != nil {
			return nil, err
		}
		st.Runs = append(st.Runs, run)
	}
	b.cache.Sweep()
	return st, nil
}

// Charts lists the primary metric's and each guardrail's chart and the
// runs they overlay.
func (b *Repo) Charts(ctx context.Context) (Charts, error) {
	recs, err := runs.List(b.r.Path(state.Runs))
	if err != nil {
		return Charts{}, err
	}
	return b.charts(recs)
}

func (b *Repo) charts(recs []runs.Record) (Charts, error) {
	data, err := b.r.Read(state.Contract)
	if err != nil {
		return Charts{}, err
	}
	c, err := contract.Parse(validate.Schemas{}, b.r.Show(state.Contract), data)
	if err != nil {
		return Charts{}, err
	}
	var guardrails []string
	for _, g := range c.Contract.Metrics.Guardrails {
		if g.Name != "" {
			guardrails = append(guardrails, g.Name)
		}
	}
	return chartsOf(c.Contract.Metrics.Primary.Name, guardrails, c.Contract.Baseline.Experiment, recs), nil
}

// Sources lists a run's log and declared metric files.
func (b *Repo) Sources(ctx context.Context, id string) ([]Source, error) {
	ad, recs, err := runstatus.Load(b.r)
	if err != nil {
		return nil, err
	}
	for _, rec := range recs {
		if rec.ID == id {
			return runSources(b.r, ad, rec)
		}
	}
	return nil, ErrUnknownRun
}

// Compare reads the ledger and compares two experiments' latest entries.
func (b *Repo) Compare(ctx context.Context, a, c string) (Comparison, error) {
	data, err := b.r.Read(state.Ledger)
	if err != nil {
		return Comparison{}, err
	}
	entries, _ := ledger.Load(b.r.Show(state.Ledger), data)
	return Compare(entries, a, c)
}

// Check refuses a broken adapter.yaml or run.json, which would otherwise
// draw empty charts.
func (b *Repo) Check() error {
	_, _, err := runstatus.Load(b.r)
	return err
}

// runSources are a run's log and the metric sources adapter.yaml declares,
// filled in for the run; a source that cannot be filled in is left out, as
// status leaves it out.
func runSources(r *state.Repo, ad *adapter.Adapter, rec runs.Record) ([]Source, error) {
	start, _ := time.Parse(time.RFC3339, rec.StartedAt)
	out := []Source{{Path: runstatus.InRepo(r, runstatus.LogPath(rec)), Format: metrics.VerlLog, NotBefore: start, Fallback: true}}
	for _, name := range ad.SourceNames() {
		rel, format, skip, err := runstatus.RunSource(r, ad, name, rec)
		if err != nil {
			return nil, err
		}
		if skip == "" {
			out = append(out, Source{Path: runstatus.InRepo(r, rel), Format: format, NotBefore: start})
		}
	}
	return out, nil
}

// chartsOf lists the charts: the primary metric, then each guardrail; and
// the runs each one overlays, in start order.
func chartsOf(primary string, guardrails []string, baseline string, recs []runs.Record) Charts {
	cs := Charts{Tags: []ChartTag{}, Runs: []ChartRun{}}
	if primary != "" {
		cs.Tags = append(cs.Tags, ChartTag{Tag: primary, Title: "primary: " + primary})
	}
	for _, g := range guardrails {
		cs.Tags = append(cs.Tags, ChartTag{Tag: g, Title: "guardrail: " + g})
	}
	recs = append([]runs.Record(nil), recs...)
	sort.SliceStable(recs, func(i, j int) bool {
		if recs[i].StartedAt != recs[j].StartedAt {
			return recs[i].StartedAt < recs[j].StartedAt
		}
		return recs[i].ID < recs[j].ID
	})
	for _, rec := range recs {
		label := rec.Experiment
		if rec.Seed != nil {
			label += fmt.Sprintf(" seed %d", *rec.Seed)
		}
		cs.Runs = append(cs.Runs, ChartRun{ID: rec.ID, Label: label + " (" + rec.ID + ")", Experiment: rec.Experiment, Seed: rec.Seed, Baseline: baseline != "" && rec.Experiment == baseline})
	}
	return cs
}

// ReportCharts draws the report's charts (see Plots) from r's state.
func ReportCharts(r *state.Repo, now func() time.Time) report.Charts {
	return func(ctx context.Context) ([]report.Plot, map[string][]byte, error) {
		return Plots(ctx, NewRepo(r, now))
	}
}

// Plots draws the primary metric's and each guardrail's chart for a
// report, keyed by file name relative to report.md.
func Plots(ctx context.Context, b *Repo) ([]report.Plot, map[string][]byte, error) {
	if err := b.Check(); err != nil {
		return nil, nil, err
	}
	cs, err := b.Charts(ctx)
	if err != nil {
		return nil, nil, err
	}
	plots := []report.Plot{}
	charts := map[string][]byte{}
	for _, t := range cs.Tags {
		svg, err := Draw(ctx, b, cs, t, DefaultPoints)
		if err != nil {
			return nil, nil, err
		}
		p := report.Plot{Metric: t.Tag, File: "plots/" + plot.FileName(t.Tag)}
		plots = append(plots, p)
		charts[p.File] = svg
	}
	return plots, charts, nil
}
