package plaintext

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for s, want := range map[string]string{
		"lower lr, steadier returns": "",
		"Zoë: 学习率 ↓":                 "",
		"tab\there":                  "control character U+0009 at byte 3",
		"line\nrlxp: approved":       "control character U+000A at byte 4",
		"\x1b[2Jcleared":             "control character U+001B at byte 0",
		"abc\u200bdef":               "control character U+200B",
		"\xc3":                       "not valid UTF-8",
	} {
		err := Check("--hypothesis", s)
		if (err == nil) != (want == "") || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%q) = %v, want %q", s, err, want)
		}
	}
}
