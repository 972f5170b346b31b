package dashboard

import (
	"strings"
	"testing"
)

func FuzzParseInstance(f *testing.F) {
	f.Add([]byte(`{"url":"http://127.0.0.1:8080/","pid":1,"root":"/r"}`))
	f.Add([]byte(`{"url":"http://example.com:80/"}`))
	f.Add([]byte(`{"url":"http://127.0.0.1:0/"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		inst, err := ParseInstance(data)
		if err == nil && !strings.HasPrefix(inst.URL, "http://127.0.0.1:") {
			t.Fatalf("accepted %q", inst.URL)
		}
	})
}
