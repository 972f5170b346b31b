package metrics

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// TensorBoard UI downloads: one run and tag per file, CSV ("Wall time,
// Step,Value") or JSON ([[wall_time, step, value], …]). The file does not
// name the tag, so the tag is the file name without its extension (for
// example "run-train-tag-loss" for run-train-tag-loss.csv).

func tbTag(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

func tbTagNote(tag string) string {
	return fmt.Sprintf("The tag %q is the file name: TensorBoard exports do not record it.", tag)
}

func readTBCSV(path string, sink Sink) (Info, error) {
	f, err := openText(path, TBCSV, true, sink)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	tag := tbTag(path)
	info := Info{Notes: []string{tbTagNote(tag)}}
	want := sink.Want(tag)
	lr := f.lines()
	var cells [][]byte
	var cols []int
	var scratch []byte
	header := false
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return info, err
		}
		if isBlank(l) {
			continue
		}
		if i := binaryAt(l, false); i >= 0 {
			return info, binaryError(path, TBCSV, lr.line, lr.off+int64(i))
		}
		var e *Error
		cells, cols, e = splitCSVLine(l, cells, cols, &scratch)
		if e != nil {
			e.Path, e.Line = path, lr.line
			return info, e
		}
		if !header {
			if len(cells) != 3 || !strings.EqualFold(string(trimSpace(cells[0])), "Wall time") ||
				!strings.EqualFold(string(trimSpace(cells[1])), "Step") || !strings.EqualFold(string(trimSpace(cells[2])), "Value") {
				return info, &Error{Path: path, Line: lr.line, Offset: -1, Msg: "expected the header Wall time,Step,Value of a TensorBoard CSV export"}
			}
			header = true
			continue
		}
		if len(cells) != 3 {
			return info, &Error{Path: path, Line: lr.line, Offset: -1, Msg: fmt.Sprintf("%d cells; a TensorBoard export row has 3 (wall time, step, value)", len(cells))}
		}
		wall, ok1 := parseCell(trimSpace(cells[0]))
		step, ok2 := parseStep(string(trimSpace(cells[1])))
		v, ok3 := parseCell(trimSpace(cells[2]))
		if !ok1 || !ok2 || !ok3 {
			bad, what := 0, "wall time"
			if !ok1 {
			} else if !ok2 {
				bad, what = 1, "step"
			} else {
				bad, what = 2, "value"
			}
			return info, &Error{Path: path, Line: lr.line, Col: cols[bad], Offset: -1,
				Msg: fmt.Sprintf("the %s %s is not a number", what, quoteCell(trimSpace(cells[bad])))}
		}
		if !want {
			continue
		}
		if err := sink.Point(tag, Point{Step: step, WallTime: wall, Value: v}); err != nil {
			return info, err
		}
		info.Points++
	}
	if !header {
		return info, &Error{Path: path, Offset: -1, Msg: "no header: the file holds only blank lines"}
	}
	f.finish(&info)
	return info, nil
}

func readTBJSON(path string, sink Sink) (Info, error) {
	f, err := openText(path, TBJSON, false, sink)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	tag := tbTag(path)
	info := Info{Notes: []string{tbTagNote(tag)}}
	want := sink.Want(tag)
	jr := &jsonReader{path: path, file: f, bom: f.start}
	jr.dec = json.NewDecoder(newNonFiniteReader(f.body()))
	jr.dec.UseNumber()
	t, err := jr.dec.Token()
	if err == io.EOF {
		return info, &Error{Path: path, Offset: -1, Msg: "empty file (only white space)"}
	}
	if err != nil {
		return info, jr.fail(err)
	}
	if t != json.Delim('[') {
		return info, jr.errAt(0, "expected an array of [wall_time, step, value] triples, found "+tokenText(t))
	}
	var nums [3]string
	for jr.dec.More() {
		jr.rowAt = jr.dec.InputOffset()
		t, err := jr.dec.Token()
		if err != nil {
			return info, jr.fail(err)
		}
		if t != json.Delim('[') {
			return info, jr.errAt(jr.rowAt, "expected a [wall_time, step, value] triple, found "+tokenText(t))
		}
		n := 0
		for jr.dec.More() {
			t, err := jr.dec.Token()
			if err != nil {
				return info, jr.fail(err)
			}
			num, ok := t.(json.Number)
			if !ok || n == 3 {
				return info, jr.errAt(jr.rowAt, "expected a [wall_time, step, value] triple of numbers")
			}
			nums[n] = numberLexeme(num)
			n++
		}
		if _, err := jr.dec.Token(); err != nil { // ']'
			return info, jr.fail(err)
		}
		if n != 3 {
			return info, jr.errAt(jr.rowAt, "expected a [wall_time, step, value] triple of numbers")
		}
		step, ok := parseStep(nums[1])
		if !ok {
			return info, jr.errAt(jr.rowAt, fmt.Sprintf("the step %s is not an integer", stepText(nums[1])))
		}
		if !want {
			continue
		}
		wall, _ := parseFloat([]byte(nums[0]))
		v, _ := parseFloat([]byte(nums[2]))
		if err := sink.Point(tag, Point{Step: step, WallTime: wall, Value: v}); err != nil {
			return info, err
		}
		info.Points++
	}
	if _, err := jr.dec.Token(); err != nil { // ']'
		return info, jr.fail(err)
	}
	at := jr.dec.InputOffset()
	if _, err := jr.dec.Token(); err != io.EOF {
		if err != nil {
			return info, jr.fail(err)
		}
		return info, jr.errAt(at, "unexpected data after the array")
	}
	return info, nil
}
