package metrics

import (
	"fmt"
	"os"
	"testing"
)

type txtPrintSink struct{}

func (txtPrintSink) Want(tag string) bool { return true }
func (txtPrintSink) Point(tag string, p Point) error {
	fmt.Printf("  %s %d %v %v\n", tag, p.Step, p.WallTime, p.Value)
	return nil
}

func TestTxtSmoke(t *testing.T) {
	f := Format(os.Getenv("TXTF"))
	info, err := Read(os.Getenv("TXTP"), f, txtPrintSink{})
	fmt.Printf("%+v\n%v\n", info, err)
}
