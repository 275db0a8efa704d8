package state_test

import (
	"testing"

	"github.com/ptfsh/ptfsh/state/statetest"
)

func TestMem(t *testing.T) {
	statetest.Run(t, statetest.OpenMem)
}
