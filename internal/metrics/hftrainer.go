package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
)

// trainer_state.json is what Hugging Face transformers' Trainer (and so
// TRL's GRPO, PPO, DPO and SFT trainers) writes into every checkpoint-N/
// directory and, through save_state, into its output directory. Its shape
// is TrainerState's, in transformers' src/transformers/trainer_callback.py:
// TrainerState.save_to_json writes json.dumps(dataclasses.asdict(state),
// indent=2, sort_keys=True), so one object whose keys include
//
//	"global_step": update steps done,
//	"max_steps":   update steps the training was to do,
//	"log_history": [{"epoch": 0.1, "loss": 0.5, …, "step": 10}, …],
//	"stateful_callbacks": {"TrainerControl": {"args": {"should_training_stop": …}}}
//
// (the last in releases since 4.40). Each log_history row is one
// Trainer.log call: {**logs, "step": global_step}, with "epoch" when it is
// known; evaluation rows have eval_* keys and the last row train_runtime,
// train_loss and the like. Python's json writes NaN and ±Infinity bare.
//
// A checkpoint's file is written mid-run: global_step short of max_steps
// says the run had not finished when it was written (a crash, a
// preemption, or a run still training), unless the Trainer was told to
// stop (should_training_stop: an early-stopping callback), which the run
// did on its own terms.

// readHFTrainer reads a trainer_state.json: tags are the log_history
// rows' keys ("/"-joined when nested), the step is each row's "step".
func readHFTrainer(path string, sink Sink) (Info, error) {
	jr, err := openJSON(path, HFTrainer, sink)
	if err != nil {
		return Info{}, err
	}
	defer jr.file.Close()
	hr := hfReader{jr: jr, sink: sink, want: map[string]bool{}}
	info, err := hr.read()
	info.Points = hr.points
	return info, err
}

type hfReader struct {
	jr     *jsonReader
	sink   Sink
	want   map[string]bool
	points int64
	rows   int64

	globalStep, maxSteps *int64
	shouldStop           *bool
	// furthest is the largest step a row gave and the offset of that row.
	furthest   int64
	furthestAt int64
	leaves     []hfLeaf
}

// An hfLeaf is one numeric value of a row.
type hfLeaf struct {
	name string
	num  string
}

func (hr *hfReader) read() (Info, error) {
	jr := hr.jr
	t, err := jr.dec.Token()
	if err == io.EOF {
		return Info{}, &Error{Path: jr.path, Offset: -1, Msg: "empty file (only white space)"}
	}
	if err != nil {
		return Info{}, jr.fail(err)
	}
	if t != json.Delim('{') {
		return Info{}, jr.errAt(0, "expected trainer_state.json's object, found "+tokenText(t))
	}
	seen := map[string]bool{}
	for jr.dec.More() {
		at := jr.dec.InputOffset()
		t, err := jr.dec.Token()
		if err != nil {
			return Info{}, jr.fail(err)
		}
		key, _ := t.(string)
		if seen[key] {
			return Info{}, jr.errAt(at, fmt.Sprintf("the key %q is repeated: two values for one field", key))
		}
		seen[key] = true
		switch key {
		case "log_history":
			err = hr.history(at)
		case "global_step":
			hr.globalStep, err = hr.count(key, at)
		case "max_steps":
			hr.maxSteps, err = hr.count(key, at)
		case "stateful_callbacks":
			err = hr.callbacks()
		default:
			err = hr.skip()
		}
		if err != nil {
			return Info{}, err
		}
	}
	if _, err := jr.dec.Token(); err != nil { // '}'
		return Info{}, jr.fail(err)
	}
	at := jr.dec.InputOffset()
	if _, err := jr.dec.Token(); err != io.EOF {
		if err != nil {
			return Info{}, jr.fail(err)
		}
		return Info{}, jr.errAt(at, "unexpected data after trainer_state.json's object")
	}
	if !seen["log_history"] {
		return Info{}, &Error{Path: jr.path, Offset: -1, Msg: "no log_history: not a transformers trainer_state.json"}
	}
	return hr.finish()
}

