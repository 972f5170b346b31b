package metrics

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// wandb-summary.json: the last value of each key of a W&B run.
//
// Conventions:
//   - One point per numeric key, all at the step "_step" (0 when absent)
//     and the wall time "_timestamp". Nested objects flatten with "/".
//   - Keys starting with "_" (_step, _runtime, _timestamp, _wandb) are
//     W&B's own and not tags. Media and table objects ({"_type": …}) and
//     other values that are not numbers are skipped with a note.
//   - A summary is a last value (or what define_metric chose), not a
//     history. An offline run's summary may hold no metrics at all; they
//     are then only in its run-<id>.wandb log.

func readWandbSummary(path string, sink Sink) (Info, error) {
	jr, err := openJSON(path, WandbSummary, sink)
	if err != nil {
		return Info{}, err
	}
	defer jr.file.Close()
	t, err := jr.dec.Token()
	if err == io.EOF {
		return Info{}, &Error{Path: path, Offset: -1, Msg: "empty file (only white space)"}
	}
	if err != nil {
		return Info{}, jr.fail(err)
	}
	if t != json.Delim('{') {
		return Info{}, jr.errAt(0, "expected the summary object, found "+tokenText(t))
	}
	rd := rowDecoder{dec: jr.dec}
	if err := rd.object("", 0, false, ""); err != nil {
		return Info{}, jr.fail(err)
	}
	at := jr.dec.InputOffset()
	if _, err := jr.dec.Token(); err != io.EOF {
		if err != nil {
			return Info{}, jr.fail(err)
		}
		return Info{}, jr.errAt(at, "unexpected data after the summary object")
	}

	var step int64
	var wall float64
	hasStep, wandbKey := false, false
	for _, l := range rd.leaves {
		switch {
		case l.name == "_step" && l.kind == leafNumber:
			s, ok := parseStep(l.num)
			if !ok {
				return Info{}, jr.errAt(0, fmt.Sprintf("_step is %s, not an integer", stepText(l.num)))
			}
			step, hasStep = s, true
		case l.name == "_timestamp" && l.kind == leafNumber:
			wall, _ = parseFloat([]byte(l.num))
		case l.top == "_wandb":
			wandbKey = true
		}
	}
	var info Info
	var notes noteCounts
	// A key given two values is refused before any point is delivered.
	given := map[string]bool{}
	for _, l := range rd.leaves {
		if l.kind != leafNumber || strings.HasPrefix(l.top, "_") {
			continue
		}
		if given[l.name] {
			return Info{}, &Error{Path: path, Offset: -1, Msg: fmt.Sprintf("the key %q has two values (a repeated key, or keys that flatten to the same name): which is the summary's cannot be told", l.name)}
		}
		given[l.name] = true
	}
	wants := map[string]bool{}
	metrics := 0
	for _, l := range rd.leaves {
		if strings.HasPrefix(l.top, "_") {
			continue
		}
		switch l.kind {
		case leafNumber:
			metrics++
			want, seen := wants[l.name]
			if !seen {
				want = sink.Want(l.name)
				wants[l.name] = want
			}
			if !want {
				continue
			}
			v, _ := parseFloat([]byte(l.num))
			if err := sink.Point(l.name, Point{Step: step, WallTime: wall, Value: v}); err != nil {
				return info, err
			}
			info.Points++
		case leafString:
			notes[noteString].add(l.name, 0)
		case leafBool:
			notes[noteBool].add(l.name, 0)
		case leafNull:
			notes[noteNull].add(l.name, 0)
		case leafList:
			notes[noteList].add(l.name, 0)
		case leafMedia:
			notes[noteMedia].add(l.name, 0)
		}
	}
	if hasStep {
		info.Notes = append(info.Notes, fmt.Sprintf("Every point is at the summary's _step, %d; a summary holds each key's last value, not a history.", step))
	} else {
		info.Notes = append(info.Notes, "The summary has no _step; every point is at step 0.")
	}
	if metrics == 0 {
		msg := "The summary holds no metrics"
		if wandbKey {
			msg += ", only W&B's own keys; an offline run keeps its metrics in the run-<id>.wandb log only: read that file"
		}
		info.Notes = append(info.Notes, msg+".")
	}
	info.Notes = append(info.Notes, notes.notes("")...)
	return info, nil
}
