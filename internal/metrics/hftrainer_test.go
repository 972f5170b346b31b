package metrics

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// recSink records every point, and how often each tag was asked for.
type recSink struct {
	only  map[string]bool
	asked map[string]int
	tags  []string
	pts   []Point
}

func (r *recSink) Want(tag string) bool {
	if r.asked == nil {
		r.asked = map[string]int{}
	}
	r.asked[tag]++
	return r.only == nil || r.only[tag]
}

func (r *recSink) Point(tag string, p Point) error {
	r.tags, r.pts = append(r.tags, tag), append(r.pts, p)
	return nil
}

// series is one tag's (step, value) pairs.
func (r *recSink) series(tag string) [][2]float64 {
	var out [][2]float64
	for i, t := range r.tags {
		if t == tag {
			out = append(out, [2]float64{float64(r.pts[i].Step), r.pts[i].Value})
		}
	}
	return out
}

// readRec writes data to dir/name and reads it with format fm, checking
// what every read must keep to: errors are one-line *Errors naming the
// file, Points counts what arrived, each tag is asked for once.
func readRec(t testing.TB, dir, name string, fm Format, data []byte) (*recSink, Info, error) {
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rec := &recSink{}
	info, err := Read(p, fm, rec)
	txtCheckRead(t, p, info, err, len(rec.pts), rec.asked)
	return rec, info, err
}

// trainerState is a trainer_state.json as TrainerState.save_to_json
// writes it (indent=2, sort_keys=True) from a GRPO run: train rows, an
// evaluation row and the closing summary row. gs, ms and stop fill in
// global_step, max_steps and should_training_stop.
func trainerState(gs, ms, stop string) string {
	return `{
  "best_global_step": null,
  "best_metric": null,
  "best_model_checkpoint": null,
  "epoch": 1.0,
  "eval_steps": 2,
  "global_step": ` + gs + `,
  "is_hyper_param_search": false,
  "is_local_process_zero": true,
  "is_world_process_zero": true,
  "log_history": [
    {
      "completion_length": 182.5,
      "epoch": 0.5,
      "grad_norm": NaN,
      "learning_rate": 1e-06,
      "loss": 0.0,
      "reward": 0.25,
      "rewards/accuracy_reward/mean": 0.25,
      "step": 2
    },
    {
      "epoch": 0.5,
      "eval_loss": 0.75,
      "eval_reward": 0.375,
      "eval_runtime": 12.5,
      "step": 2
    },
    {
      "epoch": 1.0,
      "grad_norm": 0.5,
      "learning_rate": 5e-07,
      "loss": 0.0125,
      "reward": 0.5,
      "rewards/accuracy_reward/mean": 0.5,
      "step": 4
    },
    {
      "epoch": 1.0,
      "step": 4,
      "total_flos": 0.0,
      "train_loss": 0.00625,
      "train_runtime": 101.25
    }
  ],
  "logging_steps": 2,
  "max_steps": ` + ms + `,
  "num_input_tokens_seen": 0,
  "num_train_epochs": 1,
  "save_steps": 2,
  "stateful_callbacks": {
    "TrainerControl": {
      "args": {
        "should_epoch_stop": false,
        "should_evaluate": false,
        "should_log": false,
        "should_save": true,
        "should_training_stop": ` + stop + `
      },
      "attributes": {}
    }
  },
  "total_flos": 0.0,
  "train_batch_size": 8,
  "trial_name": null,
  "trial_params": null
}
`
}

func TestHFTrainerSeries(t *testing.T) {
	rec, info, err := readRec(t, t.TempDir(), "trainer_state.json", "", []byte(trainerState("4", "4", "true")))
	if err != nil {
		t.Fatal(err)
	}
	if info.Format != HFTrainer || info.Unfinished != "" || info.TruncatedAt != 0 {
		t.Fatalf("info = %+v", info)
	}
	nan := math.NaN()
	got := map[string][][2]float64{}
	for _, tag := range []string{"reward", "eval_reward", "epoch", "grad_norm", "rewards/accuracy_reward/mean", "train_loss", "step", "total_flos"} {
		got[tag] = rec.series(tag)
	}
	want := map[string][][2]float64{
		"reward":                       {{2, 0.25}, {4, 0.5}},
		"eval_reward":                  {{2, 0.375}},
		"epoch":                        {{2, 0.5}, {2, 0.5}, {4, 1}, {4, 1}},
		"grad_norm":                    {{2, nan}, {4, 0.5}},
		"rewards/accuracy_reward/mean": {{2, 0.25}, {4, 0.5}},
		"train_loss":                   {{4, 0.00625}},
		"step":                         nil, // the step is no tag
		"total_flos":                   {{4, 0}},
	}
	if d := cmp.Diff(want, got, cmpopts.EquateNaNs()); d != "" {
		t.Errorf("series (-want +got):\n%s", d)
	}
}

