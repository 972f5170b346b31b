package scoring

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/rlxp/rlxp/internal/contract"
)

// TestResumed finds the second log of a resumed run beside the one a
// source names, and nothing where a run has one log.
func TestResumed(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{
		"a/events.out.tfevents.1.host.1.0",
		"b/events.out.tfevents.1.host.1.0", "b/events.out.tfevents.2.host.1.0", "b/notes.txt",
		"w/wandb/run-20240101_000000-abc/run-abc.wandb",
		"x/wandb/run-20240101_000000-abc/run-abc.wandb", "x/wandb/run-20240102_000000-abc/run-abc.wandb",
		"x/wandb/run-20240103_000000-def/run-def.wandb",
		"y/wandb/offline-run-20240101_000000-abc/run-abc.wandb", "y/wandb/offline-run-20240101_000000-abc/old.wandb",
		"j/eval.jsonl", "j/other.jsonl",
	} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A hard link of the named file is the same file, not a second log.
	if err := os.Link(filepath.Join(root, "a/events.out.tfevents.1.host.1.0"), filepath.Join(root, "a/events.out.tfevents.1.host.1.0.link")); err != nil {
		t.Fatal(err)
	}
	files := []SourceFile{
		{Seed: 0, Source: "tb", Path: "a/events.out.tfevents.1.host.1.0", Format: "tfevents"},
		{Seed: 1, Source: "tb", Path: "b/events.out.tfevents.1.host.1.0", Format: "tfevents"},
		{Seed: 2, Source: "wb", Path: "w/wandb/run-20240101_000000-abc/run-abc.wandb", Format: "wandb"},
		{Seed: 3, Source: "wb", Path: "x/wandb/run-20240101_000000-abc/run-abc.wandb", Format: "wandb"},
		{Seed: 4, Source: "wb", Path: "y/wandb/offline-run-20240101_000000-abc/run-abc.wandb", Format: "wandb"},
		{Seed: 5, Source: "eval", Path: "j/eval.jsonl", Format: "jsonl"},
	}
	want := []string{
		"seed 1: source tb (b/events.out.tfevents.1.host.1.0) is one of 2 logs of its run (also b/events.out.tfevents.2.host.1.0): a resumed run writes another, so one file holds only part of the run",
		"seed 3: source wb (x/wandb/run-20240101_000000-abc/run-abc.wandb) is one of 2 logs of its run (also x/wandb/run-20240102_000000-abc/run-abc.wandb): a resumed run writes another, so one file holds only part of the run",
		"seed 4: source wb (y/wandb/offline-run-20240101_000000-abc/run-abc.wandb) is one of 2 logs of its run (also y/wandb/offline-run-20240101_000000-abc/old.wandb): a resumed run writes another, so one file holds only part of the run",
	}
	if diff := cmp.Diff(want, resumed(root, files, map[string][]string{"tb": {"eval/return"}, "wb": {"eval/return"}})); diff != "" {
		t.Errorf("resumed (-want +got):\n%s", diff)
	}
}

// TestResumedNeedsTheTag: a file beside the scored log that holds no point
// of the scored tag (a header only, a profiler's file, another writer's
// tags) is not a second log of the run; one that holds the tag is.
func TestResumedNeedsTheTag(t *testing.T) {
	root := t.TempDir()
	write := func(name string, events ...[]byte) {
		t.Helper()
		var b []byte
		for _, e := range events {
			b = append(b, tfRecord(e)...)
		}
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	header := tfEvent(0, "", 0)
	write("c/events.out.tfevents.1.host.1.0", header, tfEvent(1, "eval/return", 1.5))
	write("c/events.out.tfevents.2.host.1.0", header)
	write("c/events.out.tfevents.3.host.profile-empty", header)
	write("c/events.out.tfevents.4.host.1.0", header, tfEvent(1, "train/loss", 0.5))
	write("d/events.out.tfevents.1.host.1.0", header, tfEvent(1, "eval/return", 1.5))
	write("d/events.out.tfevents.2.host.1.0", header, tfEvent(2, "eval/return", 2.5))
	files := []SourceFile{
		{Seed: 0, Source: "tb", Path: "c/events.out.tfevents.1.host.1.0", Format: "tfevents"},
		{Seed: 1, Source: "tb", Path: "d/events.out.tfevents.1.host.1.0", Format: "tfevents"},
	}
	want := []string{
		"seed 1: source tb (d/events.out.tfevents.1.host.1.0) is one of 2 logs of its run (also d/events.out.tfevents.2.host.1.0): a resumed run writes another, so one file holds only part of the run",
	}
	if diff := cmp.Diff(want, resumed(root, files, map[string][]string{"tb": {"eval/return"}})); diff != "" {
		t.Errorf("resumed (-want +got):\n%s", diff)
	}
}

// tfEvent encodes a TensorBoard Event: a file_version header when tag is
// empty, else one simple_value at step.
func tfEvent(step int64, tag string, v float32) []byte {
	b := protowire.AppendTag(nil, 1, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, math.Float64bits(1700000000))
	if tag == "" {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		return protowire.AppendString(b, "brain.Event:2")
	}
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(step))
	val := protowire.AppendTag(nil, 1, protowire.BytesType)
	val = protowire.AppendString(val, tag)
	val = protowire.AppendTag(val, 2, protowire.Fixed32Type)
	val = protowire.AppendFixed32(val, math.Float32bits(v))
	sum := protowire.AppendTag(nil, 1, protowire.BytesType)
	sum = protowire.AppendBytes(sum, val)
	b = protowire.AppendTag(b, 5, protowire.BytesType)
	return protowire.AppendBytes(b, sum)
}

// tfRecord frames data as a TFRecord: length, masked CRC32C of the
// length, data, masked CRC32C of the data.
func tfRecord(data []byte) []byte {
	table := crc32.MakeTable(crc32.Castagnoli)
	mask := func(b []byte) []byte {
		c := crc32.Checksum(b, table)
		return binary.LittleEndian.AppendUint32(nil, (c>>15|c<<17)+0xa282ead8)
	}
	n := binary.LittleEndian.AppendUint64(nil, uint64(len(data)))
	out := append(append(append([]byte{}, n...), mask(n)...), data...)
	return append(out, mask(data)...)
}

// TestShortOfBudget: with budget.steps_per_run, a seed whose series stop
// before it is partial; a seed that reached it, or one with no point
// (invalid already), is not named; without it nothing is.
func TestShortOfBudget(t *testing.T) {
	seeds := []SeedRun{{Seed: 0}, {Seed: 1}, {Seed: 2}, {Seed: 3}}
	reached := []int64{1000, 999, -1, 1500}
	var c contract.Contract
	if got := shortOfBudget(c, seeds, reached); got != nil {
		t.Errorf("no budget: %v", got)
	}
	c.Budget.StepsPerRun = 1000
	want := []string{"seed 1: its metrics stop at step 999, short of the 1000 steps a run trains (budget.steps_per_run): the run stopped early"}
	if diff := cmp.Diff(want, shortOfBudget(c, seeds, reached)); diff != "" {
		t.Errorf("shortOfBudget (-want +got):\n%s", diff)
	}
}
