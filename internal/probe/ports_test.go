package probe

import (
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestPortsSystem(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback: %v", err)
	}
	defer ln.Close()
	used := ln.Addr().(*net.TCPAddr).Port

	// A port that was free a moment ago: bind it, note it, release it.
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	free := probe.Addr().(*net.TCPAddr).Port
	probe.Close()

	states := Ports(System(), []int{used, free, 0, 70000})
	if len(states) != 4 {
		t.Fatalf("states = %+v", states)
	}
	u := states[0]
	if u.Port != used || u.Status != PortInUse || !strings.Contains(u.Detail, "address already in use") {
		t.Errorf("listening port: %+v", u)
	}
	// This process holds the socket, which /proc can show.
	if _, err := os.Stat("/proc/net/tcp"); err == nil {
		if u.UID != os.Getuid() || u.PID != os.Getpid() || u.Name == "" {
			t.Errorf("holder: %+v (uid %d pid %d)", u, os.Getuid(), os.Getpid())
		}
	}
	if states[1].Port != free || states[1].Status != PortFree || states[1].String() != "port "+strconv.Itoa(free)+" free" {
		t.Errorf("free port: %+v", states[1])
	}
	for _, s := range states[2:] {
		if s.Status != PortUnknown || s.Detail != "not a TCP port number" {
			t.Errorf("bad port: %+v", s)
		}
	}
}

func TestPortsFake(t *testing.T) {
	h := &fakeHost{root: t.TempDir()}
	// uid 1000 listens on 0.0.0.0:8000 (0x1F40) and [::]:6379 (0x18EB); pid 12 holds the first.
	write(t, h.root, "proc/net/tcp", "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"+
		"   0: 00000000:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 5551 1 0000000000000000 100 0 0 10 0\n"+
		"   1: 0100007F:1F40 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 5552 1 0000000000000000 100 0 0 10 0\n")
	write(t, h.root, "proc/net/tcp6", "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"+
		"   0: 00000000000000000000000000000000:18EB 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 7777 1 0000000000000000 100 0 0 10 0\n")
	procTree(t, h.root, map[int]string{12: status("vllm", 1, 1000), 13: status("other", 1, 1000)})
	mkdir(t, h.root, "proc/12/fd")
	mkdir(t, h.root, "proc/13/fd")
	symlink(t, "socket:[5551]", h.root, "proc/12/fd/7")
	symlink(t, "/dev/null", h.root, "proc/12/fd/0")
	symlink(t, "socket:[9]", h.root, "proc/13/fd/3")

	inUse := map[string]bool{"0.0.0.0:8000": true, ":8000": true, ":6379": true, "127.0.0.1:6379": true}
	h.listen = func(network, addr string) error {
		if addr == ":80" || addr == "127.0.0.1:80" {
			return &net.OpError{Op: "listen", Net: network, Err: os.NewSyscallError("bind", syscall.EACCES)}
		}
		if inUse[addr] || (strings.HasPrefix(addr, "127.0.0.1:") && inUse[":"+strings.TrimPrefix(addr, "127.0.0.1:")]) {
			return &net.OpError{Op: "listen", Net: network, Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
		}
		return nil
	}
	states := Ports(h, []int{8000, 6379, 8265, 80})
	want := []PortState{
		{Port: 8000, Status: PortInUse, UID: 1000, PID: 12, Name: "vllm"},
		{Port: 6379, Status: PortInUse, UID: 0},
		{Port: 8265, Status: PortFree, UID: -1},
		{Port: 80, Status: PortUnknown, UID: -1},
	}
	for i, w := range want {
		s := states[i]
		s.Detail = ""
		if s != w {
			t.Errorf("port %d: %+v, want %+v", w.Port, states[i], w)
		}
	}
	for i, w := range []string{
		"port 8000 in use by pid 12 (vllm, uid 1000)",
		"port 6379 in use by uid 0: listen tcp: bind: address already in use",
		"port 8265 free",
		"port 80: cannot tell: listen tcp: bind: permission denied",
	} {
		if got := states[i].String(); got != w {
			t.Errorf("String = %q, want %q", got, w)
		}
	}
}
