package probe

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// StartTicks reads when a process started, in clock ticks after boot
// (field 22 of /proc/<pid>/stat). A pid and its start time together name
// one process: a recycled pid has a later start. A process that is not
// there is an error matching fs.ErrNotExist.
func StartTicks(h Host, pid int) (uint64, error) {
	path := fmt.Sprintf("/proc/%d/stat", pid)
	data, err := h.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	t, err := parseStartTicks(data)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", path, err)
	}
	return t, nil
}

// statStartField is starttime's 1-based position in /proc/<pid>/stat.
const statStartField = 22

// parseStartTicks finds starttime in a stat line. The command name (field
// 2) is in parentheses and may itself hold spaces and ')', so the fields
// are counted from the last ')'.
func parseStartTicks(data []byte) (uint64, error) {
	end := bytes.LastIndexByte(data, ')')
	if end < 0 || bytes.IndexByte(data[:end], '(') < 0 {
		return 0, errors.New("no parenthesised command name (field 2)")
	}
	// The first field after the name is field 3, the state.
	fields := strings.Fields(string(data[end+1:]))
	i := statStartField - 3
	if len(fields) <= i {
		return 0, fmt.Errorf("%d fields, want at least %d", len(fields)+2, statStartField)
	}
	t, err := strconv.ParseUint(fields[i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("field %d (starttime) %q is not a tick count", statStartField, fields[i])
	}
	return t, nil
}
