package adapter

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/rlxp/rlxp/internal/document"
)

// A List passes parameters as the items of one option that takes several
// values: the SB3 zoo's "--hyperparams n_steps:256 gamma:0.98" (argparse
// nargs="+" into a dict), or "--set a=1 b=2". Given twice, such an option
// keeps only its last list, so each parameter cannot be its own option.
type List struct {
	// Flag is the option, written once ("--hyperparams").
	Flag string `json:"flag"`
	// Item renders one parameter, with {name} and {value} ("{name}:{value}").
	Item string `json:"item"`
	// Names are the parameters the list takes; empty, it takes them all.
	// The others go through config.override.
	Names []string `json:"names"`
}

// Takes says whether the parameter named n is an item of the list (false
// for a nil list).
func (l *List) Takes(n string) bool {
	return l != nil && (len(l.Names) == 0 || slices.Contains(l.Names, n))
}

// Separator is what stands between the name and the value in an item
// (":" of "{name}:{value}"), "" when the item does not have that form.
func (l *List) Separator() string {
	if l == nil {
		return ""
	}
	rest, ok := strings.CutPrefix(l.Item, "{name}")
	if !ok {
		return ""
	}
	sep, ok := strings.CutSuffix(rest, "{value}")
	if !ok || strings.ContainsAny(sep, "{} ") {
		return ""
	}
	return sep
}

// Keys are the names of the items that follow the list's option in args,
// up to the next option: what the program will read from it.
func (l *List) Keys(args []string) []string {
	sep := l.Separator()
	if sep == "" {
		return nil
	}
	var keys []string
	for i, a := range args {
		if a != l.Flag {
			continue
		}
		for _, item := range args[i+1:] {
			if strings.HasPrefix(item, "-") {
				break
			}
			k, _, _ := strings.Cut(item, sep)
			keys = append(keys, k)
		}
	}
	return keys
}

// checkList finds what the schema cannot say about config.list: an item
// without {value}, and a command that gives the list's option itself,
// whose items the parameters' list would silently replace.
func checkList(f *document.File, a *Adapter) []*document.Error {
	l := a.Config.List
	if l == nil {
		return nil
	}
	var errs []*document.Error
	add := func(field []string, format string, args ...any) {
		line, col := f.Pos(field)
		errs = append(errs, &document.Error{Path: f.Path, Line: line, Col: col, Field: strings.Join(field, "."), Msg: fmt.Sprintf(format, args...)})
	}
	if !strings.Contains(l.Item, "{value}") {
		add([]string{"config", "list", "item"}, "%q has no {value}: the parameter's value would not reach the program", l.Item)
	}
	for _, name := range slices.Sorted(maps.Keys(a.Commands)) {
		if slices.Contains(strings.Fields(a.Commands[name]), l.Flag) {
			add([]string{"commands", name}, "gives %s itself, and config.list gives the parameters as another %s: the program keeps only the last list, so one would be lost; move its items into the repository's config (or make them parameters)", l.Flag, l.Flag)
		}
	}
	return errs
}
