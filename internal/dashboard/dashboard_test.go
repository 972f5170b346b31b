package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeBackend serves fixed runs, each with one metric file.
type fakeBackend struct {
	files map[string]string // run id → JSONL file
}

func (f *fakeBackend) State(context.Context) (any, error) {
	return map[string]any{"schema": "rlxp.dashboard/v1", "runs": len(f.files)}, nil
}

func (f *fakeBackend) Charts(context.Context) (Charts, error) {
	cs := Charts{Tags: []ChartTag{{Tag: "reward", Title: "primary: reward"}}}
	for _, id := range []string{"base-0", "exp-0"} {
		if _, ok := f.files[id]; ok {
			cs.Runs = append(cs.Runs, ChartRun{ID: id, Label: id, Experiment: strings.TrimSuffix(id, "-0"), Baseline: id == "base-0"})
		}
	}
	return cs, nil
}

func (f *fakeBackend) Sources(_ context.Context, run string) ([]Source, error) {
	p, ok := f.files[run]
	if !ok {
		return nil, ErrUnknownRun
	}
	return []Source{{Path: p, Format: "jsonl"}}, nil
}

func (f *fakeBackend) Compare(context.Context, string, string) (Comparison, error) {
	return Comparison{}, ErrNotScored
}

func writeJSONL(t testing.TB, dir, name string, n int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "{\"step\":%d,\"reward\":%d.5,\"loss\":%d}\n", i, i%1000, n-i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func newServer(t *testing.T) *Server {
	dir := t.TempDir()
	return &Server{Backend: &fakeBackend{files: map[string]string{
		"base-0": writeJSONL(t, dir, "base.jsonl", 100),
		"exp-0":  writeJSONL(t, dir, "exp.jsonl", 3000),
	}}, Root: "/repo", PID: 42}
}

func get(t *testing.T, s http.Handler, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, "/", nil)
	// Set the raw path so that escapes and dot segments reach the handler
	// as a client could send them.
	u, err := url.ParseRequestURI(target)
	if err != nil {
		t.Fatal(err)
	}
	req.URL = u
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}

func decode(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q: %v", rec.Body.String(), err)
	}
	return m
}

func TestPageAndHeaders(t *testing.T) {
	s := newServer(t)
	for _, p := range []string{"/", "/index.html", "/static/app.js", "/static/style.css", "/static/favicon.svg"} {
		rec := get(t, s, http.MethodGet, p)
		if rec.Code != http.StatusOK || rec.Body.Len() == 0 {
			t.Errorf("GET %s: %d, %d bytes", p, rec.Code, rec.Body.Len())
		}
		if got := rec.Header().Get("Content-Security-Policy"); !strings.Contains(got, "default-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q", p, got)
		}
		if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("GET %s: X-Content-Type-Options %q", p, got)
		}
	}
	page := get(t, s, http.MethodGet, "/").Body.String()
	for _, id := range []string{`id="contract"`, `id="experiments"`, `id="leaderboard"`, `id="runs"`, `id="curves"`} {
		if !strings.Contains(page, id) {
			t.Errorf("page lacks %s", id)
		}
	}
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") {
		t.Error("page refers to another origin")
	}
	if rec := get(t, s, http.MethodHead, "/api/state"); rec.Code != http.StatusOK {
		t.Errorf("HEAD /api/state: %d", rec.Code)
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		if rec := get(t, s, m, "/api/state"); rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s /api/state: %d, want 405", m, rec.Code)
		}
	}
}

func TestTraversal(t *testing.T) {
	s := newServer(t)
	for _, p := range []string{
		"/../../etc/passwd", "/static/..%2f..%2fgo.mod", "/static/../../go.mod", "/static/%2e%2e/dashboard.go",
		"/static/", "/static", "/static/app.js/", "/static//app.js", "/dashboard.go", "/static/index.html/../app.js",
		"/%2e%2e/%2e%2e/etc/passwd", "/api/", "/api/state/../instance",
	} {
		rec := get(t, s, http.MethodGet, p)
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, rec.Code)
		}
		if !strings.Contains(rec.Header().Get("Content-Type"), "application/json") {
			t.Errorf("GET %s: Content-Type %q", p, rec.Header().Get("Content-Type"))
		}
	}
}

