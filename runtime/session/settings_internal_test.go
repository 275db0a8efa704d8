package session

import (
	"testing"

	"github.com/ptfsh/ptfsh/runtime/settings"
)

// TestCheckpointRowsDefault: run.go falls back on the table's default.
func TestCheckpointRowsDefault(t *testing.T) {
	if n, _ := settings.Get[int64](nil, SetCheckpointRows); n != defaultCheckpointRows {
		t.Errorf("runtime/settings says %d rows between checkpoints, run.go %d", n, defaultCheckpointRows)
	}
}
