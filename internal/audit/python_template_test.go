package audit

import (
	"testing"
)

func TestTemplateOf(t *testing.T) {
	for _, c := range []struct {
		expr, want string
		ok         bool
	}{
		{`"train/loss"`, "train/loss", true},
		{`f"train/{k}"`, "train/{k}", true},
		{`f'{self._ty}/{key}'`, "{self._ty}/{key}", true},
		{`f"{prefix}/{k:.3f}"`, "{prefix}/{k}", true},
		{`"%s/%s" % (prefix, k)`, "{prefix}/{k}", true},
		{`"losses/%s" % name`, "losses/{name}", true},
		{`"{}/{}".format(group, stat)`, "{group}/{stat}", true},
		{`category + "/" + k`, "{category}/{k}", true},
		{`str(k)`, "{k}", true},
		{`f"{{literal}}/{k}"`, "{literal}/{k}", true},
		{`key.replace("/", "_")`, "", false},
		{`"%s/%s" % (prefix,)`, "", false},
		{`f"{x.y()}"`, "", false},
		{``, "", false},
	} {
		got, ok := templateOf(c.expr)
		if ok != c.ok || ok && got.String() != c.want {
			t.Errorf("templateOf(%s) = %q, %v; want %q, %v", c.expr, got.String(), ok, c.want, c.ok)
		}
	}
}

func FuzzTemplateOf(f *testing.F) {
	for _, s := range []string{`f"{self._ty}/{key}"`, `"%s/%s" % (a, b)`, `"{}/x".format(a)`, `a + "/" + b`, `f'{{x}}'`, `"%(name)s" % d`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if tm, ok := templateOf(s); ok {
			_ = tm.String()
		}
	})
}

func FuzzPyDefs(f *testing.F) {
	profiles, err := Profiles()
	if err != nil {
		f.Fatal(err)
	}
	sc := newScanner(profiles)
	f.Add("class A:\n    def log(self, key, value=1):\n        self.w.add_scalar(key, value)\n")
	f.Add("class C:\n    def __init__(self, ty):\n        self._ty = ty\n    def __call__(self, k, v):\n        self.w.add_scalar(f'{self._ty}/{k}', v)\n" +
		"def ctx(ty):\n    return C(ty)\nwith ctx(ty='eval') as log:\n    log('r', 1)\n")
	f.Add("def log(d, category='train'):\n    _d = {}\n    for k, v in d.items():\n        _d[category + '/' + k] = v\n    wandb.log(_d)\n" +
		"def ev():\n    return dict(r=1)\nm = ev()\nlog(m, 'eval')\nfor k, v in info['episode'].items():\n    w.add_scalar(f't/{k}', v)\n")
	f.Add("def f(\n    a,\n    b='x',\n) -> None:\n\treturn dict(a=1)\r\n")
	f.Add("class A:\n    def track_data(self, tag, value):\n        self.tracking_data[tag].append(value)\n" +
		"    def write(self, t):\n        for k, v in self.tracking_data.items():\n            self.writer.add_scalar(tag=k, value=v, timestep=t)\n" +
		"class B(A):\n    def update(self):\n        self.track_data(\"Loss / Policy loss\", 1)\n")
	f.Add("class R:\n    def log_train(self, infos, n):\n        for k, v in infos.items():\n            wandb.log({k: v}, step=n)\n" +
		"    def run(self):\n        infos = self.train()\n        infos[\"avg\"] = 1\n        self.log_train(infos, 0)\n")
	f.Fuzz(func(t *testing.T, s string) {
		fc := &facts{path: "x.py", src: s}
		for _, d := range pyDefs(fc) {
			if d.body > d.end || d.end > len(s) {
				t.Fatalf("def %s: body %d..%d outside %d bytes", d.name, d.body, d.end, len(s))
			}
		}
		fl := newFlow(sc, []*facts{fc})
		fl.derive()
		fl.calls([]*facts{fc})
	})
}