func TestState(t *testing.T) {
	s := newServer(t)
	rec := get(t, s, http.MethodGet, "/api/state")
	if rec.Code != http.StatusOK || decode(t, rec)["runs"] != 2.0 {
		t.Fatalf("GET /api/state: %d %s", rec.Code, rec.Body)
	}
	inst := decode(t, get(t, s, http.MethodGet, "/api/instance"))
	if inst["root"] != "/repo" || inst["pid"] != 42.0 {
		t.Errorf("/api/instance: %v", inst)
	}
}

func TestTags(t *testing.T) {
	s := newServer(t)
	m := decode(t, get(t, s, http.MethodGet, "/api/tags?run=exp-0"))
	if got := fmt.Sprint(m["tags"]); got != "[loss reward]" {
		t.Errorf("tags %s, want [loss reward]", got)
	}
}

func TestSeries(t *testing.T) {
	s := newServer(t)
	for _, tc := range []struct {
		target string
		want   int
	}{
		{"/api/series?run=base-0&tag=reward", 100},        // fewer than max: all of them
		{"/api/series?run=exp-0&tag=reward&max=100", 100}, // downsampled
		{"/api/series?run=exp-0&tag=reward&max=3000", 3000},
		{"/api/series?run=exp-0&tag=nosuch", 0},
	} {
		rec := get(t, s, http.MethodGet, tc.target)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", tc.target, rec.Code, rec.Body)
		}
		m := decode(t, rec)
		if n := len(m["points"].([]any)); n != tc.want || m["count"] != float64(tc.want) {
			t.Errorf("GET %s: %d points, count %v, want %d", tc.target, n, m["count"], tc.want)
		}
	}
	// Min/max buckets keep the extremes of a sawtooth.
	m := decode(t, get(t, s, http.MethodGet, "/api/series?run=exp-0&tag=reward&max=100"))
	lo, hi := 1e9, -1e9
	for _, p := range m["points"].([]any) {
		v := p.([]any)[1].(float64)
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo != 0.5 || hi != 999.5 {
		t.Errorf("downsampled range [%v, %v], want [0.5, 999.5]", lo, hi)
	}
}

func TestBadRequests(t *testing.T) {
	s := newServer(t)
	for _, tc := range []struct {
		target string
		code   int
	}{
		{"/api/series?run=nosuch&tag=reward", http.StatusNotFound},
		{"/api/tags?run=nosuch", http.StatusNotFound},
		{"/api/series?run=../../etc&tag=reward", http.StatusBadRequest},
		{"/api/series?run=%2e%2e&tag=reward", http.StatusBadRequest},
		{"/api/tags?run=a/b", http.StatusBadRequest},
		{"/api/tags", http.StatusBadRequest},
		{"/api/series?run=exp-0", http.StatusBadRequest},
		{"/api/series?run=exp-0&tag=reward&max=1", http.StatusBadRequest},
		{"/api/series?run=exp-0&tag=reward&max=100000000", http.StatusBadRequest},
		{"/api/series?run=exp-0&tag=reward&max=x", http.StatusBadRequest},
		{"/api/chart", http.StatusBadRequest},
		{"/api/chart?tag=" + strings.Repeat("x", maxTagLen+1), http.StatusBadRequest},
	} {
		rec := get(t, s, http.MethodGet, tc.target)
		if rec.Code != tc.code {
			t.Errorf("GET %s: %d, want %d", tc.target, rec.Code, tc.code)
		}
		if m := decode(t, rec); m["error"] == "" || m["error"] == nil {
			t.Errorf("GET %s: no error message: %v", tc.target, m)
		}
	}
}

