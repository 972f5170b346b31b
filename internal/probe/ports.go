package probe

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
)

// A PortStatus says whether a TCP port can be bound.
type PortStatus string

// The port statuses.
const (
	PortFree    PortStatus = "free"
	PortInUse   PortStatus = "in_use"
	PortUnknown PortStatus = "unknown" // binding failed for another reason, e.g. a privileged port
)

// A PortState is what Ports found about one TCP port. The holder's uid and
// pid come from /proc and are best effort: another user's sockets show a
// uid but usually no pid.
type PortState struct {
	Port   int
	Status PortStatus
	Detail string // the bind error, when not free
	UID    int    // uid owning the listening socket; -1 when not known
	PID    int    // a process holding it; 0 when not known
	Name   string // that process's name
}

func (p PortState) String() string {
	switch p.Status {
	case PortFree:
		return fmt.Sprintf("port %d free", p.Port)
	case PortInUse:
		if p.PID > 0 {
			return fmt.Sprintf("port %d in use by pid %d (%s, uid %d)", p.Port, p.PID, p.Name, p.UID)
		}
		if p.UID >= 0 {
			return fmt.Sprintf("port %d in use by uid %d: %s", p.Port, p.UID, p.Detail)
		}
		return fmt.Sprintf("port %d in use: %s", p.Port, p.Detail)
	}
	return fmt.Sprintf("port %d: cannot tell: %s", p.Port, p.Detail)
}

// Ports checks each TCP port by binding it on 127.0.0.1 and on all
// interfaces, releasing it at once. A process listening on either makes the
// port in use.
func Ports(h Host, ports []int) []PortState {
	states := make([]PortState, len(ports))
	var listeners map[int]listener // read once, only when a port is taken
	for i, port := range ports {
		s := PortState{Port: port, Status: PortFree, UID: -1}
		if port < 1 || port > 65535 {
			s.Status, s.Detail = PortUnknown, "not a TCP port number"
			states[i] = s
			continue
		}
		for _, addr := range []string{"127.0.0.1", ""} {
			err := h.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(port)))
			if err == nil {
				continue
			}
			if errors.Is(err, syscall.EADDRINUSE) {
				s.Status, s.Detail = PortInUse, err.Error()
				break
			}
			s.Status, s.Detail = PortUnknown, err.Error()
		}
		if s.Status != PortFree {
			if listeners == nil {
				listeners = listening(h)
			}
			if l, ok := listeners[port]; ok {
				if s.Status != PortInUse {
					s.Detail = "a socket listens on it (" + s.Detail + ")"
				}
				s.Status, s.UID = PortInUse, l.uid
			}
		}
		states[i] = s
	}
	holders(h, listeners, states)
	return states
}

type listener struct {
	uid   int
	inode string
}

// listening reads the TCP sockets in LISTEN state from /proc/net/tcp{,6},
// by local port. Missing tables leave the map empty.
func listening(h Host) map[int]listener {
	out := map[int]listener{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := h.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" {
				continue
			}
			i := strings.LastIndexByte(f[1], ':')
			port, err := strconv.ParseUint(f[1][i+1:], 16, 16)
			if i < 0 || err != nil {
				continue
			}
			uid, err := strconv.Atoi(f[7])
			if err != nil {
				continue
			}
			if _, dup := out[int(port)]; !dup {
				out[int(port)] = listener{uid: uid, inode: f[9]}
			}
		}
	}
	return out
}

// holders fills in the lowest pid holding each in-use port's socket, by
// looking for "socket:[inode]" among the open files in /proc/<pid>/fd.
// Only processes whose fds are readable (this user's, or all as root) can
// be found.
func holders(h Host, listeners map[int]listener, states []PortState) {
	want := map[string][]int{} // inode → indexes into states
	for i, s := range states {
		if l, ok := listeners[s.Port]; ok && s.Status == PortInUse && l.inode != "0" {
			want["socket:["+l.inode+"]"] = append(want["socket:["+l.inode+"]"], i)
		}
	}
	if len(want) == 0 {
		return
	}
	pids, err := procPIDs(h)
	if err != nil {
		return
	}
	for _, pid := range pids {
		fds, err := h.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			target, err := h.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			idx, ok := want[target]
			if err != nil || !ok {
				continue
			}
			var name string
			if p, err := readStatus(h, pid); err == nil {
				name = p.Name
			}
			for _, i := range idx {
				states[i].PID, states[i].Name = pid, name
			}
			delete(want, target)
			if len(want) == 0 {
				return
			}
		}
	}
}
