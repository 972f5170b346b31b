package dashboard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Instance is the record of a running dashboard.
type Instance struct {
	URL  string `json:"url"`
	PID  int    `json:"pid"`
	Root string `json:"root"`
}

// InstancePath is where the dashboard of a repository records itself:
// outside .rlxp, which it never writes, in dir (the user's runtime
// directory, else the temporary directory).
func InstancePath(dir, root string) string {
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(dir, "rlxp-dashboard-"+hex.EncodeToString(sum[:8])+".json")
}

// RecordPath is InstancePath in $XDG_RUNTIME_DIR (as getenv reads it),
// else in the temporary directory.
func RecordPath(getenv func(string) string, root string) string {
	dir := getenv("XDG_RUNTIME_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	return InstancePath(dir, root)
}

// Running reports the dashboard recorded for root when it answers on its
// URL and says it shows the same repository.
func Running(ctx context.Context, record, root string) (Instance, bool) {
	data, err := os.ReadFile(record)
	if err != nil {
		return Instance{}, false
	}
	inst, err := ParseInstance(data)
	if err != nil || inst.Root != root {
		return Instance{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, inst.URL+"api/instance", nil)
	if err != nil {
		return Instance{}, false
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return Instance{}, false
	}
	defer res.Body.Close()
	var got Instance
	if res.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(res.Body, 1<<16)).Decode(&got) != nil {
		return Instance{}, false
	}
	return inst, got.Root == root
}

// ParseInstance reads an instance record, accepting only a loopback URL so
// that a planted record cannot send the check elsewhere.
func ParseInstance(data []byte) (Instance, error) {
	var inst Instance
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
