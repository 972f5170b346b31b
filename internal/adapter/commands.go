package adapter

import (
	"fmt"
	"sort"

	"github.com/rlxp/rlxp/internal/document"
)

// ParseCommands reads only the commands section of adapter.yaml, without
// the schema check that Parse makes: the guard hook runs before every shell
// command an agent issues and needs nothing else from the file. A syntax
// error, or a commands section that is not a mapping of names to strings,
// is an error naming the file, line and field.
func ParseCommands(path string, data []byte) (map[string]string, error) {
	f, err := document.Parse(path, data)
	if err != nil {
		return nil, err
	}
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
