package runtime

import (
	"errors"
	"fmt"
	"github.com/ptfsh/ptfsh/runtime/format"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"os"
)

// at places err at pos unless it already has a statement position.
func at(pos sqlmini.Pos, err error) error { return types.At(pos, err) }

// positionOf finds the statement position of an error: that of the outermost
// *types.Error in its chain.
func positionOf(err error) (sqlmini.Pos, bool) { return types.PositionOf(err) }

// fileError words a source error with the path as the table declares it,
// not the resolved one, so messages read the same on every machine.
func fileError(t *Table, err error) error {
	written := t.Options["path"]
	var pe *format.ParseError
	if errors.As(err, &pe) {
		c := *pe
		c.File = written
		return &c
	}
	var oe *os.PathError
	if errors.As(err, &oe) {
		return fmt.Errorf("table '%s': cannot read '%s': %w", t.Name, written, oe.Err)
	}
	return fmt.Errorf("table '%s': %w", t.Name, err)
}
