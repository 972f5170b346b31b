// Package shellenv knows which environment variables make bash run code
// other than the command it is given: a run's commands are run by bash,
// and none of these is part of what an approval pins.
package shellenv

import "strings"

// startup are the variables bash reads at start-up or while it resolves a
// command: a file sourced before the command (BASH_ENV, and ENV when bash
// runs as sh), options such as xtrace or a changed errexit (SHELLOPTS,
// BASHOPTS), a directory cd jumps to (CDPATH), words globs skip
// (GLOBIGNORE).
var startup = map[string]bool{
	"BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true, "CDPATH": true, "GLOBIGNORE": true,
}

// Startup says whether the variable named in kv ("NAME=value" or NAME)
// changes what bash runs: one of the start-up variables, or an exported
// function (BASH_FUNC_name%%), which bash calls in place of the command
// of that name.
func Startup(kv string) bool {
	name, _, _ := strings.Cut(kv, "=")
	return startup[name] || strings.HasPrefix(name, "BASH_FUNC_")
}

// Clean is env without the variables Startup names.
func Clean(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !Startup(kv) {
			out = append(out, kv)
		}
	}
	return out
}
