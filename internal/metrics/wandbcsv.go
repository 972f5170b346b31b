package metrics

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// W&B UI "Export panel data → CSV".
//
// Conventions:
//   - The first column is the panel's x-axis (Step, _step, epoch, …); its
//     integer values are the steps. Rows with an empty x are skipped.
//   - The other columns are "<run name> - <metric>", split on the last
//     " - " (run names may contain " - ", metric keys "/").
//   - "…__MIN" and "…__MAX" columns (bucket or group extremes) are skipped,
//     and so are W&B's own "_"-prefixed keys such as _step.
//   - The tag is the metric name when the export holds one run, and the
//     whole header "<run name> - <metric>" when it holds several.
//   - "" is a missing value. Other cells that are not numbers are skipped
//     with a note.

func readWandbCSV(path string, sink Sink) (Info, error) {
	f, err := openText(path, WandbCSV, true, sink)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReaderSize(&lineBound{r: f.body(), path: path}, 64<<10))
	r.ReuseRecord = true
	fail := func(err error, line int) error {
		var pe *csv.ParseError
		var me *Error
		if errors.As(err, &me) {
			return me
		}
		if errors.As(err, &pe) {
			return &Error{Path: path, Line: pe.Line, Col: pe.Column, Offset: -1, Msg: pe.Err.Error()}
		}
		return &Error{Path: path, Line: line, Offset: -1, Msg: err.Error()}
	}
	header, err := r.Read()
	if err == io.EOF {
		return Info{}, &Error{Path: path, Offset: -1, Msg: "no header: the file holds only blank lines"}
	}
	if err != nil {
		return Info{}, fail(err, 1)
	}
	headerLine, _ := r.FieldPos(0)
	header = append([]string(nil), header...)
	if len(header) < 2 {
		return Info{}, &Error{Path: path, Line: headerLine, Offset: -1, Msg: "the header has no metric columns; a W&B export has the x-axis, then \"<run> - <metric>\" columns"}
	}

	type column struct {
		tag  string
		want bool
	}
	xName := header[0]
	var cols []int // header indexes of the metric columns
	var metric []string
	runs := map[string]bool{}
	var runOrder []string
	minmax, reserved := 0, 0
	for i, h := range header[1:] {
		run, m := "", h
		if k := strings.LastIndex(h, " - "); k >= 0 {
			run, m = h[:k], h[k+len(" - "):]
		}
		switch {
		case strings.HasSuffix(m, "__MIN") || strings.HasSuffix(m, "__MAX"):
			minmax++
			continue
		case strings.HasPrefix(m, "_"):
			reserved++
			continue
		}
		if !runs[run] {
			runs[run] = true
			runOrder = append(runOrder, run)
		}
		cols = append(cols, i+1)
		metric = append(metric, m)
	}
	byCol := make([]column, len(header))
	seen := map[string]int{}
	for k, i := range cols {
		tag := header[i]
		if len(runs) == 1 {
			tag = metric[k]
		}
		if j, dup := seen[tag]; dup {
			return Info{}, &Error{Path: path, Line: headerLine, Offset: -1,
				Msg: fmt.Sprintf("columns %d and %d are both %q", j+1, i+1, tag)}
		}
		seen[tag] = i
		byCol[i] = column{tag: tag, want: sink.Want(tag)}
	}

	var info Info
	info.Notes = append(info.Notes, fmt.Sprintf("Steps come from the x-axis column %q.", xName))
	switch len(runs) {
	case 0:
		info.Notes = append(info.Notes, "The export has no metric columns.")
	case 1:
		info.Notes = append(info.Notes, fmt.Sprintf("Tags are the metric names: the export holds one run, %q.", runOrder[0]))
	default:
		info.Notes = append(info.Notes, fmt.Sprintf("Tags are the column names \"<run> - <metric>\": the export holds %d runs.", len(runs)))
	}
	if minmax > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("Skipped %s (W&B's bucket extremes).", plural(int64(minmax), "__MIN/__MAX column", "__MIN/__MAX columns")))
	}
	if reserved > 0 {
		info.Notes = append(info.Notes, fmt.Sprintf("Skipped %s of W&B's own keys (such as _step).", plural(int64(reserved), "column", "columns")))
	}

	var notes noteCounts
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return info, fail(err, 0)
		}
		line, _ := r.FieldPos(0)
		for i, c := range rec {
			if j := binaryAt([]byte(c), false); j >= 0 {
				l, col := r.FieldPos(i)
				return info, &Error{Path: path, Line: l, Col: col, Offset: -1, Msg: "binary data in a cell; not a wandb-csv file"}
			}
		}
		x := strings.TrimSpace(rec[0])
		if x == "" {
			notes[noteEmptyX].add("", line)
			continue
		}
		step, ok := parseStep(x)
		if !ok {
			msg := fmt.Sprintf("the x-axis value %s in column %q is not an integer step", strconv.Quote(x), xName)
			if strings.Contains(strings.ToLower(xName), "time") {
				msg += "; export the panel with Step as its x-axis"
			}
			_, col := r.FieldPos(0)
			return info, &Error{Path: path, Line: line, Col: col, Offset: -1, Msg: msg}
		}
		for _, i := range cols {
			c := byCol[i]
			if !c.want {
				continue
			}
			cell := strings.TrimSpace(rec[i])
			if cell == "" {
				continue
			}
			v, ok := parseCell([]byte(cell))
			if !ok {
				notes[noteString].add(c.tag, line)
				continue
			}
			if err := sink.Point(c.tag, Point{Step: step, Value: v}); err != nil {
				return info, err
			}
			info.Points++
		}
	}
	info.Notes = append(info.Notes, notes.notes("")...)
	f.finish(&info)
	return info, nil
}
