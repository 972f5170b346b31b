package plugin

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

func TestDebugDump(t *testing.T) {
	dir := os.Getenv("DUMP_DIR")
	if dir == "" {
		t.Skip()
	}
	r, err := Validate(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range r.Findings {
		fmt.Println(f)
	}
	b, _ := json.MarshalIndent(r.Plugins, "", " ")
	fmt.Println(string(b))
}
