//go:build !linux

package launch

import "time"

// A watch without inotify sees nothing, and says so.
type watch struct{ note string }

func watchLimit(max int) int { return max }

func watchFiles(root string, paths []string, limit int) *watch {
	return &watch{note: "not watched: no inotify on this system"}
}

func (w *watch) sync()                                       {}
func (w *watch) since(t0 time.Time) ([]string, []seenChange) { return nil, nil }
func (w *watch) name(p string) string                        { return p }

type seenChange struct {
	at   time.Time
	path string
}

func (w *watch) close()           {}
func (w *watch) watching() string { return w.note }
