package guard

import (
	"encoding/json"
	"fmt"
	"io"
)

// MaxPayload bounds the hook payload read from stdin; a real one is a few
// kilobytes, more than the command the agent wrote.
const MaxPayload = 16 << 20

// Hook decides on the payload the host writes to the hook's stdin. A
// payload that cannot be read whole is refused: the guard refuses a
// command it cannot inspect.
func (g *Guard) Hook(stdin io.Reader, dir string) Decision {
	data, err := io.ReadAll(io.LimitReader(stdin, MaxPayload+1))
	switch {
	case err != nil:
		return Decision{Deny: true, Reason: fmt.Sprintf("cannot read the hook payload from stdin (%v); the guard refuses a command it cannot inspect", err)}
	case len(data) > MaxPayload:
		return Decision{Deny: true, Reason: fmt.Sprintf("the hook payload is larger than %d MiB; the guard refuses a command it cannot inspect", MaxPayload>>20)}
	}
	return g.Check(data, dir)
}

// AskOutput is the hook's stdout for an Ask decision: Claude Code's
// permissionDecision "ask" with the question. The guard never answers
// "allow", which would skip the user's own permission rules.
func (d Decision) AskOutput() []byte {
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": preToolUse, "permissionDecision": "ask", "permissionDecisionReason": d.Reason}})
	return append(out, '\n')
}
