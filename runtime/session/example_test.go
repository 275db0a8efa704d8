package session_test

import (
	"context"
	"fmt"
	"os"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/session"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// upper is a Go-native PTF with row semantics: it emits its input's name in
// upper case. A JavaScript function satisfies the same session.PTF contract.
type upper struct{}

func (upper) Eval(ctx *ptf.Context, row types.Row) error {
	name, _ := row.Fields[0].(string)
	return ctx.Collect(types.NewRow(fmt.Sprintf("%s!", name)))
}

func (upper) OnTimer(*ptf.Context) error { return nil }

// ExampleSession_Exec registers a Go PTF and calls it from SQL.
func ExampleSession_Exec() {
	sess, err := session.NewSession(session.Config{Out: os.Stdout, Format: "rows"})
	if err != nil {
		panic(err)
	}
	sess.Catalog().RegisterBuiltIn(&ptf.FuncDef{
		Name:     "Shout",
		Language: "GO",
		Args:     []ptf.ArgDecl{{Name: "input", Traits: ptf.RowSemanticTable}},
		Output:   types.TypeString,
		New:      func(ptf.CallSpec) (ptf.PTF, error) { return upper{}, nil },
	})
	err = sess.Exec(context.Background(), "", `
		CREATE VIEW Names(name) AS VALUES ('Bob'), ('Alice');
		SELECT * FROM Shout(TABLE Names);`)
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// +I[Bob!]
	// +I[Alice!]
}
