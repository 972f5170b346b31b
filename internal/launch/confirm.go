package launch

import (
	"errors"

	"github.com/rlxp/rlxp/internal/approval"
	"github.com/rlxp/rlxp/internal/runs"
)

// Confirmation says how a plan confirmed with --confirm was confirmed
// (runs.ByDigest, ByHostAsk, ByAgent or ByUnverified), from the launching
// process's ancestry read as an approval's is: the same reader, the same
// host markers.
func Confirmation(t approval.ProcessTable) string {
	_, err := approval.Trace(t)
	var agent *approval.AgentError
	switch {
	case err == nil:
		return runs.ByDigest
	case errors.As(err, &agent) && agent.Host == approval.ClaudeCode:
		return runs.ByHostAsk
	case errors.As(err, &agent):
		return runs.ByAgent
	}
	return runs.ByUnverified
}
