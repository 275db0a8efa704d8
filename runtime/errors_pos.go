package runtime

import (
	"errors"
	"fmt"
	"os"

	"github.com/ptfsh/ptfsh/sqlmini"
)

// PosError is a runtime error placed at the part of the statement it came
// from: the PTF call whose function failed, or the table whose file could
// not be read. Its Error() is one line, pos: message.
type PosError struct {
	Pos sqlmini.Pos
	Err error
}

func (e *PosError) Error() string { return e.Pos.String() + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *PosError) Unwrap() error { return e.Err }

// at places err at pos unless it already has a statement position.
func at(pos sqlmini.Pos, err error) error {
	if err == nil || !pos.IsValid() {
		return err
	}
	if _, ok := positionOf(err); ok {
		return err
	}
	return &PosError{Pos: pos, Err: err}
}

// positionOf finds the statement position of an error: the outermost
// *PosError or *sqlmini.Error in its chain.
func positionOf(err error) (sqlmini.Pos, bool) {
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch x := e.(type) {
		case *PosError:
			return x.Pos, x.Pos.IsValid()
		case *sqlmini.Error:
			return x.Pos, x.Pos.IsValid()
		}
	}
	return sqlmini.Pos{}, false
}

// fileError words a source error with the path as the table declares it,
// not the resolved one, so messages read the same on every machine.
func fileError(t *Table, err error) error {
	written := t.Options["path"]
	var pe *ParseError
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
