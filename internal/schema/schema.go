// Package schema holds the JSON Schemas of the .rlxp state files, embedded
// in the binary, and the verdicts of documents that passed them
// (verdicts.go). Validation itself is package validate's: a program that
// only looks verdicts up, such as rlxp's front binary, links no validator.
package schema

import (
	"embed"
	"fmt"

	"github.com/rlxp/rlxp/internal/document"
)

//go:embed *.schema.json
var files embed.FS

// Names of the embedded schemas.
const (
	Contract    = "contract"
	Experiments = "experiments"
	Adapter     = "adapter"
)

// Source is the named schema's JSON text.
func Source(name string) ([]byte, error) {
	src, err := files.ReadFile(name + ".schema.json")
	if err != nil {
		return nil, fmt.Errorf("schema %s: %w", name, err)
	}
	return src, nil
}

// A Checker checks a parsed document against the named schema, returning
// each violation as an error positioned in the file, in file order.
type Checker interface {
	Check(f *document.File, name string) ([]*document.Error, error)
}
