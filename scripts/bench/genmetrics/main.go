// Command genmetrics writes large synthetic training histories, for
// benchmarking metric readers: JSONL, CSV and TensorBoard event files with
// the same series (a noisy rising return and dozens of other tags).
//
//	go run ./scripts/bench/genmetrics -format jsonl -steps 1000000 -tags 40 -o out.jsonl
package main

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"log"
	"math"
	"math/rand"
	"os"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

func main() {
	format := flag.String("format", "jsonl", "jsonl, csv or tfevents")
	steps := flag.Int("steps", 1_000_000, "rows (steps)")
	tags := flag.Int("tags", 40, "tags per row, including eval/return")
	out := flag.String("o", "", "output file")
	flag.Parse()
	if *out == "" || *tags < 1 {
		log.Fatal("usage: genmetrics -format F -steps N -tags K -o FILE")
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	names := make([]string, *tags)
	names[0] = "eval/return"
	for i := 1; i < *tags; i++ {
		names[i] = fmt.Sprintf("train/metric_%02d", i)
	}
	rng := rand.New(rand.NewSource(1))
	vals := make([]float64, *tags)
	write := map[string]func(step int64, vals []float64){
		"jsonl":    func(step int64, vals []float64) { writeJSONL(w, names, step, vals) },
		"csv":      func(step int64, vals []float64) { writeCSVRow(w, step, vals) },
		"tfevents": func(step int64, vals []float64) { writeEvents(w, names, step, vals) },
	}[*format]
	if write == nil {
		log.Fatalf("unknown format %q", *format)
	}
	if *format == "csv" {
		w.WriteString("step")
		for _, n := range names {
			w.WriteString("," + n)
		}
		w.WriteString("\n")
	}
	for s := 0; s < *steps; s++ {
		progress := float64(s) / float64(*steps)
		vals[0] = 500*(1-math.Exp(-5*progress)) + rng.NormFloat64()*10
		for i := 1; i < len(vals); i++ {
			vals[i] = math.Sin(float64(s)/1000+float64(i)) + rng.Float64()*0.01
		}
		write(int64(s)*1000, vals)
	}
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }

func writeJSONL(w *bufio.Writer, names []string, step int64, vals []float64) {
	w.WriteString(`{"step": `)
	w.WriteString(strconv.FormatInt(step, 10))
	for i, n := range names {
		w.WriteString(`, "` + n + `": `)
		w.WriteString(num(vals[i]))
	}
	w.WriteString("}\n")
}

func writeCSVRow(w *bufio.Writer, step int64, vals []float64) {
	w.WriteString(strconv.FormatInt(step, 10))
	for _, v := range vals {
		w.WriteByte(',')
		w.WriteString(num(v))
	}
	w.WriteByte('\n')
}

// writeEvents writes one Event per tag, as TensorBoard's writers do.
func writeEvents(w *bufio.Writer, names []string, step int64, vals []float64) {
	for i, n := range names {
		var value []byte
		value = protowire.AppendTag(value, 1, protowire.BytesType)
		value = protowire.AppendString(value, n)
		value = protowire.AppendTag(value, 2, protowire.Fixed32Type)
		value = protowire.AppendFixed32(value, math.Float32bits(float32(vals[i])))
		var summary []byte
		summary = protowire.AppendTag(summary, 1, protowire.BytesType)
		summary = protowire.AppendBytes(summary, value)
		var event []byte
		event = protowire.AppendTag(event, 1, protowire.Fixed64Type)
		event = protowire.AppendFixed64(event, math.Float64bits(1.7e9+float64(step)/1000))
		event = protowire.AppendTag(event, 2, protowire.VarintType)
		event = protowire.AppendVarint(event, uint64(step))
		event = protowire.AppendTag(event, 5, protowire.BytesType)
		event = protowire.AppendBytes(event, summary)
		writeRecord(w, event)
	}
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func masked(b []byte) uint32 {
	c := crc32.Checksum(b, castagnoli)
	return ((c >> 15) | (c << 17)) + 0xa282ead8
}

func writeRecord(w *bufio.Writer, data []byte) {
	var hdr [12]byte
	binary.LittleEndian.PutUint64(hdr[:8], uint64(len(data)))
	binary.LittleEndian.PutUint32(hdr[8:], masked(hdr[:8]))
	w.Write(hdr[:])
	w.Write(data)
	var foot [4]byte
	binary.LittleEndian.PutUint32(foot[:], masked(data))
	w.Write(foot[:])
}
