package dashboard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestListenServeRecord: a dashboard records itself, answers as the
// instance of its repository, and removes its record when it stops.
func TestListenServeRecord(t *testing.T) {
	dir := t.TempDir()
	record := InstancePath(dir, "/repo")
	l, err := Listen(record, "/repo", 0, 42, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	if l.RecordErr != nil || !strings.HasPrefix(l.URL, "http://127.0.0.1:") {
		t.Fatalf("listening: %+v", l)
	}
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- l.Serve(ctx) }()

	inst, ok := Running(t.Context(), record, "/repo")
	if !ok || inst != l.Instance {
		t.Errorf("Running = %+v, %t; want %+v", inst, ok, l.Instance)
	}
	if _, ok := Running(t.Context(), record, "/other"); ok {
		t.Error("the dashboard of /repo answers for /other")
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := os.Stat(record); !os.IsNotExist(err) {
		t.Errorf("the record outlives the dashboard: %v", err)
	}
}

func TestListenKeepsAReplacedRecord(t *testing.T) {
	record := filepath.Join(t.TempDir(), "r.json")
	l, err := Listen(record, "/repo", 0, 1, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(record, []byte(`{"url":"http://127.0.0.1:1/","pid":2,"root":"/repo"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := l.Serve(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(record); err != nil {
		t.Errorf("another dashboard's record was removed: %v", err)
	}
}

func TestListenRecordUnwritable(t *testing.T) {
	l, err := Listen(filepath.Join(t.TempDir(), "no", "such", "r.json"), "/repo", 0, 1, &fakeBackend{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.ln.Close()
	if l.RecordErr == nil {
		t.Error("an unwritable record is not reported")
	}
}

func TestRecordPath(t *testing.T) {
	env := map[string]string{"XDG_RUNTIME_DIR": "/run/user/7"}
	getenv := func(k string) string { return env[k] }
	if got, want := RecordPath(getenv, "/repo"), InstancePath("/run/user/7", "/repo"); got != want {
		t.Errorf("with XDG_RUNTIME_DIR: %s, want %s", got, want)
	}
	delete(env, "XDG_RUNTIME_DIR")
	if got, want := RecordPath(getenv, "/repo"), InstancePath(os.TempDir(), "/repo"); got != want {
		t.Errorf("without: %s, want %s", got, want)
	}
	if RecordPath(getenv, "/a") == RecordPath(getenv, "/b") {
		t.Error("two repositories share a record")
	}
}
