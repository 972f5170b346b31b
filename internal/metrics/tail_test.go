package metrics

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestUnfinishedLastLine checks every line format: a last line without its
// line ending is the writer's unfinished work, skipped with a note, never
// read as a value and never an error.
func TestUnfinishedLastLine(t *testing.T) {
	for _, c := range []struct {
		name, file   string
		format       Format
		done, tail   string
		wantPoints   int
		mlflowMetric bool
	}{
		{"jsonl", "eval.jsonl", JSONL, "{\"step\": 1, \"r\": 1.5}\n{\"step\": 2, \"r\": 2.5}\n", "{\"step\": 3, \"r\": 3.", 2, false},
		{"jsonl whole row", "eval.jsonl", JSONL, "{\"step\": 1, \"r\": 1.5}\n", "{\"step\": 2, \"r\": 2.5}", 1, false},
		{"csv", "p.csv", CSV, "step,r,l\n0,1.5,7\n1,2.5,8\n", "2,3.", 4, false},
		{"csv short tail", "p.csv", CSV, "step,r,l\n0,1.5,7\n", "1,2", 2, false},
		{"csv crlf", "p.csv", CSV, "step,r\r\n0,1.5\r\n", "1,2.5\r", 1, false},
		{"monitor.csv bare CR", "monitor.csv", CSV, "#{\"t_start\": 1}\rr,l,t\r1.5,10,0.1\r2.5,12,0.2\r", "3.5,1", 6, false},
		{"wandb csv", "wandb_export.csv", WandbCSV, "\"Step\",\"run - loss\"\n\"1\",\"2\"\n", "\"2\",\"3", 1, false},
		{"tb csv", "run-tag-loss.csv", TBCSV, "Wall time,Step,Value\n1,2,3\n", "2,3,4", 1, false},
		{"verl log", "train.log", VerlLog, "step:1 - a:1\nstep:2 - a:2\n", "step:3 - a:3", 2, false},
		{"mlflow metric", "loss", MLflow, "1700000000000 0.5 1\n1700000001000 0.6 2\n", "1700000002000 0.7", 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.mlflowMetric {
				dir = filepath.Join(dir, "run", "metrics")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "..", "meta.yaml"), []byte("status: 1\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(dir, c.file)
			if err := os.WriteFile(path, []byte(c.done), 0o644); err != nil {
				t.Fatal(err)
			}
			want, _, err := txtRead(t, path, c.format)
			if err != nil {
				t.Fatalf("finished part: %v", err)
			}
			if len(want.pts) != c.wantPoints {
				t.Fatalf("finished part has %d points, want %d: %v", len(want.pts), c.wantPoints, want.pts)
			}
			if err := os.WriteFile(path, []byte(c.done+c.tail), 0o644); err != nil {
				t.Fatal(err)
			}
			got, info, err := txtRead(t, path, c.format)
			if err != nil {
				t.Fatalf("with an unfinished last line: %v", err)
			}
			if diff := cmp.Diff(want.pts, got.pts, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("points differ from the finished part (-want +got):\n%s", diff)
			}
			txtHasNote(t, info, "kipped the last line")
			if info.TruncatedAt != int64(len(c.done)) {
				t.Errorf("TruncatedAt = %d, want %d", info.TruncatedAt, len(c.done))
			}
		})
	}
}

func TestNoCompleteLine(t *testing.T) {
	for _, c := range []struct {
		file    string
		format  Format
		content string
	}{
		{"eval.jsonl", JSONL, "{\"step\": 1, "},
		{"p.csv", CSV, "step,r,"},
		{"train.log", VerlLog, "step:1 - a"},
	} {
		rec, info, err := txtRead(t, txtWrite(t, c.file, c.content), c.format)
		if err != nil || len(rec.pts) != 0 {
			t.Errorf("%s: %d points, %v; want none and no error", c.file, len(rec.pts), err)
		}
		txtHasNote(t, info, "No complete line yet")
	}
}

// TestLongLineBounded checks that a line over MaxLine is an error at its
// line, read without holding the line in memory.
func TestLongLineBounded(t *testing.T) {
	long := strings.Repeat("x", MaxLine+1<<20)
	for _, c := range []struct {
		file    string
		format  Format
		content string
		line    int
	}{
		{"eval.jsonl", JSONL, "{\"step\": 1, \"r\": 1}\n{\"step\": 2, \"r\": 2}\n{\"r\": \"" + long + "\"}\n{\"step\": 3, \"r\": 3}\n", 3},
		{"train.log", VerlLog, "step:1 - a:1\nstep:2 - a:2\n" + long + "\nstep:3 - a:3\n", 3},
		{"p.csv", CSV, "step,r\n1,2\n2,3\n3," + long + "\n", 4},
	} {
		path := txtWrite(t, c.file, c.content)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, _, err := txtRead(t, path, c.format)
		runtime.ReadMemStats(&after)
		txtWantErr(t, err, c.line, 0, "a line longer than 64 MiB")
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
			t.Errorf("%s: reading allocated %d MiB for a %d MiB line", c.file, alloc>>20, len(long)>>20)
		}
	}
}
