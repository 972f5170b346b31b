package metrics

import (
	"testing"
)

func TestTBExports(t *testing.T) {
	csvp := txtWrite(t, "run-train-tag-loss.csv", "Wall time,Step,Value\n1443856985.705543,1448,0.7461960315704346\n1443857000.5,1500,nan\n")
	jsonp := txtWrite(t, "run-.-tag-epoch_loss.json", "[[1443856985.705543, 1448, 0.7461960315704346], [1443857000.5, 1500, NaN]]")
	for _, c := range []struct {
		path string
		f    Format
		tag  string
	}{{csvp, TBCSV, "run-train-tag-loss"}, {jsonp, TBJSON, "run-.-tag-epoch_loss"}} {
		rec, info, err := txtRead(t, c.path, c.f)
		if err != nil {
			t.Fatal(err)
		}
		want := []txtPoint{{c.tag, Point{1448, 1443856985.705543, 0.7461960315704346}}, {c.tag, Point{1500, 1443857000.5, nan()}}}
		if len(rec.pts) != 2 {
			t.Fatalf("%s: %v", c.path, rec.pts)
		}
		for i, w := range want {
			if g := rec.pts[i]; g.Tag != w.Tag || g.Step != w.Step || g.WallTime != w.WallTime || !txtSame(g.Value, w.Value) {
				t.Fatalf("%s point %d: got %v, want %v", c.path, i, g, w)
			}
		}
		txtHasNote(t, info, "is the file name: TensorBoard exports do not record it")
	}
}

func TestTBExportErrors(t *testing.T) {
	for _, c := range []struct {
		name, file, content string
		f                   Format
		line, col           int
		msg                 string
	}{
		{"csv header", "a.csv", "step,value\n1,2\n", TBCSV, 1, 0, "expected the header Wall time,Step,Value"},
		{"csv cells", "a.csv", "Wall time,Step,Value\n1,2\n", TBCSV, 2, 0, "2 cells"},
		{"csv step", "a.csv", "Wall time,Step,Value\n1,2.5,3\n", TBCSV, 2, 3, `the step "2.5" is not a number`},
		{"csv value", "a.csv", "Wall time,Step,Value\n1,2,x\n", TBCSV, 2, 5, `the value "x" is not a number`},
		{"csv no header", "a.csv", "\n\n", TBCSV, 0, 0, "no header"},
		{"json pairs", "a.json", "[[1, 2, 3],\n [1, 2]]", TBJSON, 2, 2, "triple"},
		{"json object", "a.json", `{"a": 1}`, TBJSON, 1, 1, "expected an array"},
		{"json step", "a.json", "[[1, 2.5, 3]]", TBJSON, 1, 2, `the step "2.5" is not an integer`},
		{"json strings", "a.json", `[[1, "2", 3]]`, TBJSON, 1, 2, "triple of numbers"},
		{"json syntax", "a.json", "[[1, 2, 3]\n [4 5]]", TBJSON, 2, 2, "invalid character '[' after array element"},
		{"json syntax in a triple", "a.json", "[[1, 2, 3],\n [4 5]]", TBJSON, 2, 5, "invalid character '5'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := txtRead(t, txtWrite(t, c.file, c.content), c.f)
			txtWantErr(t, err, c.line, c.col, c.msg)
		})
	}
}
