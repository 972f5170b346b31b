package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/rlxp/rlxp/internal/state"
)

// A Listening dashboard is bound to a loopback port and recorded, ready to
// serve.
type Listening struct {
	Instance
	// RecordErr says why the instance could not be recorded: the
	// dashboard serves, but another start will not find it.
	RecordErr error

	ln     net.Listener
	record string
	data   []byte
	srv    *http.Server
}

// Listen binds 127.0.0.1:port (0 for a free port), never another address,
// and records the instance at record (see InstancePath) as process pid.
func Listen(record, root string, port, pid int, b Backend) (*Listening, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	l := &Listening{Instance: Instance{URL: "http://" + ln.Addr().String() + "/", PID: pid, Root: root}, ln: ln, record: record}
	if l.data, err = json.Marshal(l.Instance); err != nil {
		ln.Close()
		return nil, err
	}
	l.RecordErr = state.WriteFile(record, l.data, 0o600)
	l.srv = &http.Server{
		Handler:           &Server{Backend: b, Root: root, PID: pid},
		ReadHeaderTimeout: 10 * time.Second,
	}
	return l, nil
}

// Serve serves until ctx is done, then shuts down (giving requests in
// flight five seconds) and removes the record, unless another dashboard
// replaced it since.
func (l *Listening) Serve(ctx context.Context) error {
	defer func() {
		if cur, err := os.ReadFile(l.record); err == nil && string(cur) == string(l.data) {
			os.Remove(l.record)
		}
	}()
	l.srv.BaseContext = func(net.Listener) context.Context { return ctx }
	done := make(chan error, 1)
	go func() { done <- l.srv.Serve(l.ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("dashboard: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := l.srv.Shutdown(shut); err != nil {
		return fmt.Errorf("dashboard: stopping: %w", err)
	}
	return nil
}