func TestHFTrainerEnd(t *testing.T) {
	for _, tc := range []struct {
		name, gs, ms, stop string
		unfinished         string // part of Info.Unfinished; "" when finished
		note               string
	}{
		{name: "finished", gs: "4", ms: "4", stop: "true", note: "reached max_steps 4"},
		{name: "a checkpoint mid-run", gs: "4", ms: "10", stop: "false", unfinished: "global_step 4 of max_steps 10"},
		{name: "stopped early by a callback", gs: "4", ms: "10", stop: "true", note: "told to stop"},
		{name: "no max_steps known", gs: "4", ms: "null", stop: "false", note: "No max_steps"},
		{name: "control not saved", gs: "4", ms: "10", stop: "null", unfinished: "global_step 4 of max_steps 10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, info, err := readRec(t, t.TempDir(), "trainer_state.json", HFTrainer, []byte(trainerState(tc.gs, tc.ms, tc.stop)))
			if err != nil {
				t.Fatal(err)
			}
			if tc.unfinished == "" && info.Unfinished != "" || !strings.Contains(info.Unfinished, tc.unfinished) {
				t.Errorf("Unfinished = %q, want %q", info.Unfinished, tc.unfinished)
			}
			if tc.note != "" && !strings.Contains(strings.Join(info.Notes, " "), tc.note) {
				t.Errorf("notes %q lack %q", info.Notes, tc.note)
			}
		})
	}
}

func TestHFTrainerRefusals(t *testing.T) {
	good := trainerState("4", "4", "true")
	for _, tc := range []struct {
		name, dir, data string
		want            string // the error after the path
	}{
		{name: "a row past global_step", data: strings.Replace(good, `"global_step": 4`, `"global_step": 3`, 1),
			want: `:29:5: a row at step 4, past the global_step 3 the file records`},
		{name: "a key twice in a row", data: strings.Replace(good, `"eval_loss": 0.75,`, `"eval_loss": 0.75, "eval_loss": 0.5,`, 1),
			want: `:22:5: the row gives "eval_loss" two values`},
		{name: "nested and flat spell one tag", data: strings.Replace(good, `"eval_loss": 0.75,`, `"eval": {"loss": 1}, "eval/loss": 2,`, 1),
			want: `:22:5: the row gives "eval/loss" two values`},
		{name: "a row without step", data: strings.Replace(good, "\"train_runtime\": 101.25\n", "\"train_runtime\": 101.25, \"step\": null\n", 1),
			want: `:38:5: the row's step is null, not an integer`},
		{name: "a fractional step", data: strings.Replace(good, `"step": 2`, `"step": 2.5`, 1),
			want: `:12:5: the row's step "2.5" is no integer`},
		{name: "a step twice", data: strings.Replace(good, `"step": 2`, `"step": 2, "step": 3`, 1),
			want: `:12:5: the row gives "step" two values`},
		{name: "two log histories", data: strings.Replace(good, `"logging_steps": 2,`, `"log_history": [],`, 1),
			want: `:46:3: the key "log_history" is repeated`},
		{name: "global_step not a count", data: strings.Replace(good, `"global_step": 4`, `"global_step": "4"`, 1),
			want: `:7:3: global_step is a string, not an integer`},
		{name: "log_history not a list", data: `{"global_step": 1, "log_history": {"step": 1}}`,
			want: `:1:20: log_history is an object, not a list of rows`},
		{name: "a row not an object", data: `{"global_step": 1, "log_history": [[1]]}`,
			want: `:1:36: a log_history row is an array, not an object`},
		{name: "no log_history", data: `{"global_step": 1, "max_steps": 1}`,
			want: `: no log_history: not a transformers trainer_state.json`},
		{name: "data after the object", data: good + "{}",
			want: `:68:1: unexpected data after trainer_state.json's object`},
		{name: "cut off", data: good[:len(good)/2],
			want: `unexpected end of file inside a value`},
		{name: "another checkpoint's state", dir: "checkpoint-6", data: good,
			want: `: global_step is 4 but the file sits in checkpoint-6: it is another checkpoint's state`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, _, err := readRec(t, dir, filepath.Join(tc.dir, "trainer_state.json"), HFTrainer, []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestHFTrainerCheckpointDir(t *testing.T) {
	// A checkpoint's state agrees with its directory's name.
	_, info, err := readRec(t, t.TempDir(), "checkpoint-4/trainer_state.json", "", []byte(trainerState("4", "10", "false")))
	if err != nil || info.Format != HFTrainer {
		t.Fatalf("info %+v, err %v", info, err)
	}
}

func TestHFTrainerDetect(t *testing.T) {
	dir := t.TempDir()
	for name, want := range map[string]Format{
		"trainer_state.json": HFTrainer, // by name
		"state.json":         HFTrainer, // by its keys
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(trainerState("4", "4", "true")), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := Detect(p); err != nil || got != want {
			t.Errorf("Detect(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	p := filepath.Join(dir, "rows.json")
	if err := os.WriteFile(p, []byte(`[{"step": 1, "global_step": 1, "loss": 2}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := Detect(p); got != JSON {
		t.Errorf("Detect(rows.json) = %q, want json", got)
	}
}

func FuzzHFTrainer(f *testing.F) {
	f.Add([]byte(trainerState("4", "4", "true")))
	f.Add([]byte(trainerState("4", "10", "false")))
	f.Add([]byte(`{"global_step": 2, "log_history": [{"step": 1, "a": {"b": NaN, "c": "inf"}, "d": [1]}, {"step": 2, "e": -Infinity}], "max_steps": 3}`))
	f.Add([]byte(`{"log_history": [{"step": 1e3}], "stateful_callbacks": {"TrainerControl": []}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		readRec(t, t.TempDir(), "trainer_state.json", HFTrainer, data)
	})
}
