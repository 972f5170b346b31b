// Package plaintext checks free text rlxp records (names, hypotheses,
// reasons): one line of printable UTF-8, so that show, status and the PR
// comment print it as it was meant and nothing in it fakes a line or hides
// what follows.
package plaintext

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Check refuses invalid UTF-8 and control and format characters (newlines,
// escapes, bidi overrides). what names the text in the error, e.g.
// "--hypothesis".
func Check(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s is not valid UTF-8", what)
	}
	for i, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return fmt.Errorf("%s holds the control character %U at byte %d; write it on one line of plain text", what, r, i)
		}
	}
	return nil
}
