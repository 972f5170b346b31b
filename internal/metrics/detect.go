package metrics

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Detect picks a format from the path's name and its first bytes (at most
// 4 KiB): a directory is an MLflow run, metrics directory or mlruns tree;
// *tfevents* and TFRecord framing are tfevents; .wandb and the :W&B header
// are wandb; wandb-summary.json is wandb-summary; a file under an MLflow
// run's metrics/ directory is mlflow; .jsonl is jsonl; .json is tb-json
// when it starts "[[", jsonl when its first two lines are objects, else
// json (hf-trainer when named trainer_state.json or when its head holds
// the keys "global_step" and "log_history"); .npz is sb3-eval; .csv is tb-csv with the header "Wall time,Step,Value", wandb-csv
// when every header cell is quoted and one holds " - ", else csv; .log,
// .txt, .out and names without an extension are verl-log when a line
// reads "step:N - …" (or jsonl when the first line is an object).
func Detect(path string) (Format, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		if looksLikeMLflowDir(path) {
			return MLflow, nil
		}
		return "", &Error{Path: path, Offset: -1,
			Msg: "a directory, but not an MLflow run, metrics/ directory or mlruns tree; pass a metric file"}
	}
	f, _, err := OpenSource(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, headSize)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return "", &Error{Path: path, Offset: -1, Msg: osMsg(err)}
	}
	head = head[:n]
	if n == 0 {
		return "", &Error{Path: path, Offset: -1, Msg: "empty file"}
	}
	full := n < headSize // head is the whole file
	base := strings.ToLower(filepath.Base(path))
	ext := filepath.Ext(base)
	switch {
	case ext == ".npz":
		return SB3Eval, nil
	case base == "trainer_state.json" || ext == ".json" && looksLikeTrainerState(head):
		return HFTrainer, nil
	case strings.Contains(base, "tfevents") || looksLikeTFRecord(head):
		return TFEvents, nil
	case ext == ".wandb" || looksLikeWandb(head):
		return Wandb, nil
	case base == "wandb-summary.json":
		return WandbSummary, nil
	case inMLflowMetrics(path):
		return MLflow, nil
	}
	text := bytes.TrimPrefix(head, []byte(utf8BOM))
	if bareCR(text) {
		text = bytes.ReplaceAll(text, []byte{'\r'}, []byte{'\n'})
	}
	lines := headLines(text, full)
	switch ext {
	case ".jsonl", ".ndjson":
		return JSONL, nil
	case ".json":
		t := bytes.TrimLeft(text, " \t\r\n")
		if len(t) > 0 && t[0] == '[' && len(bytes.TrimLeft(t[1:], " \t\r\n")) > 0 && bytes.TrimLeft(t[1:], " \t\r\n")[0] == '[' {
			return TBJSON, nil
		}
		if len(lines) >= 2 && jsonLines(lines) {
			return JSONL, nil
		}
		return JSON, nil
	case ".csv":
		if len(lines) == 0 {
			return CSV, nil
		}
		first := trimCR(lines[0])
		if cells, _, e := splitCSVLine(first, nil, nil, nil); e == nil && len(cells) == 3 &&
			string(trimSpace(cells[0])) == "Wall time" && string(trimSpace(cells[1])) == "Step" && string(trimSpace(cells[2])) == "Value" {
			return TBCSV, nil
		}
		if allQuoted(first) && bytes.Contains(first, []byte(" - ")) {
			return WandbCSV, nil
		}
		return CSV, nil
	case ".log", ".txt", ".out", "":
		for _, l := range lines {
			if _, _, ok := verlStepLine(l); ok {
				return VerlLog, nil
			}
		}
		if jsonLines(lines[:min(len(lines), 1)]) {
			return JSONL, nil
		}
		if !full && verlLater(f) {
			return VerlLog, nil
		}
	}
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return "", &Error{Path: path, Offset: -1,
		Msg: "cannot tell the format from the name and the first 4 KiB; pass --format (" + strings.Join(names, ", ") + ")"}
}

// verlScan is how far into a log detection looks for verl's first step
// line: trainers print their configuration, model loading and Ray's
// start-up first.
const verlScan = 16 << 20

// verlLater reports whether a step line comes within the first verlScan
// bytes of f.
func verlLater(f *os.File) bool {
	lr := newLineReader(io.NewSectionReader(f, 0, verlScan), 0)
	for {
		l, err := lr.Next()
		if err != nil {
			return false
		}
		for seg := range bytes.SplitSeq(l, []byte{'\r'}) {
			if _, _, ok := verlStepLine(seg); ok {
				return true
			}
		}
	}
}

// headLines splits the head into lines, dropping a last line cut off by
// the end of the head unless the head is the whole file.
func headLines(text []byte, full bool) [][]byte {
	lines := bytes.Split(text, []byte{'\n'})
	if !full && len(lines) > 1 {
		lines = lines[:len(lines)-1]
	}
	out := lines[:0]
	for _, l := range lines {
		if l = trimCR(l); !isBlank(l) {
			out = append(out, l)
		}
	}
	return out
}

// jsonLines reports whether the first lines each hold one object: the
// first must, and so must the second when there is one.
func jsonLines(lines [][]byte) bool {
	if len(lines) == 0 {
		return false
	}
	isObj := func(l []byte) bool {
		l = bytes.TrimSpace(l)
		return len(l) >= 2 && l[0] == '{' && l[len(l)-1] == '}'
	}
	if !isObj(lines[0]) {
		return false
	}
	return len(lines) == 1 || bytes.HasPrefix(bytes.TrimSpace(lines[1]), []byte("{"))
}

// allQuoted reports whether every cell of a CSV line is double-quoted; a
// last cell cut off by the end of the head counts.
func allQuoted(l []byte) bool {
	i := 0
	for i < len(l) {
		if l[i] != '"' {
			return false
		}
		i++
		for {
			k := bytes.IndexByte(l[i:], '"')
			if k < 0 {
				return true // cut off inside the cell
			}
			i += k + 1
			if i < len(l) && l[i] == '"' { // an escaped quote
				i++
				continue
			}
			break
		}
		if i == len(l) {
			return true
		}
		if l[i] != ',' {
			return false
		}
		i++
	}
	return len(l) > 0
}

// inMLflowMetrics reports whether a file sits under the metrics/
// directory of an MLflow run (a directory with meta.yaml).
func inMLflowMetrics(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if filepath.Base(d) == "metrics" && isFile(filepath.Join(filepath.Dir(d), "meta.yaml")) {
			return true
		}
		if parent := filepath.Dir(d); parent == d {
			return false
		}
	}
}