// finish checks the rows against the state's own counters and says
// whether the run had finished.
func (hr *hfReader) finish() (Info, error) {
	jr := hr.jr
	info := Info{Notes: []string{`Rows are log_history's; steps come from "step" (update steps).`}}
	if hr.globalStep == nil {
		info.Notes = append(info.Notes, "No global_step: whether the run finished cannot be told from the file.")
		return info, nil
	}
	gs := *hr.globalStep
	if hr.rows > 0 && hr.furthest > gs {
		return info, jr.errAt(hr.furthestAt, fmt.Sprintf("a row at step %d, past the global_step %d the file records: its rows are not this state's", hr.furthest, gs))
	}
	// A checkpoint's directory is named after the global step it saved.
	if dir := filepath.Base(filepath.Dir(jr.path)); strings.HasPrefix(dir, "checkpoint-") {
		if n, err := strconv.ParseInt(dir[len("checkpoint-"):], 10, 64); err == nil && n != gs {
			return info, &Error{Path: jr.path, Offset: -1,
				Msg: fmt.Sprintf("global_step is %d but the file sits in %s: it is another checkpoint's state", gs, dir)}
		}
	}
	switch {
	case hr.maxSteps == nil || *hr.maxSteps <= 0:
		info.Notes = append(info.Notes, "No max_steps: whether the run finished cannot be told from the file.")
	case gs >= *hr.maxSteps:
		info.Notes = append(info.Notes, fmt.Sprintf("global_step %d reached max_steps %d: the training finished.", gs, *hr.maxSteps))
	case hr.shouldStop != nil && *hr.shouldStop:
		info.Notes = append(info.Notes, fmt.Sprintf("global_step %d is short of max_steps %d, and the Trainer was told to stop (should_training_stop, as an early-stopping callback sets it).", gs, *hr.maxSteps))
	default:
		info.Unfinished = fmt.Sprintf("trainer_state.json says global_step %d of max_steps %d: the training had not finished when it was written (a checkpoint of a run still training, or of one that crashed or was stopped)", gs, *hr.maxSteps)
		// Said as a note too, for metrics inspect, which shows notes only.
		info.Notes = append(info.Notes, "The run had not finished: "+info.Unfinished+".")
	}
	return info, nil
}

// count reads a step counter, an integer; at is its key's offset.
func (hr *hfReader) count(key string, at int64) (*int64, error) {
	jr := hr.jr
	t, err := jr.dec.Token()
	if err != nil {
		return nil, jr.fail(err)
	}
	if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
		if err := hr.skipOpen(); err != nil {
			return nil, err
		}
	}
	if t == nil { // null: not known
		return nil, nil
	}
	num, ok := t.(json.Number)
	var n int64
	if ok {
		n, err = strconv.ParseInt(numberLexeme(num), 10, 64)
	}
	if !ok || err != nil {
		return nil, jr.errAt(at, fmt.Sprintf("%s is %s, not an integer", key, hfText(t)))
	}
	return &n, nil
}

// callbacks reads stateful_callbacks for TrainerControl's
// should_training_stop; the rest is skipped.
func (hr *hfReader) callbacks() error {
	var v struct {
		TrainerControl struct {
			Args struct {
				ShouldTrainingStop *bool `json:"should_training_stop"`
			} `json:"args"`
		}
	}
	err := hr.jr.dec.Decode(&v)
	var te *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &te) {
		return hr.jr.fail(err)
	}
	hr.shouldStop = v.TrainerControl.Args.ShouldTrainingStop
	return nil
}

// history reads log_history's rows and delivers their points; at is
// its key's offset.
func (hr *hfReader) history(at int64) error {
	jr := hr.jr
	t, err := jr.dec.Token()
	if err != nil {
		return jr.fail(err)
	}
	if t == nil {
		return nil
	}
	if t != json.Delim('[') {
		return jr.errAt(at, "log_history is "+hfText(t)+", not a list of rows")
	}
	for jr.dec.More() {
		rowAt := jr.dec.InputOffset()
		t, err := jr.dec.Token()
		if err != nil {
			return jr.fail(err)
		}
		if t != json.Delim('{') {
			return jr.errAt(rowAt, "a log_history row is "+hfText(t)+", not an object")
		}
		if err := hr.row(rowAt); err != nil {
			return err
		}
	}
	_, err = jr.dec.Token() // ']'
	if err != nil {
		return jr.fail(err)
	}
	return nil
}

