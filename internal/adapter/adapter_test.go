package adapter

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/schema/validate"
)

func TestExpand(t *testing.T) {
	vars := map[string]string{"run_dir": "runs/a/seed1", "seed": "1", "experiment": "a"}
	got, err := Expand("{run_dir}/eval.jsonl", vars)
	if err != nil || got != "runs/a/seed1/eval.jsonl" {
		t.Errorf("Expand = %q, %v", got, err)
	}
	got, err = Expand("out/{experiment}-{seed}.csv", vars)
	if err != nil || got != "out/a-1.csv" {
		t.Errorf("Expand = %q, %v", got, err)
	}
	if _, err := Expand("{rundir}/x", vars); err == nil || !strings.Contains(err.Error(), "unknown placeholder") {
		t.Errorf("unknown placeholder accepted: %v", err)
	}
	// A shell parameter expansion is left to the shell.
	got, err = Expand("python run.py --env ${TASK} --seed {seed}", vars)
	if err != nil || got != "python run.py --env ${TASK} --seed 1" {
		t.Errorf("Expand = %q, %v", got, err)
	}
	if _, err := Expand("${HOME}/{rundir}", vars); err == nil {
		t.Error("unknown placeholder after a shell expansion accepted")
	}
}

func TestParse(t *testing.T) {
	a, err := Parse(validate.Schemas{}, "a.yaml", []byte("schema: rlxp.adapter/v1\nmetrics:\n  sources:\n    eval: {path: \"{run_dir}/eval.jsonl\", format: jsonl}\n    train: {path: p.csv}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(a.SourceNames(), ","); got != "eval,train" || a.Metrics.Sources["eval"].Format != "jsonl" {
		t.Errorf("sources = %v", a.Metrics.Sources)
	}
	if _, err := Parse(validate.Schemas{}, "a.yaml", []byte("schema: rlxp.adapter/v1\nmetrics:\n  sources:\n    eval: {format: jsonl}\n")); err == nil || !strings.Contains(err.Error(), "a.yaml:4:") {
		t.Errorf("missing path: %v", err)
	}
	_, err = Parse(validate.Schemas{}, "a.yaml", []byte("schema: rlxp.adapter/v1\nmetrics:\n  sources:\n    eval:\n      path: p.parquet\n      format: parquet\n"))
	if err == nil || !strings.HasPrefix(err.Error(), `a.yaml:6:7: metrics.sources.eval.format: unknown format "parquet" (formats: json, jsonl,`) {
		t.Errorf("unknown format: %v", err)
	}
}

func TestParams(t *testing.T) {
	a := &Adapter{}
	a.Config.Override = "--set {name}={value}"
	got, err := a.Params([]string{"lr", "tag"}, map[string]string{"lr": "0.05", "tag": "a b'c"})
	if want := `--set lr=0.05 --set tag='a b'\''c'`; err != nil || got != want {
		t.Errorf("Params = %q, %v; want %q", got, err, want)
	}
	a.Config.Override = ""
	if _, err := a.Params([]string{"lr"}, map[string]string{"lr": "1"}); err == nil {
		t.Error("empty override accepted")
	}
}

// A list takes its parameters as items of one option, written once where
// the first of them stands; the others go through config.override.
func TestParamsList(t *testing.T) {
	values := map[string]string{"n_steps": "256", "gamma": "0.98", "n_envs": "4", "tag": "a b"}
	for _, tc := range []struct {
		name     string
		override string
		list     *List
		params   []string
		want     string
		err      string
	}{
		{name: "every parameter an item", list: &List{Flag: "--hyperparams", Item: "{name}:{value}"},
			params: []string{"n_steps", "gamma"}, want: "--hyperparams n_steps:256 gamma:0.98"},
		{name: "items among options", override: "--{name} {value}", list: &List{Flag: "--hyperparams", Item: "{name}:{value}", Names: []string{"gamma", "n_steps"}},
			params: []string{"n_envs", "gamma", "tag", "n_steps"}, want: "--n_envs 4 --hyperparams gamma:0.98 n_steps:256 --tag 'a b'"},
		{name: "key=value items", list: &List{Flag: "--set", Item: "{name}={value}"},
			params: []string{"tag", "gamma"}, want: "--set tag='a b' gamma=0.98"},
		{name: "no parameters, no option", list: &List{Flag: "--set", Item: "{name}={value}"}},
		{name: "a parameter with no way in", list: &List{Flag: "--hyperparams", Item: "{name}:{value}", Names: []string{"gamma"}},
			params: []string{"gamma", "n_envs"}, err: "config.override is empty: adapter.yaml does not say how to pass parameter n_envs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Adapter{}
			a.Config.Override, a.Config.List = tc.override, tc.list
			got, err := a.Params(tc.params, values)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("Params = %q, %v; want error %q", got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("Params = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestListKeys(t *testing.T) {
	l := &List{Flag: "--hyperparams", Item: "{name}:{value}"}
	args := strings.Fields("train.py --algo ppo --hyperparams n_steps:256 gamma:0.98 --seed 1")
	if diff := cmp.Diff([]string{"n_steps", "gamma"}, l.Keys(args)); diff != "" {
		t.Errorf("Keys (-want +got):\n%s", diff)
	}
	if sep := (&List{Flag: "--x", Item: "{value}"}).Separator(); sep != "" {
		t.Errorf("Separator of an item without {name} = %q", sep)
	}
}

// config.list is checked where the schema cannot: an item without its
// value, and a command giving the option itself, whose items the
// parameters' list would replace.
func TestCheckList(t *testing.T) {
	doc := "schema: rlxp.adapter/v1\ncommands:\n  train: python train.py --hyperparams n_envs:1 {params}\nconfig:\n  list:\n    flag: --hyperparams\n    item: \"{name}\"\n    names: [gamma]\n"
	f, err := document.Parse("a.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	errs, err := Check(validate.Schemas{}, f)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{
		`a.yaml:7:5: config.list.item: "{name}" has no {value}: the parameter's value would not reach the program`,
		`a.yaml:3:3: commands.train: gives --hyperparams itself, and config.list gives the parameters as another --hyperparams: the program keeps only the last list, so one would be lost; move its items into the repository's config (or make them parameters)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check (-want +got):\n%s", diff)
	}
	if _, err := Parse(validate.Schemas{}, "a.yaml", []byte("schema: rlxp.adapter/v1\nconfig:\n  list: {flag: hyperparams, item: \"{name}:{value}\"}\n")); err == nil || !strings.HasPrefix(err.Error(), "a.yaml:3:") {
		t.Errorf("a flag that is no option: %v", err)
	}
}
