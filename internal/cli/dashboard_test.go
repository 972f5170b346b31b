package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a Buffer a running command writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startDashboard runs rlxp dashboard on dir until the test ends and
// returns its URL.
func startDashboard(t *testing.T, dir, runtimeDir string) (string, func() int) {
	t.Helper()
	env, _, _ := testEnv(t, dir, "", false)
	env.Getenv = func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return runtimeDir
		}
		return ""
	}
	out := &syncBuffer{}
	env.Stdout, env.Stderr = out, &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() { code <- run(ctx, []string{"dashboard"}, env) }()
	var once sync.Once
	exit := -1
	stop := func() int {
		once.Do(func() { cancel(); exit = <-code })
		return exit
	}
	urlRE := regexp.MustCompile(`(?m)^(http://127\.0\.0\.1:\d+/)$`)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := urlRE.FindStringSubmatch(out.String()); m != nil {
			t.Cleanup(func() { stop() })
			return m[1], stop
		}
		select {
		case c := <-code:
			t.Fatalf("dashboard exited %d: %s", c, out)
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("dashboard printed no URL: %q", out)
	return "", nil
}

func TestDashboard(t *testing.T) {
	dir := initFixture(t)
	runtimeDir := t.TempDir()
	url, stop := startDashboard(t, dir, runtimeDir)

	res, err := http.Get(url + "api/state")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var st struct {
		Contract struct {
			Sections []struct{ Name, State string }
		}
		Charts struct{ Tags []struct{ Tag string } }
	}
	if err := json.Unmarshal(body, &st); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/state: %d %v: %s", res.StatusCode, err, body)
	}
	if len(st.Contract.Sections) != 7 || len(st.Charts.Tags) == 0 {
		t.Errorf("state: %+v", st)
	}

	// A second dashboard for the same repository names the first.
	env, out, errb := testEnv(t, dir, "", false)
	env.Getenv = func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return runtimeDir
		}
		return ""
	}
	if code := run(context.Background(), []string{"dashboard"}, env); code != ExitOK {
		t.Fatalf("second dashboard: exit %d: %s", code, errb)
	}
	if !strings.Contains(out.String(), "already running") || !strings.Contains(out.String(), url) {
		t.Errorf("second dashboard said %q", out)
	}

	if code := stop(); code != ExitOK {
		t.Errorf("stopped dashboard: exit %d", code)
	}
	if entries, _ := os.ReadDir(runtimeDir); len(entries) != 0 {
		t.Errorf("record left behind after stopping: %v", entries)
	}
}

// TestDashboardLoopbackOnly connects to the dashboard's port on an address
// of this machine other than loopback: nothing may answer there.
func TestDashboardLoopbackOnly(t *testing.T) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	var other net.IP
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if ok && !ipn.IP.IsLoopback() && !ipn.IP.IsLinkLocalUnicast() && !ipn.IP.IsMulticast() {
			other = ipn.IP
			break
		}
	}
	if other == nil {
		t.Skip("this machine has no non-loopback address to try the dashboard's port on")
	}
	url, _ := startDashboard(t, initFixture(t), t.TempDir())
	_, port, err := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", port), time.Second); err != nil {
		t.Fatalf("loopback refused: %v", err)
	} else {
		c.Close()
	}
	c, err := net.DialTimeout("tcp", net.JoinHostPort(other.String(), port), 2*time.Second)
	if err == nil {
		c.Close()
		t.Fatalf("the dashboard answered on %s port %s", other, port)
	}
	t.Logf("%s port %s: %v", other, port, err)
}
