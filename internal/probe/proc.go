package probe

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// maxDepth bounds a parent-chain walk; real chains are a dozen deep.
const maxDepth = 64

// A Proc is what /proc says about one process.
type Proc struct {
	PID     int
	PPID    int
	UID     int    // real uid: who started it
	Name    string // the kernel's short name (comm)
	State   string // one letter: R, S, D, Z, …
	Cmdline []string
}

// Alive says whether the process still runs: a zombie has exited.
func (p Proc) Alive() bool { return p.State != "Z" && p.State != "X" }

// ReadProc reads /proc/<pid>. A process that is not there (exited, or in
// another pid namespace) is an error matching fs.ErrNotExist.
func ReadProc(h Host, pid int) (Proc, error) {
	p, err := readStatus(h, pid)
	if err != nil {
		return p, err
	}
	// The command line is advisory: a kernel thread has none.
	if data, err := h.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		p.Cmdline = splitCmdline(data)
	}
	return p, nil
}

// Procs lists the processes visible in /proc, in pid order. Processes that
// exit while being read are left out.
func Procs(h Host) ([]Proc, error) {
	pids, err := procPIDs(h)
	if err != nil {
		return nil, err
	}
	var procs []Proc
	for _, pid := range pids {
		if p, err := ReadProc(h, pid); err == nil {
			procs = append(procs, p)
		}
	}
	return procs, nil
}

func procPIDs(h Host) ([]int, error) {
	entries, err := h.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("read /proc: %w", err)
	}
	var pids []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids, nil
}

func readStatus(h Host, pid int) (Proc, error) {
	path := fmt.Sprintf("/proc/%d/status", pid)
	data, err := h.ReadFile(path)
	if err != nil {
		return Proc{PID: pid}, fmt.Errorf("read %s: %w", path, err)
	}
	p, err := parseStatus(data)
	if err != nil {
		return Proc{PID: pid}, fmt.Errorf("parse %s: %w", path, err)
	}
	p.PID = pid
	return p, nil
}

// parseStatus reads the fields of /proc/<pid>/status that ownership needs.
// PPid and Uid are required; Name and State are kept when present.
func parseStatus(data []byte) (Proc, error) {
	var p Proc
	var havePPID, haveUID bool
	for _, line := range strings.Split(string(data), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch key {
		case "Name":
			p.Name = val
		case "State":
			p.State, _, _ = strings.Cut(val, " ")
		case "PPid":
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 {
				return Proc{}, fmt.Errorf("PPid %q is not a process id", val)
			}
			p.PPID, havePPID = n, true
		case "Uid":
			fields := strings.Fields(val)
			if len(fields) == 0 {
				return Proc{}, errors.New("empty Uid line")
			}
			n, err := strconv.Atoi(fields[0])
			if err != nil || n < 0 {
				return Proc{}, fmt.Errorf("Uid %q is not a user id", fields[0])
			}
			p.UID, haveUID = n, true
		}
	}
	if !havePPID || !haveUID {
		return Proc{}, errors.New("no PPid or Uid line")
	}
	return p, nil
}

func splitCmdline(data []byte) []string {
	data = bytes.TrimRight(data, "\x00")
	if len(data) == 0 {
		return nil
	}
	return strings.Split(string(data), "\x00")
}

// An Ancestry says which processes count as ours: those descending from
// (or being) one of Roots. Among the rest, UID separates this user's
// processes from other users'.
type Ancestry struct {
	UID   int
	Roots []int
}

// Self is the ancestry of the current process: its uid, and as roots
// itself plus the given pids (for instance the supervisors of this repo's
// runs). Do not pass pid 1: everything descends from it.
func Self(h Host, roots ...int) Ancestry {
	return Ancestry{UID: h.UID(), Roots: append([]int{h.PID()}, roots...)}
}

// A Class is who a process belongs to.
type Class string

// The classes Owner assigns.
const (
	Ours     Class = "ours"      // descends from one of the ancestry's roots
	SameUser Class = "same_user" // this user's, but not ours
	Foreign  Class = "foreign"   // another user's
	Unknown  Class = "unknown"   // not visible here: no verdict either way
)

// Ownership is the verdict on one process, with the evidence for it.
type Ownership struct {
	PID   int
	Class Class
	UID   int    // the process's real uid; -1 when not visible
	Name  string // its name in /proc
	Chain []int  // pids walked upwards, PID first
	Via   int    // for Ours, the root the chain reached
	Note  string // why the class is Unknown, or why the walk stopped short
}

func (o Ownership) String() string {
	who := fmt.Sprintf("pid %d", o.PID)
	if o.Name != "" {
		who += " (" + o.Name + ")"
	}
	var s string
	switch o.Class {
	case Ours:
		s = fmt.Sprintf("%s is ours, under pid %d", who, o.Via)
	case SameUser:
		s = fmt.Sprintf("%s belongs to this user (uid %d) but not to this run", who, o.UID)
	case Foreign:
		s = fmt.Sprintf("%s belongs to another user (uid %d)", who, o.UID)
	default:
		s = fmt.Sprintf("%s: owner unknown", who)
	}
	if o.Note != "" {
		s += "; " + o.Note
	}
	return s
}

// Owner classifies a process by walking its parent chain in /proc up to
// pid 1. A pid that /proc does not show is Unknown, never Foreign and never
// free: inside a container nvidia-smi reports host pids that do not exist
// here. A chain that loops, breaks or runs past 64 steps is classified by
// uid alone, with a note.
func Owner(h Host, pid int, self Ancestry) Ownership {
	o := Ownership{PID: pid, Class: Unknown, UID: -1}
	if pid <= 0 {
		o.Note = "not a process id"
		return o
	}
	st, err := readStatus(h, pid)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			o.Note = "not visible in /proc here (another pid namespace, or it exited)"
		} else {
			o.Note = err.Error()
		}
		return o
	}
	o.UID, o.Name = st.UID, st.Name
	seen := map[int]bool{}
	for cur := pid; ; {
		o.Chain = append(o.Chain, cur)
		if slices.Contains(self.Roots, cur) {
			o.Class, o.Via = Ours, cur
			return o
		}
		seen[cur] = true
		parent := st.PPID
		if parent <= 0 {
			break
		}
		if seen[parent] {
			o.Note = fmt.Sprintf("parent chain loops at pid %d", parent)
			break
		}
		if len(o.Chain) >= maxDepth {
			o.Note = fmt.Sprintf("parent chain longer than %d; stopped", maxDepth)
			break
		}
		if st, err = readStatus(h, parent); err != nil {
			// The parent's status is not needed to know it is a root.
			if slices.Contains(self.Roots, parent) {
				o.Chain = append(o.Chain, parent)
				o.Class, o.Via = Ours, parent
				return o
			}
			o.Note = fmt.Sprintf("parent chain broken at pid %d", parent)
			break
		}
		cur = parent
	}
	if o.UID == self.UID {
		o.Class = SameUser
	} else {
		o.Class = Foreign
	}
	return o
}