// row reads one row whose '{' was read and delivers its points.
func (hr *hfReader) row(at int64) error {
	jr := hr.jr
	hr.leaves = hr.leaves[:0]
	var step *int64
	if err := hr.object("", &step, at); err != nil {
		return err
	}
	if step == nil {
		return jr.errAt(at, `a log_history row with no "step"`)
	}
	seen := make(map[string]bool, len(hr.leaves))
	for _, l := range hr.leaves {
		if seen[l.name] {
			return jr.errAt(at, fmt.Sprintf("the row gives %q two values", l.name))
		}
		seen[l.name] = true
	}
	hr.rows++
	if hr.rows == 1 || *step > hr.furthest {
		hr.furthest, hr.furthestAt = *step, at
	}
	for _, l := range hr.leaves {
		want, ok := hr.want[l.name]
		if !ok {
			want = hr.sink.Want(l.name)
			hr.want[l.name] = want
		}
		if !want {
			continue
		}
		v, err := parseFloat([]byte(l.num))
		if err != nil {
			return jr.errAt(at, fmt.Sprintf("%q is %s, not a number", l.name, l.num))
		}
		if err := hr.sink.Point(l.name, Point{Step: *step, Value: v}); err != nil {
			return err
		}
		hr.points++
	}
	return nil
}

// object reads the members of a row object (or one nested in it) whose
// '{' was read. Numbers (and "NaN"-like strings) are leaves; strings,
// booleans, nulls and lists are no metric and are skipped.
func (hr *hfReader) object(prefix string, step **int64, rowAt int64) error {
	jr := hr.jr
	for jr.dec.More() {
		t, err := jr.dec.Token()
		if err != nil {
			return jr.fail(err)
		}
		key, _ := t.(string)
		name := key
		if prefix != "" {
			name = prefix + "/" + key
		}
		t, err = jr.dec.Token()
		if err != nil {
			return jr.fail(err)
		}
		switch v := t.(type) {
		case json.Delim:
			if v == '{' {
				err = hr.object(name, step, rowAt)
			} else {
				err = hr.skipOpen()
			}
			if err != nil {
				return err
			}
			continue
		case json.Number:
			num := numberLexeme(v)
			if name == "step" {
				n, err := strconv.ParseInt(num, 10, 64)
				if err != nil {
					return jr.errAt(rowAt, fmt.Sprintf("the row's step %s is no integer", stepText(num)))
				}
				if *step != nil {
					return jr.errAt(rowAt, `the row gives "step" two values`)
				}
				*step = &n
				continue
			}
			hr.leaves = append(hr.leaves, hfLeaf{name, num})
		case string:
			if num, ok := nonFiniteWord(v); ok {
				hr.leaves = append(hr.leaves, hfLeaf{name, num})
			}
		}
		if name == "step" {
			return jr.errAt(rowAt, "the row's step is "+hfText(t)+", not an integer")
		}
	}
	_, err := jr.dec.Token() // '}'
	if err != nil {
		return jr.fail(err)
	}
	return nil
}

// skip skips one value.
func (hr *hfReader) skip() error {
	t, err := hr.jr.dec.Token()
	if err != nil {
		return hr.jr.fail(err)
	}
	if d, ok := t.(json.Delim); ok && (d == '{' || d == '[') {
		return hr.skipOpen()
	}
	return nil
}

// skipOpen skips to the end of an array or object whose opening was read.
func (hr *hfReader) skipOpen() error {
	rd := rowDecoder{dec: hr.jr.dec}
	if err := rd.skipOpen(1); err != nil {
		return hr.jr.fail(err)
	}
	return nil
}

func hfText(t json.Token) string {
	switch t.(type) {
	case json.Delim:
		if t == json.Delim('{') {
			return "an object"
		}
	case nil:
		return "null"
	}
	return tokenText(t)
}

// looksLikeTrainerState reports whether a JSON file's head holds the keys
// only a TrainerState has together. With sorted keys, log_history comes
// after a dozen short fields, well inside the head.
func looksLikeTrainerState(head []byte) bool {
	return bytes.Contains(head, []byte(`"log_history"`)) && bytes.Contains(head, []byte(`"global_step"`))
}
