package metrics

import (
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

type txtCount struct {
	n    int64
	only string
}

func (c *txtCount) Want(tag string) bool { return c.only == "" || tag == c.only }
func (c *txtCount) Point(tag string, p Point) error {
	c.n++
	return nil
}

func TestTxtBig(t *testing.T) {
	path := os.Getenv("TXTBIG")
	if path == "" {
		t.Skip()
	}
	for _, only := range strings.Split(os.Getenv("TXTONLY"), ",") {
		s := &txtCount{only: only}
		var ru0, ru1 syscall.Rusage
		syscall.Getrusage(0, &ru0)
		t0 := time.Now()
		info, err := Read(path, Format(os.Getenv("TXTBIGF")), s)
		st, _ := os.Stat(path)
		d := time.Since(t0)
		syscall.Getrusage(0, &ru1)
		cpu := time.Duration(syscall.TimevalToNsec(ru1.Utime) - syscall.TimevalToNsec(ru0.Utime) + syscall.TimevalToNsec(ru1.Stime) - syscall.TimevalToNsec(ru0.Stime))
		t.Logf("only=%q points=%d err=%v wall %v cpu %v %.0f MB/s", only, info.Points, err, d, cpu, float64(st.Size())/d.Seconds()/1e6)
	}
}

func TestTxtScale(t *testing.T) {
	path := os.Getenv("TXTBIG")
	if path == "" {
		t.Skip()
	}
	for _, p := range []int{1, 2, 1, 2, 1, 2} {
		runtime.GOMAXPROCS(p)
		best := time.Hour
		for range 5 {
			s := &txtCount{only: os.Getenv("TXTONLY")}
			t0 := time.Now()
			if _, err := Read(path, Format(os.Getenv("TXTBIGF")), s); err != nil {
				t.Fatal(err)
			}
			best = min(best, time.Since(t0))
		}
		t.Logf("P=%d best %v", p, best)
	}
}
