package contract

import (
	"fmt"
	"slices"
)

// Require fails when a section a command relies on is incomplete, with the
// first finding that keeps it so.
func (l *Loaded) Require(sections ...string) error {
	for _, s := range l.Status().Sections {
		if !l.Complete(s.Section) && slices.Contains(sections, s.Section) {
			if len(s.Findings) > 0 {
				return fmt.Errorf("contract section %s is incomplete: %s", s.Section, s.Findings[0].Error.Error())
			}
			return fmt.Errorf("%s: contract section %s is missing", l.File.Path, s.Section)
		}
	}
	return nil
}
