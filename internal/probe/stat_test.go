package probe

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// statLine is /proc/<pid>/stat as Linux 6.x writes it for a process named
// name, started at tick 834828 (recorded from cat(1), name substituted).
func statLine(name string) string {
	return "8209 (" + name + ") R 8207 8207 28761 0 -1 4194304 98 0 0 0 0 0 0 0 20 0 1 0 834828 3133440 383 " +
		"18446744073709551615 94081615859712 94081615879593 140723192970576 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 " +
		"94081615895600 94081615897216 94082422796288 140723192973814 140723192973834 140723192973834 140723192975339 0\n"
}

func TestParseStartTicks(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		err  string
	}{
		{in: statLine("cat"), want: 834828},
		// A name may hold spaces, digits and ')': fields count from the last one.
		{in: statLine("a) 1 2 3 (b"), want: 834828},
		{in: statLine("python3 train.py"), want: 834828},
		{in: statLine(""), want: 834828},
		{in: "8209 (cat) R 8207", err: "4 fields, want at least 22"},
		{in: "8209 cat R 8207", err: "no parenthesised command name (field 2)"},
		{in: "8209 cat) R", err: "no parenthesised command name (field 2)"},
		{in: strings.Replace(statLine("cat"), " 834828 ", " -5 ", 1), err: `field 22 (starttime) "-5" is not a tick count`},
		{in: "", err: "no parenthesised command name (field 2)"},
	} {
		got, err := parseStartTicks([]byte(tc.in))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("parseStartTicks(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseStartTicks(%q) = %d, %v, want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestStartTicks(t *testing.T) {
	h := &fakeHost{root: t.TempDir()}
	write(t, h.root, "proc/8209/stat", statLine("sleep"))
	write(t, h.root, "proc/9/stat", "9 (x) S 1\n")
	if got, err := StartTicks(h, 8209); err != nil || got != 834828 {
		t.Errorf("StartTicks(8209) = %d, %v", got, err)
	}
	if _, err := StartTicks(h, 10); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "/proc/10/stat") {
		t.Errorf("missing process: %v", err)
	}
	if _, err := StartTicks(h, 9); err == nil || err.Error() != "parse /proc/9/stat: 4 fields, want at least 22" {
		t.Errorf("short stat: %v", err)
	}

	self, err := StartTicks(System(), os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	again, err := StartTicks(System(), os.Getpid())
	if err != nil || again != self || self == 0 {
		t.Errorf("StartTicks(self) = %d then %d, %v", self, again, err)
	}
}

func FuzzParseStartTicks(f *testing.F) {
	if data, err := os.ReadFile("/proc/self/stat"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(statLine("a) 1 2 3 (b")))
	f.Add([]byte("1 (init) S 0 1 1 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0\n"))
	f.Add([]byte("(()))"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := parseStartTicks(data)
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("multi-line error %q", err)
		}
	})
}
