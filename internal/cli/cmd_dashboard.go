package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/rlxp/rlxp/internal/adapter"
	"github.com/rlxp/rlxp/internal/contract"
	"github.com/rlxp/rlxp/internal/dashboard"
	"github.com/rlxp/rlxp/internal/diagnose"
	"github.com/rlxp/rlxp/internal/metrics"
	"github.com/rlxp/rlxp/internal/probe"
	"github.com/rlxp/rlxp/internal/runs"
	"github.com/rlxp/rlxp/internal/slurm"
	"github.com/rlxp/rlxp/internal/state"
)

type dashboardOptions struct {
	root    string
	port    int
	running bool
}

func newDashboardCmd() *Command {
	var o dashboardOptions
	fs := pflag.NewFlagSet("dashboard", pflag.ContinueOnError)
	addRootFlag(fs, &o.root)
	fs.IntVar(&o.port, "port", 0, "serve on `N` (default: a free port)")
	fs.BoolVar(&o.running, "running", false, "start nothing: print the URL of the dashboard already serving this repository, or exit 3")
	return &Command{
		UsageLine: "rlxp dashboard [--root DIR] [--port N] [--running]",
		Short:     "serve a local web view of the contract, experiments, ledger, runs and learning curves",
		Long: `Dashboard serves a page on 127.0.0.1 only, never on another address: the
contract with each section's approval state, the experiments with their
status, the ledger's leaderboard (verdicts, 95% confidence intervals and
deltas against the baseline), each run's state with its liveness and failure
signatures as status finds them, and learning curves of the primary metric
and each guardrail, every run overlaid and the baseline's drawn in black.
Curves are read through the same metric readers as status and score, from
the sources adapter.yaml declares, and downsampled on the server to at most
500 points per run, so that a huge metric file costs little memory.

Every request reads the files afresh: the page is as current as the disk.
The page and its script are built into rlxp and load nothing from the
network. Dashboard only reads; it never writes .rlxp.

Without --port it picks a free port. It prints the URL and serves until
interrupted. It notes its URL and pid in a file outside .rlxp (in
$XDG_RUNTIME_DIR, else the temporary directory); when a dashboard for the
same repository already answers there, it prints that one's URL and exits
without starting another. --running only asks: it prints the running
one's URL, or says that none is running and exits 3.

EXIT STATUS
  0  served until interrupted, or one for this repository is already running
  1  .rlxp is missing, or the port cannot be bound
  2  usage error
  3  --running: no dashboard is running for this repository`,
		Flags: fs,
		Run: func(ctx context.Context, env *Env, args []string) error {
			return runDashboard(ctx, env, &o, args)
		},
	}
}

// dashInstance is the record of a running dashboard.
type dashInstance struct {
	URL  string `json:"url"`
	PID  int    `json:"pid"`
	Root string `json:"root"`
}

func runDashboard(ctx context.Context, env *Env, o *dashboardOptions, args []string) error {
	if len(args) > 0 {
		return usagef("dashboard takes no arguments (use --root DIR)")
	}
	if o.port < 0 || o.port > 65535 {
		return usagef("--port %d: want 1 to 65535, or 0 for a free port", o.port)
	}
	r, err := openRepo(env, o.root)
	if err != nil {
		return err
	}
	// Says how to create .rlxp when it is missing.
	if _, err := r.Read(state.Contract); err != nil {
		return err
	}
	record := instancePath(env, r.Root)
	if inst, ok := runningInstance(ctx, record, r.Root); ok {
		fmt.Fprintf(env.Stdout, "a dashboard for %s is already running (pid %d)\n%s\n", r.Root, inst.PID, inst.URL)
		return nil
	}
	if o.running {
		fmt.Fprintf(env.Stdout, "no dashboard is running for %s\n", r.Root)
		return errNegative
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.port)))
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	url := "http://" + ln.Addr().String() + "/"
	inst := dashInstance{URL: url, PID: os.Getpid(), Root: r.Root}
	data, err := json.Marshal(inst)
	if err != nil {
		ln.Close()
		return err
	}
	if err := state.WriteFile(record, data, 0o600); err != nil {
		warnf(env, "cannot record the running dashboard: %v", err)
	}
	defer func() {
		// Another dashboard may have replaced the record since.
		if cur, err := os.ReadFile(record); err == nil && string(cur) == string(data) {
			os.Remove(record)
		}
	}()

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{
		Handler:           &dashboard.Server{Backend: &dashBackend{env: env, r: r}, Root: r.Root, PID: inst.PID},
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	fmt.Fprintf(env.Stdout, "serving %s\n%s\n", r.Root, url)
	fmt.Fprintln(env.Stderr, "rlxp: press Ctrl-C to stop the dashboard")
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("dashboard: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return fmt.Errorf("dashboard: stopping: %w", err)
	}
	return nil
}

