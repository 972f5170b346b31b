// Package templates holds the commented starting files that 'rlxp init'
// writes into .rlxp/.
package templates

import "embed"

// FS holds adapter.yaml, contract.yaml, experiments.yaml and report.md.
//
//go:embed adapter.yaml contract.yaml experiments.yaml report.md
var FS embed.FS
