package cli

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// tfRecord frames data as TensorBoard does: length, masked CRC32C of the
// length, data, masked CRC32C of the data.
func tfRecord(data []byte) []byte {
	mask := func(b []byte) uint32 {
		c := crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli))
		return ((c >> 15) | (c << 17)) + 0xa282ead8
	}
	var out []byte
	out = binary.LittleEndian.AppendUint64(out, uint64(len(data)))
	out = binary.LittleEndian.AppendUint32(out, mask(out[:8]))
	out = append(out, data...)
	return binary.LittleEndian.AppendUint32(out, mask(data))
}

func scalarEvent(tag string, step int64, v float32) []byte {
	var val, sum, ev []byte
	val = protowire.AppendTag(val, 1, protowire.BytesType)
	val = protowire.AppendString(val, tag)
	val = protowire.AppendTag(val, 2, protowire.Fixed32Type)
	val = protowire.AppendFixed32(val, math.Float32bits(v))
	sum = protowire.AppendTag(sum, 1, protowire.BytesType)
	sum = protowire.AppendBytes(sum, val)
	ev = protowire.AppendTag(ev, 2, protowire.VarintType)
	ev = protowire.AppendVarint(ev, uint64(step))
	ev = protowire.AppendTag(ev, 5, protowire.BytesType)
	return protowire.AppendBytes(ev, sum)
}

func eventsFile(vals ...float32) []byte {
	var b []byte
	for i, v := range vals {
		b = append(b, tfRecord(scalarEvent("eval/mean_return", int64(i+1), v))...)
		b = append(b, tfRecord(scalarEvent("eval/mean_length", int64(i+1), v))...)
	}
	return b
}

// TestScoreRefusesCorruptInput: every corrupt metric file is a one-line
// error naming the file and the byte or line, exit 1, and the ledger is
// left exactly as it was.
func TestScoreRefusesCorruptInput(t *testing.T) {
	good := eventsFile(400, 410)
	badCRC := append([]byte{}, good...)
	badCRC[len(badCRC)-1] ^= 0xff
	tests := []struct {
		name, file string
		seed1      []byte
		want       string
	}{
		{"bad data CRC", "events.out.tfevents.1", badCRC, `runs/seed1/events.out.tfevents.1: byte \d+: .*CRC`},
		{"truncated header", "events.out.tfevents.1", good[:len(good)-len(tfRecord(scalarEvent("eval/mean_length", 2, 410)))+5], `runs/seed1/events.out.tfevents.1: byte \d+: `},
		{"truncated last record", "events.out.tfevents.1", good[:len(good)-6], `runs/seed1/events.out.tfevents.1: byte \d+: truncated record: the run is still writing or its writer crashed`},
		{"binary junk", "events.out.tfevents.1", bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 64), `runs/seed1/events.out.tfevents.1: byte 0: `},
		{"empty tfevents", "events.out.tfevents.1", nil, `runs/seed1/events.out.tfevents.1: .*empty`},
		{"CSV second header", "progress.csv", []byte("step,eval/mean_return,eval/mean_length\n1,400,400\nstep,other\n2,3\n"), `runs/seed1/progress.csv:3: `},
		{"CSV array cells", "progress.csv", []byte("step,eval/mean_return,eval/mean_length\n1,[1. 2.],400\n"), `runs/seed1/progress.csv:2:`},
		{"CSV binary junk", "progress.csv", []byte("step,eval/mean_return\n1,\x00\x01\x02\n"), `runs/seed1/progress.csv`},
	}
	tests = append(tests, struct {
		name, file string
		seed1      []byte
		want       string
	}{"control: all good", "events.out.tfevents.1", eventsFile(400, 405, 410), ""})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := initFixture(t)
			format := "tfevents"
			if strings.HasSuffix(tt.file, ".csv") {
				format = "csv"
			}
			adapterYAML := "schema: rlxp.adapter/v1\nmetrics:\n  sources:\n    eval: {path: \"{run_dir}/" + tt.file + "\", format: " + format + "}\n"
			write := func(rel string, data []byte) {
				p := filepath.Join(dir, rel)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(".rlxp/adapter.yaml", []byte(adapterYAML))
			// Each seed's file of its own: equal content would be one
			// source shared by two seeds.
			okFile, okFile2 := good, eventsFile(400, 410, 410)
			if format == "csv" {
				okFile = []byte("step,eval/mean_return,eval/mean_length\n1,400,400\n")
				okFile2 = []byte("step,eval/mean_return,eval/mean_length\n1,400,400\n2,400,400\n")
			}
			write("runs/seed0/"+tt.file, okFile)
			write("runs/seed1/"+tt.file, tt.seed1)
			write("runs/seed2/"+tt.file, okFile2)
			ledgerPath := filepath.Join(dir, ".rlxp", "ledger.jsonl")
			before, _ := os.ReadFile(ledgerPath)

			env, out, errb := testEnv(t, dir, "", false)
			code := Main([]string{"score", "baseline", "--run-dir", "runs/seed{seed}"}, env)
			if tt.want == "" {
				if code != 0 || !strings.Contains(out.String(), "VERDICT: baseline") {
					t.Fatalf("good files: exit %d\nstdout: %s\nstderr: %s", code, out, errb)
				}
				return
			}
			if code != ExitError {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, ExitError, out, errb)
			}
			msg := strings.TrimSuffix(errb.String(), "\n")
			if strings.Contains(msg, "\n") || !regexp.MustCompile(`^rlxp: `+tt.want).MatchString(msg) {
				t.Errorf("stderr = %q, want one line matching %q", msg, tt.want)
			}
			after, _ := os.ReadFile(ledgerPath)
			if !bytes.Equal(before, after) {
				t.Errorf("the ledger changed")
			}
		})
	}
}
