package runs

// How a launch plan was confirmed: Record.Confirmed.
const (
	// ByTerminal: the plan's digest (or yes) typed at launch's own prompt.
	ByTerminal = "terminal"
	// ByDigest: --confirm DIGEST from a shell no agent host runs.
	ByDigest = "confirm"
	// ByHostAsk: --confirm DIGEST from Claude Code's shell tool, which the
	// guard lets run only after the host has asked the human and they
	// allowed it.
	ByHostAsk = "host-ask"
	// ByAgent: --confirm DIGEST from another agent host, which cannot ask
	// (the guard refuses it there): no human is known to have seen it.
	ByAgent = "agent"
	// ByUnverified: --confirm DIGEST from a process whose ancestry could
	// not be read.
	ByUnverified = "confirm-unverified"
)

// ConfirmationText describes a record's Confirmed for people.
func ConfirmationText(how string) string {
	switch how {
	case ByTerminal:
		return "terminal (typed at launch's prompt)"
	case ByDigest:
		return "confirm (--confirm DIGEST, from a shell outside any agent host)"
	case ByHostAsk:
		return "host-ask (--confirm DIGEST from Claude Code, after it asked the human)"
	case ByAgent:
		return "agent (--confirm DIGEST from an agent host that cannot ask the human)"
	case ByUnverified:
		return "confirm-unverified (--confirm DIGEST; the process ancestry could not be read)"
	case "":
		return "not recorded"
	}
	return how
}
