// Package metrics reads metric files into series of (tag, step, wall time,
// value). Readers stream: memory does not grow with file size.
package metrics

import (
	"fmt"

	"github.com/rlxp/rlxp/internal/metrics/format"
)

// A Format names a metric file format (package format names them).
type Format = format.Format

// Formats rlxp reads.
const (
	JSON         = format.JSON
	JSONL        = format.JSONL
	CSV          = format.CSV
	WandbCSV     = format.WandbCSV
	WandbSummary = format.WandbSummary
	Wandb        = format.Wandb
	TBCSV        = format.TBCSV
	TBJSON       = format.TBJSON
	TFEvents     = format.TFEvents
	MLflow       = format.MLflow
	VerlLog      = format.VerlLog
	HFTrainer    = format.HFTrainer
	SB3Eval      = format.SB3Eval
)

// Formats lists every format, in the order help shows them.
func Formats() []Format { return format.All() }

// ParseFormat checks a --format value.
func ParseFormat(s string) (Format, error) { return format.Parse(s) }

// ReaderVersion changes whenever a reader may deliver other points, tags
// or counts for the same bytes: what is remembered of a read (scoring's
// aggregate cache) is keyed on it, so a changed reader reads again.
const ReaderVersion = "readers/2026-12-02.7"

// A Point is one value of a series.
type Point struct {
	Step     int64
	WallTime float64 // seconds since the Unix epoch; 0 when the format has none
	Value    float64 // NaN and ±Inf are passed through: scoring decides
}

// A Sink receives the points of a file in file order.
type Sink interface {
	// Want reports whether a tag's points are needed. Readers call it once
	// per tag and may skip decoding values of unwanted tags.
	Want(tag string) bool
	// Point receives one point; an error stops the read and is returned.
	Point(tag string, p Point) error
}

// Info is what a read found besides the points.
type Info struct {
	Format Format
	Points int64    // points delivered to the sink
	Notes  []string // what the reader skipped or assumed, one sentence each
	// TruncatedAt is the byte offset of an incomplete final record in a
	// binary log that was still being written, or whose writer crashed;
	// 0 when the file is complete. Its points up to there were delivered.
	TruncatedAt int64
	// Unfinished, when set, is the log's own word that its run did not
	// end well (a W&B log with no exit record, or a non-zero exit code),
	// one sentence.
	Unfinished string
}

// An Error locates a problem in a metric file: a line (and column) in a
// text format, a byte offset in a binary one. It prints on one line.
type Error struct {
	Path   string
	Line   int
	Col    int
	Offset int64 // -1 when not a binary position
	Msg    string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	case e.Offset >= 0:
		return fmt.Sprintf("%s: byte %d: %s", e.Path, e.Offset, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Msg)
}

// Read streams the points of the file (or MLflow directory) at path into
// sink. An empty format is detected.
func Read(path string, format Format, sink Sink) (Info, error) {
	if format == "" {
		var err error
		if format, err = Detect(path); err != nil {
			return Info{}, err
		}
	}
	read := readerFor(format)
	if read == nil {
		return Info{}, &Error{Path: path, Offset: -1, Msg: fmt.Sprintf("no reader for format %q", format)}
	}
	info, err := read(path, sink)
	if err == errNoLine {
		return noLine(format), nil
	}
	info.Format = format
	return info, err
}

// readerFor maps a format to its reader.
func readerFor(f Format) func(path string, sink Sink) (Info, error) {
	switch f {
	case JSON:
		return readJSON
	case JSONL:
		return readJSONL
	case CSV:
		return readCSV
	case WandbCSV:
		return readWandbCSV
	case WandbSummary:
		return readWandbSummary
	case Wandb:
		return readWandb
	case TBCSV:
		return readTBCSV
	case TBJSON:
		return readTBJSON
	case TFEvents:
		return readTFEvents
	case MLflow:
		return readMLflow
	case VerlLog:
		return readVerlLog
	case HFTrainer:
		return readHFTrainer
	case SB3Eval:
		return readSB3Eval
	}
	return nil
}
