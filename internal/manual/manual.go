// Package manual holds the long help of rlxp's commands as plain text
// pages, one per command, so that the prose is edited and reviewed as
// text rather than as Go string literals.
package manual

import (
	"embed"
	"strings"
)

//go:embed pages/*.txt
var pages embed.FS

// Page returns the long help of the command named by its path below rlxp
// ("ledger show"), or "" when there is none.
func Page(command string) string {
	b, err := pages.ReadFile("pages/" + strings.ReplaceAll(command, " ", "-") + ".txt")
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(b), "\n")
}
