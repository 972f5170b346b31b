package metrics

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seenTags is what the series writer asks of a tag collector.
type seenTags struct{ tags []string }

func (s *seenTags) Want(tag string) bool { s.tags = append(s.tags, tag); return false }
func (s *seenTags) Closest(string) []string {
	if len(s.tags) > 2 {
		return s.tags[:2]
	}
	return s.tags
}

func TestInspection(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte("{\"step\": 1, \"r\": 1.5, \"s\": \"x\"}\n{\"step\": 3, \"r\": NaN}\n"), 0o644)
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"step\": 1, \"r\": 1}\n{oops}\n"), 0o644)
	abs := func(a string) string { return filepath.Join(dir, a) }

	ts, err := Targets([]string{"good.jsonl"}, abs, "")
	if err != nil {
		t.Fatal(err)
	}
	one := InspectTargets(ts, nil)
	if diff := cmp.Diff([][]string{{"good.jsonl", "jsonl", "r", "2", "1..3", "NaN"}}, one.Rows()); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{`good.jsonl: Skipped 1 non-numeric value (first "s" on line 1).`}, one.Notes()[1:]); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if one.Err() != nil || one.Failures() != nil || one.Files[0].Tags[0].Last != nil || one.Files[0].Tags[0].NonFinite != 1 {
		t.Errorf("one good file: err %v, failures %q, tag %+v", one.Err(), one.Failures(), one.Files[0].Tags[0])
	}

	for _, tc := range []struct {
		args     []string
		err      string
		failures []string
	}{
		{[]string{"bad.jsonl"}, "bad.jsonl:2:2: invalid character 'o' looking for beginning of object key string", nil},
		{[]string{"good.jsonl", "bad.jsonl", "missing.jsonl"}, "2 of 3 metric files could not be read",
			[]string{"bad.jsonl:2:2: invalid character 'o' looking for beginning of object key string", "missing.jsonl: no such file"}},
		{[]string{"."}, "1 of 2 metric files could not be read", []string{"bad.jsonl:2:2: invalid character 'o' looking for beginning of object key string"}},
	} {
		ts, err := Targets(tc.args, abs, "")
		if err != nil {
			t.Fatal(err)
		}
		in := InspectTargets(ts, nil)
		if in.Err() == nil || in.Err().Error() != tc.err {
			t.Errorf("%q: err %v, want %s", tc.args, in.Err(), tc.err)
		}
		got := in.Failures()
		for i := range got {
			got[i] = strings.TrimPrefix(got[i], "./")
			if strings.Contains(got[i], "missing.jsonl: no such file") {
				got[i] = "missing.jsonl: no such file"
			}
		}
		if diff := cmp.Diff(tc.failures, got); diff != "" {
			t.Errorf("%q: failures (-want +got):\n%s", tc.args, diff)
		}
	}
}

func TestSeriesWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "e.jsonl")
	os.WriteFile(path, []byte("{\"step\": 1, \"r\": 1.5, \"l\": 2}\n{\"step\": 3, \"r\": NaN}\n"), 0o644)
	for _, tc := range []struct {
		tag  string
		json bool
		want string
		err  string
	}{
		{"r", false, "1\t0\t1.5\n3\t0\tNaN\n", ""},
		{"r", true, "{\n  \"schema\": \"rlxp.metrics-series/v1\",\n  \"path\": \"e.jsonl\",\n  \"tag\": \"r\",\n  \"points\": [\n" +
			"    {\"step\": 1, \"wall_time\": 0, \"value\": 1.5},\n    {\"step\": 3, \"wall_time\": 0, \"value\": \"NaN\"}\n  ],\n  \"format\": \"jsonl\"\n}\n", ""},
		{"x", true, "", `e.jsonl: no tag "x" (closest: r, l)`},
	} {
		var out bytes.Buffer
		s := &SeriesWriter{Tag: tc.tag, JSON: tc.json, Seen: &seenTags{}}
		err := s.Write(&out, path, "e.jsonl", "")
		if (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("%s: err %v, want %q", tc.tag, err, tc.err)
		}
		if diff := cmp.Diff(tc.want, out.String()); diff != "" {
			t.Errorf("%s json=%v (-want +got):\n%s", tc.tag, tc.json, diff)
		}
	}
	// A file that cannot be read leaves no JSON head behind.
	var out bytes.Buffer
	s := &SeriesWriter{Tag: "r", JSON: true, Seen: &seenTags{}}
	err := s.Write(&out, filepath.Join(dir, "missing.jsonl"), "missing.jsonl", "")
	if err == nil || !strings.Contains(err.Error(), "missing.jsonl") || out.Len() != 0 {
		t.Errorf("missing file: err %v, output %q", err, out.String())
	}
}
