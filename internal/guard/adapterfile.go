package guard

import (
	"fmt"
	"sort"

	"github.com/rlxp/rlxp/internal/document"
)

// parseAdapter reads what the guard needs of adapter.yaml in one parse,
// without the schema check that adapter.Parse makes (the hook runs before
// every tool call): the commands section and guard.allow. A syntax error,
// or either section in the wrong shape, is an error naming the file, line
// and field.
func parseAdapter(path string, data []byte) (map[string]string, []string, error) {
	f, err := document.Parse(path, data)
	if err != nil {
		return nil, nil, err
	}
	cmds, err := commands(path, f)
	if err != nil {
		return nil, nil, err
	}
	allow, err := guardAllow(path, f)
	return cmds, allow, err
}

func commands(path string, f *document.File) (map[string]string, error) {
	top, _ := f.Value.(map[string]any)
	raw, ok := top["commands"]
	if !ok || raw == nil {
		return nil, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		line, col := f.Pos([]string{"commands"})
		return nil, &document.Error{Path: path, Line: line, Col: col, Field: "commands", Msg: "must be a mapping of command names to command lines"}
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	cmds := make(map[string]string, len(m))
	for _, k := range names {
		s, ok := m[k].(string)
		if !ok {
			line, col := f.Pos([]string{"commands", k})
			return nil, &document.Error{Path: path, Line: line, Col: col, Field: "commands." + k, Msg: fmt.Sprintf("must be a command line (a string), not %s", yamlKind(m[k]))}
		}
		cmds[k] = s
	}
	return cmds, nil
}

// yamlKind names the kind of a decoded YAML value the way a user wrote it.
func yamlKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	default:
		return "a number"
	}
}

// guardAllow reads guard.allow of adapter.yaml: scripts, relative to the
// repository root (globs allowed), that the guard must not take for
// trainers by their names. Approved with the rest of the adapter.
func guardAllow(path string, f *document.File) ([]string, error) {
	top, _ := f.Value.(map[string]any)
	g, ok := top["guard"].(map[string]any)
	if !ok {
		return nil, nil
	}
	raw, ok := g["allow"].([]any)
	if !ok {
		if g["allow"] != nil {
			line, col := f.Pos([]string{"guard", "allow"})
			return nil, &document.Error{Path: path, Line: line, Col: col, Field: "guard.allow", Msg: "must be a list of script paths"}
		}
		return nil, nil
	}
	allow := make([]string, 0, len(raw))
	for i, v := range raw {
		s, ok := v.(string)
		if !ok || s == "" {
			line, col := f.Pos([]string{"guard", "allow", fmt.Sprint(i)})
			return nil, &document.Error{Path: path, Line: line, Col: col, Field: fmt.Sprintf("guard.allow[%d]", i), Msg: "must be a script path"}
		}
		allow = append(allow, s)
	}
	return allow, nil
}
