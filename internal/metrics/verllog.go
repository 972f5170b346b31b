package metrics

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// verl console logs: lines "step:N - key:value - key:value …" among
// other output.
//
// Conventions:
//   - ANSI colour codes and Ray actor prefixes such as "(TaskRunner
//     pid=123) " or "(main_task pid=1, ip=10.0.0.1) " are removed first;
//     carriage returns (progress bars) separate lines too.
//   - A step line has "step:N" at its start or after a space (so
//     "global_step:3" is not one), then " - "-separated pairs. Each pair
//     splits at its last ':' into the key (the tag, verbatim) and the
//     value: a number, nan/inf, or a numpy repr such as np.float64(0.5).
//   - Other lines are skipped. Pairs that are not key:number are skipped
//     with a note. A file with no step line at all is an error.

func readVerlLog(path string, sink Sink) (Info, error) {
	f, err := openText(path, VerlLog, true, sink)
	if err != nil {
		return Info{}, err
	}
	defer f.Close()
	var info Info
	var notes noteCounts
	wants := map[string]bool{}
	inLine := map[string]bool{} // the keys of the step line being read
	stepLines, other := 0, 0
	lr := f.lines()
	for {
		raw, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return info, err
		}
		for seg := range bytes.SplitSeq(raw, []byte{'\r'}) {
			step, pairs, ok := verlStepLine(seg)
			if !ok {
				if !isBlank(seg) {
					other++
				}
				continue
			}
			if i := binaryAt(seg, false); i >= 0 {
				return info, &Error{Path: path, Line: lr.line, Offset: -1, Msg: "binary data in a step line; not a verl-log file"}
			}
			stepLines++
			clear(inLine)
			for _, pair := range pairs {
				key, val, ok := verlPair(pair)
				if !ok {
					notes[noteBadPair].add(key, lr.line)
					continue
				}
				if inLine[key] {
					return info, &Error{Path: path, Line: lr.line, Offset: -1, Msg: fmt.Sprintf("the key %q has two values in one step line: which is the step's cannot be told", key)}
				}
				inLine[key] = true
				v, ok := verlValue(val)
				if !ok {
					if val == "True" || val == "False" || val == "np.True_" || val == "np.False_" {
						notes[noteBool].add(key, lr.line)
					} else {
						notes[noteBadPair].add(key, lr.line)
					}
					continue
				}
				want, seen := wants[key]
				if !seen {
					want = sink.Want(key)
					wants[key] = want
				}
				if !want {
					continue
				}
				if err := sink.Point(key, Point{Step: step, Value: v}); err != nil {
					return info, err
				}
				info.Points++
			}
		}
	}
	if stepLines == 0 {
		return info, &Error{Path: path, Offset: -1,
			Msg: fmt.Sprintf("no verl step lines found (%s, none of the form \"step:N - key:value - …\")", plural(int64(other), "other line", "other lines"))}
	}
	info.Notes = append(info.Notes, fmt.Sprintf("Read %s.", plural(int64(stepLines), "step line", "step lines")))
	info.Notes = append(info.Notes, notes.notes("")...)
	f.finish(&info)
	return info, nil
}

// verlStepLine finds the step and the key:value pairs of a step line.
func verlStepLine(l []byte) (int64, []string, bool) {
	if bytes.IndexByte(l, 0x1b) >= 0 {
		l = stripANSI(l)
	}
	s := strings.TrimSpace(string(l))
	s = stripRayPrefixes(s)
	at := -1
	for i := 0; ; {
		k := strings.Index(s[i:], "step:")
		if k < 0 {
			break
		}
		k += i
		if k == 0 || s[k-1] == ' ' || s[k-1] == '\t' {
			at = k
			break
		}
		i = k + 1
	}
	if at < 0 {
		return 0, nil, false
	}
	rest := s[at+len("step:"):]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 {
		return 0, nil, false
	}
	step, err := strconv.ParseInt(rest[:n], 10, 64)
	if err != nil {
		return 0, nil, false
	}
	rest = strings.TrimLeft(rest[n:], " \t")
	if rest == "" {
		return step, nil, true
	}
	if rest[0] != '-' {
		return 0, nil, false
	}
	rest = strings.TrimSpace(rest[1:])
	if rest == "" {
		return step, nil, true
	}
	return step, strings.Split(rest, " - "), true
}

// verlPair splits "key:value" at the last ':'; keys may hold ':' too.
func verlPair(p string) (key, val string, ok bool) {
	p = strings.TrimSpace(p)
	k := strings.LastIndexByte(p, ':')
	if k <= 0 {
		return p, "", false
	}
	key, val = strings.TrimSpace(p[:k]), strings.TrimSpace(p[k+1:])
	return key, val, key != "" && val != ""
}

// verlValue reads a value as Python printed it: a number, nan/inf, or a
// numpy scalar repr like np.float64(0.5) or np.int64(3).
func verlValue(v string) (float64, bool) {
	if strings.HasPrefix(v, "np.") && strings.HasSuffix(v, ")") {
		i := strings.IndexByte(v, '(')
		if i < 0 {
			return 0, false
		}
		v = v[i+1 : len(v)-1]
	}
	return parseCell([]byte(v))
}

// stripANSI removes CSI escape sequences such as colours.
func stripANSI(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '[' {
			j := i + 2
			for j < len(b) && (b[j] >= '0' && b[j] <= '9' || b[j] == ';' || b[j] == '?') {
				j++
			}
			if j < len(b) && b[j] >= '@' && b[j] <= '~' {
				i = j
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

// stripRayPrefixes removes leading "(<actor> pid=N[, ip=…]) " groups.
func stripRayPrefixes(s string) string {
	for strings.HasPrefix(s, "(") {
		end := strings.IndexByte(s, ')')
		if end < 0 || !strings.Contains(s[:end], "pid=") {
			break
		}
		s = strings.TrimLeft(s[end+1:], " \t")
	}
	return s
}
