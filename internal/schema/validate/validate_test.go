package validate

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlxp/rlxp/internal/document"
	"github.com/rlxp/rlxp/internal/repotest"
	"github.com/rlxp/rlxp/internal/schema"
)

func parse(t testing.TB, data []byte) *document.File {
	t.Helper()
	f, err := document.Parse(".rlxp/contract.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestCachedAnswersAsValidation: the repository's verdicts give what
// validation gives, for a pass (answered from the cache the second time)
// and for violations.
func TestCachedAnswersAsValidation(t *testing.T) {
	r := repotest.Repo(t, nil)
	for _, data := range [][]byte{repotest.Contract(t), []byte("schema: rlxp.contract/v1\nproject: p\nbudget:\n  max_runs: many\n")} {
		f := parse(t, data)
		want, err := Check(f, schema.Contract)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			got, err := Cached(r).Check(f, schema.Contract)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("call %d: verdict differs from validation (-want +got):\n%s", i, diff)
			}
		}
	}
	if errs, _ := Cached(r).Check(parse(t, repotest.Contract(t)), schema.Adapter); len(errs) == 0 {
		t.Error("a contract passes the adapter's schema")
	}
}

// TestValidatorModuleIsRequired: the validator the verdicts name
// (schema's validatorModule, in every verdict's key) is the one go.mod
// requires, so that upgrading it invalidates the verdicts.
func TestValidatorModuleIsRequired(t *testing.T) {
	mod, err := os.ReadFile("../../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*(github\.com/xeipuuv/gojsonschema) (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod does not require github.com/xeipuuv/gojsonschema")
	}
	src, err := os.ReadFile("../verdicts.go")
	if err != nil {
		t.Fatal(err)
	}
	want := `const validatorModule = "` + string(m[1]) + " " + string(m[2]) + `"`
	if !strings.Contains(string(src), want) {
		t.Errorf("internal/schema/verdicts.go does not declare %s (go.mod's version)", want)
	}
}

// BenchmarkVerdictHit is the check of an unchanged contract once its pass
// is remembered, beside BenchmarkCheck, the validation it spares.
func BenchmarkVerdictHit(b *testing.B) {
	r := repotest.Repo(b, nil)
	v := Cached(r)
	f := parse(b, repotest.Contract(b))
	if errs, err := v.Check(f, schema.Contract); err != nil || len(errs) != 0 {
		b.Fatal(errs, err)
	}
	for b.Loop() {
		if errs, err := v.Check(f, schema.Contract); err != nil || len(errs) != 0 {
			b.Fatal(errs, err)
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	f := parse(b, repotest.Contract(b))
	for b.Loop() {
		if errs, err := Check(f, schema.Contract); err != nil || len(errs) != 0 {
			b.Fatal(errs, err)
		}
	}
}
