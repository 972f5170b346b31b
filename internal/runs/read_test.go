package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadPosition: a run.json that does not decode is named with the line
// and column where decoding failed.
func TestReadPosition(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ data, want string }{
		{`{"id": "r1",` + "\n" + ` "started_at": `, ":2:15: unexpected end of JSON input"},
		{`{"id": "r1",` + "\n" + ` "gpus": "8"}`, ":2:12: json: cannot unmarshal string into Go struct field Record.gpus of type int"},
		{`{"id": "r1"}}`, ":1:13: invalid character '}' after top-level value"},
		{``, ":1:1: unexpected end of JSON input"},
	} {
		path := filepath.Join(dir, "run.json")
		if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(path)
		if err == nil || err.Error() != path+tc.want || strings.Contains(err.Error(), "\n") {
			t.Errorf("Read(%q) = %v, want %s%s", tc.data, err, path, tc.want)
		}
	}
}