func TestChart(t *testing.T) {
	s := newServer(t)
	rec := get(t, s, http.MethodGet, "/api/chart?tag=reward&max=200")
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("GET /api/chart: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	body := rec.Body.String()
	for _, want := range []string{`data-tag="reward"`, `class="seed" data-run="base-0" data-points="100"`, `class="seed" data-run="exp-0" data-points="200"`, `class="mean" data-experiment="exp" data-n="1"`} {
		if !strings.Contains(body, want) {
			t.Errorf("chart lacks %s", want)
		}
	}
}

func TestCurves(t *testing.T) {
	s := newServer(t)
	rec := get(t, s, http.MethodGet, "/api/curves?tag=reward&max=200")
	var got struct {
		Kind   string
		Groups []struct {
			Experiment string
			Baseline   bool
			Seeds      []struct {
				Run    string
				Points [][3]float64
			}
			Band struct {
				Steps []int64
				Mean  []float64
			}
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != http.StatusOK {
		t.Fatalf("GET /api/curves: %d %v: %s", rec.Code, err, rec.Body)
	}
	if got.Kind != "curves" || len(got.Groups) != 2 || got.Groups[0].Experiment != "base" || !got.Groups[0].Baseline {
		t.Fatalf("groups: %+v", got)
	}
	// One seed: the mean is the seed's own series.
	exp := got.Groups[1]
	if len(exp.Seeds) != 1 || len(exp.Seeds[0].Points) != 200 || len(exp.Band.Mean) != 200 {
		t.Fatalf("exp: %d seeds, band of %d", len(exp.Seeds), len(exp.Band.Mean))
	}
	for i, p := range exp.Seeds[0].Points {
		if exp.Band.Mean[i] != p[1] || exp.Band.Steps[i] != int64(p[0]) {
			t.Fatalf("point %d: band %d %v, seed %v", i, exp.Band.Steps[i], exp.Band.Mean[i], p)
		}
	}
	if rec := get(t, s, http.MethodGet, "/api/compare?a=exp&b=base"); rec.Code != http.StatusNotFound {
		t.Errorf("compare without a ledger: %d", rec.Code)
	}
	if rec := get(t, s, http.MethodGet, "/api/compare?a=../x&b=base"); rec.Code != http.StatusBadRequest {
		t.Errorf("compare of a bad id: %d", rec.Code)
	}
}

// TestHugeFile serves one tag of a file with millions of lines and checks
// that the answer has the points asked for and that the heap stayed far
// below what holding every point would take.
func TestHugeFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a large file")
	}
	const lines = 5_000_000
	p := writeJSONL(t, t.TempDir(), "huge.jsonl", lines)
	s := &Server{Backend: &fakeBackend{files: map[string]string{"huge": p}}}

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak uint64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	rec := get(t, s, http.MethodGet, "/api/series?run=huge&tag=reward&max=500")
	close(stop)
	wg.Wait()

	if rec.Code != http.StatusOK {
		t.Fatalf("GET: %d %s", rec.Code, rec.Body)
	}
	m := decode(t, rec)
	if n := len(m["points"].([]any)); n != 500 {
		t.Errorf("%d points, want 500", n)
	}
	// Every point held would be at least 24 bytes each: 120 MB.
	const bound = 48 << 20
	if peak > before.HeapInuse && peak-before.HeapInuse > bound {
		t.Errorf("heap in use grew by %d MB during the request, want under %d MB", (peak-before.HeapInuse)>>20, bound>>20)
	}
	t.Logf("heap in use: %d MB before, %d MB at peak", before.HeapInuse>>20, peak>>20)
}

func FuzzParseQuery(f *testing.F) {
	f.Add("run-1", "reward", "500")
	f.Add("../x", "", "1")
	f.Add("", "t", "99999999999999999999")
	f.Fuzz(func(t *testing.T, run, tag, max string) {
		vals := map[string]string{"run": run, "tag": tag, "max": max}
		q, err := ParseQuery(func(k string) string { return vals[k] }, true, true)
		if err != nil {
			return
		}
		if strings.Contains(q.Run, "/") || strings.Contains(q.Run, "..") || q.Max < 2 || q.Max > 10000 || len(q.Tag) > maxTagLen {
			t.Errorf("accepted %+v", q)
		}
	})
}
