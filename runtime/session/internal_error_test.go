package session_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// panicky is a Go PTF with a bug: its Eval panics.
type panicky struct{}

func (panicky) Eval(*ptf.Context, types.Row) error { panic("index out of range [3] with length 3") }
func (panicky) OnTimer(*ptf.Context) error         { return nil }

// TestSession_panicBecomesInternalError: a panic in a statement is an
// *InternalError at the statement's position, and the next statement runs.
func TestSession_panicBecomesInternalError(t *testing.T) {
	var out bytes.Buffer
	sess, err := session.NewSession(session.Config{Out: &out, Err: &out, Store: state.NewMem(), Format: "rows"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	sess.Catalog().RegisterBuiltIn(&ptf.FuncDef{Name: "BUGGY", Language: "GO",
		Args:   []ptf.ArgDecl{{Name: "r", Traits: ptf.RowSemanticTable}},
		Output: types.TypeInt,
		New:    func(ptf.CallSpec) (ptf.PTF, error) { return panicky{}, nil },
	})
	err = sess.Exec(context.Background(), "q.sql", "CREATE VIEW v AS VALUES (1);\nSELECT * FROM BUGGY(TABLE v);")
	var ie *session.InternalError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v (%T), want an *InternalError", err, err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "q.sql:2:1: internal error at ") || !strings.Contains(msg, "please report it") || !strings.Contains(msg, "internal_error_test.go") {
		t.Errorf("message %q", msg)
	}
	out.Reset()
	if err := sess.Exec(context.Background(), "", "SELECT * FROM v;"); err != nil || out.String() != "+I[1]\n" {
		t.Errorf("the next statement: %v, %q", err, out.String())
	}
}
