package metrics

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

type txtPrintSink struct{ n int }

func (*txtPrintSink) Want(tag string) bool { return true }
func (s *txtPrintSink) Point(tag string, p Point) error {
	if s.n < 4 {
		fmt.Printf("    %s %d %v %v\n", tag, p.Step, p.WallTime, p.Value)
	}
	s.n++
	return nil
}

func TestTxtSmoke(t *testing.T) {
	root := "/work/shared/metrics-samples"
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if fi.IsDir() && fi.Name() != "metrics" && fi.Name() != "425b6205924e4d7ebf10791f8edd827d" && fi.Name() != "mlruns" {
			return nil
		}
		f, err := Detect(p)
		fmt.Printf("%s: %q %v\n", p[len(root):], f, err)
		if err == nil && f != TFEvents && f != Wandb {
			info, err := Read(p, f, &txtPrintSink{})
			fmt.Printf("  %+v %v\n", info, err)
		}
		return nil
	})
}
