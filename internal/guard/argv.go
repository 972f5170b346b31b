package guard

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// A CommandSpec is an rlxp command as its command lines are read: its name,
// its flags as rlxp declares them, and its subcommands. It lets a program
// that does not link rlxp's commands (the rlxp-guard hook binary) read an
// rlxp command line exactly as rlxp does; rlxp's own command table is the
// source it is generated from (see cmd/rlxp-guard).
type CommandSpec struct {
	Name     string
	Flags    []FlagSpec
	Commands []CommandSpec
}

// A FlagSpec is one flag as pflag holds it.
type FlagSpec struct {
	Name, Shorthand string
	Type            string // pflag's Value.Type(): bool, string, int, duration, intSlice, stringArray
	DefValue        string
	NoOptDefVal     string
}

// SpecOf describes a flag set; a flag of a type the guard cannot rebuild
// is an error.
func SpecOf(fs *pflag.FlagSet) ([]FlagSpec, error) {
	var out []FlagSpec
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if _, ok := newValue(f.Value.Type(), f.DefValue); !ok && err == nil {
			err = fmt.Errorf("flag --%s: type %s cannot be read by the guard", f.Name, f.Value.Type())
		}
		out = append(out, FlagSpec{f.Name, f.Shorthand, f.Value.Type(), f.DefValue, f.NoOptDefVal})
	})
	return out, err
}

// newValue makes a fresh flag value of a pflag type, set to its default.
func newValue(typ, def string) (pflag.Value, bool) {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	switch typ {
	case "bool":
		fs.Bool("v", false, "")
	case "string":
		fs.String("v", "", "")
	case "int":
		fs.Int("v", 0, "")
	case "duration":
		fs.Duration("v", time.Duration(0), "")
	case "intSlice":
		fs.IntSlice("v", nil, "")
	case "stringArray":
		fs.StringArray("v", nil, "")
	default:
		return nil, false
	}
	v := fs.Lookup("v").Value
	if def != "" && def != "[]" {
		if err := v.Set(strings.Trim(def, "[]")); err != nil {
			return nil, false
		}
	}
	return v, true
}

// FlagSet rebuilds the command's flag set.
func (c *CommandSpec) FlagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet(c.Name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	for _, f := range c.Flags {
		v, ok := newValue(f.Type, f.DefValue)
		if !ok {
			continue
		}
		fs.VarPF(v, f.Name, f.Shorthand, "").NoOptDefVal = f.NoOptDefVal
	}
	return fs
}

// Read reads an rlxp command line (without "rlxp") as rlxp does: the
// command path down the subcommands, then the command's flags. Help, the
// version, an unknown command and a usage error run nothing: they read as
// the zero Invocation.
func (c *CommandSpec) Read(args []string) Invocation {
	if len(args) == 0 {
		return Invocation{}
	}
	switch args[0] {
	case "--version", "-version", "version", "-h", "--help", "-help", "help":
		return Invocation{}
	}
	cmd, path := c, []string{}
	for len(args) > 0 && cmd.Commands != nil {
		var next *CommandSpec
		for i := range cmd.Commands {
			if cmd.Commands[i].Name == args[0] {
				next = &cmd.Commands[i]
			}
		}
		if next == nil {
			return Invocation{} // a flag before the subcommand, or an unknown name
		}
		cmd, path, args = next, append(path, args[0]), args[1:]
	}
	if cmd.Commands != nil {
		return Invocation{}
	}
	fs := cmd.FlagSet()
	if err := fs.Parse(args); err != nil {
		return Invocation{} // help, or a usage error: nothing runs
	}
	inv := Invocation{Command: strings.Join(path, " "), Flags: map[string]string{}, Args: fs.Args()}
	fs.Visit(func(f *pflag.Flag) { inv.Flags[f.Name] = f.Value.String() })
	return inv
}
