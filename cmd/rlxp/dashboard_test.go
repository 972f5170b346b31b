package main

import (
	"net"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

// freePort sets an environment variable to a TCP port on 127.0.0.1 that
// was free a moment ago: freeport NAME.
func freePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport NAME")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := ln.Addr().(*net.TCPAddr).Port
	ts.Check(ln.Close())
	ts.Setenv(args[0], strconv.Itoa(port))
}
