//go:build !linux

package launch

import "time"

// A watch without inotify sees nothing, and says so.
type watch struct{ note string }

func watchLimit(max int) int { return max }

func watchFiles(root string, paths []string, limit int) *watch {
	return &watch{note: "not watched: no inotify on this system"}
}

func (w *watch) sync()                             {}
func (w *watch) between(t0, t1 time.Time) []string { return nil }
func (w *watch) close()                            {}
func (w *watch) watching() string                  { return w.note }