// instancePath is where the dashboard of a repository records itself:
// outside .rlxp, which it never writes, and per user where the system
// gives each user a runtime directory.
func instancePath(env *Env, root string) string {
	dir := env.Getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(dir, "rlxp-dashboard-"+hex.EncodeToString(sum[:8])+".json")
}

// runningInstance reports the dashboard recorded for root when it answers
// on its URL and says it shows the same repository.
func runningInstance(ctx context.Context, record, root string) (dashInstance, bool) {
	data, err := os.ReadFile(record)
	if err != nil {
		return dashInstance{}, false
	}
	inst, err := parseInstance(data)
	if err != nil || inst.Root != root {
		return dashInstance{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, inst.URL+"api/instance", nil)
	if err != nil {
		return dashInstance{}, false
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return dashInstance{}, false
	}
	defer res.Body.Close()
	var got dashInstance
	if res.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(res.Body, 1<<16)).Decode(&got) != nil {
		return dashInstance{}, false
	}
	return inst, got.Root == root
}

// parseInstance reads an instance record, accepting only a loopback URL so
// that a planted record cannot send the check elsewhere.
func parseInstance(data []byte) (dashInstance, error) {
	var inst dashInstance
	if err := json.Unmarshal(data, &inst); err != nil {
		return inst, fmt.Errorf("dashboard record: %w", err)
	}
	rest, ok := strings.CutPrefix(inst.URL, "http://127.0.0.1:")
	port, ok2 := strings.CutSuffix(rest, "/")
	if n, err := strconv.Atoi(port); !ok || !ok2 || err != nil || n < 1 || n > 65535 {
		return inst, fmt.Errorf("dashboard record: url %q is not a loopback dashboard URL", inst.URL)
	}
	return inst, nil
}

// dashBackend reads the repository for each dashboard request.
type dashBackend struct {
	env *Env
	r   *state.Repo
}

// dashState is /api/state.
type dashState struct {
	Schema string `json:"schema"`
	Root   string `json:"root"`
	// Problem says why runs cannot be shown (adapter.yaml or a run.json
	// unreadable); the rest of the state is shown all the same.
	Problem     string           `json:"problem,omitempty"`
	Contract    any              `json:"contract"`
	Experiments any              `json:"experiments"`
	Leaderboard any              `json:"leaderboard"`
	Runs        []statusRun      `json:"runs"`
	Charts      dashboard.Charts `json:"charts"`
}

// staleAfter is the log age at which a live run counts as stalled, as
// status's default says.
const staleAfter = 30 * time.Minute

func (b *dashBackend) State(ctx context.Context) (any, error) {
	rep, err := buildReport(b.env, b.r)
	if err != nil {
		return nil, err
	}
	st := dashState{Schema: "rlxp.dashboard/v1", Root: b.r.Root, Contract: rep.Contract, Experiments: rep.Experiments, Leaderboard: rep.Leaderboard, Runs: []statusRun{}}
	ad, recs, err := b.runs()
	if err != nil {
		st.Problem = err.Error()
	}
	h, sched := probe.System(), slurmScheduler{slurm.New()}
	for _, rec := range recs {
		run, err := statusOf(b.env, b.r, ad, rec, diagnose.Check(ctx, h, sched, rec), staleAfter)
		if err != nil {
			return nil, err
		}
		st.Runs = append(st.Runs, run)
	}
	if st.Charts, err = b.Charts(ctx); err != nil {
		return nil, err
	}
	return st, nil
}

