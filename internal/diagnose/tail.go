package diagnose

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
)

// tailBytes is how far from its end Tail reads a log.
const tailBytes = 16 << 10

// Tail returns the last n non-blank lines of a log, without colour codes,
// each cut to a readable length.
func Tail(path string, n int) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	off := max(st.Size()-tailBytes, 0)
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if off > 0 {
		// The first line read is likely a fragment.
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	var lines []string
	for _, l := range strings.FieldsFunc(string(buf), func(r rune) bool { return r == '\n' || r == '\r' }) {
		if l = clip(stripANSI(l)); l != "" {
			lines = append(lines, l)
		}
	}
	return lines[max(len(lines)-n, 0):], nil
}

// stripANSI removes CSI escape sequences such as colours.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';' || s[j] == '?') {
				j++
			}
			if j < len(s) && s[j] >= '@' && s[j] <= '~' {
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// clip trims a line and cuts it to 300 bytes, on a character boundary.
func clip(s string) string {
	const limit = 300
	s = strings.TrimSpace(s)
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