// runs reads adapter.yaml and the run records, in the order status and
// the report show them.
func (b *dashBackend) runs() (*adapter.Adapter, []runs.Record, error) {
	data, err := b.r.Read(state.Adapter)
	if err != nil {
		return nil, nil, err
	}
	ad, err := adapter.Parse(b.r.Show(state.Adapter), data)
	if err != nil {
		return nil, nil, err
	}
	recs, err := runs.List(b.r.Path(state.Runs))
	if err != nil {
		return nil, nil, err
	}
	for _, rec := range recs {
		if err := checkRecord(rec); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", b.r.Display(filepath.Join(state.DirName, state.Runs, rec.ID, "run.json")), err)
		}
	}
	return ad, recs, nil
}

func (b *dashBackend) Charts(ctx context.Context) (dashboard.Charts, error) {
	c, err := loadContract(b.r)
	if err != nil {
		return dashboard.Charts{}, err
	}
	recs, err := runs.List(b.r.Path(state.Runs))
	if err != nil {
		return dashboard.Charts{}, err
	}
	return chartsOf(c.Contract.Metrics.Primary.Name, guardrailNames(c.Contract.Metrics.Guardrails), c.Contract.Baseline.Experiment, recs), nil
}

func (b *dashBackend) Sources(ctx context.Context, id string) ([]dashboard.Source, error) {
	ad, recs, err := b.runs()
	if err != nil {
		return nil, err
	}
	for _, rec := range recs {
		if rec.ID == id {
			return runSources(b.r, ad, rec)
		}
	}
	return nil, dashboard.ErrUnknownRun
}

// runSources are a run's log and the metric sources adapter.yaml declares,
// filled in for the run; a source that cannot be filled in is left out, as
// status leaves it out.
func runSources(r *state.Repo, ad *adapter.Adapter, rec runs.Record) ([]dashboard.Source, error) {
	start, _ := time.Parse(time.RFC3339, rec.StartedAt)
	log := rec.Log
	if log == "" {
		log = filepath.Join(state.DirName, state.Runs, rec.ID, "log")
	}
	out := []dashboard.Source{{Path: inRepo(r, log), Format: metrics.VerlLog, NotBefore: start, Fallback: true}}
	for _, name := range ad.SourceNames() {
		rel, format, skip, err := runSource(r, ad, name, rec)
		if err != nil {
			return nil, err
		}
		if skip == "" {
			out = append(out, dashboard.Source{Path: inRepo(r, rel), Format: format, NotBefore: start})
		}
	}
	return out, nil
}

// chartsOf lists the charts: the primary metric, then each guardrail; and
// the runs each one overlays, in start order.
func chartsOf(primary string, guardrails []string, baseline string, recs []runs.Record) dashboard.Charts {
	cs := dashboard.Charts{Tags: []dashboard.ChartTag{}, Runs: []dashboard.ChartRun{}}
	if primary != "" {
		cs.Tags = append(cs.Tags, dashboard.ChartTag{Tag: primary, Title: "primary: " + primary})
	}
	for _, g := range guardrails {
		cs.Tags = append(cs.Tags, dashboard.ChartTag{Tag: g, Title: "guardrail: " + g})
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
		cs.Runs = append(cs.Runs, dashboard.ChartRun{ID: rec.ID, Label: label + " (" + rec.ID + ")", Baseline: baseline != "" && rec.Experiment == baseline})
	}
	return cs
}

func guardrailNames(gs []contract.Guardrail) []string {
	out := make([]string, 0, len(gs))
	for _, g := range gs {
		if g.Name != "" {
			out = append(out, g.Name)
		}
	}
	return out
}
