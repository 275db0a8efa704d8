package expr

import (
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// compileUserFunc compiles a call of a function of the catalog in an
// expression: a scalar function ([ptf.FuncDef.Scalar]), whose arguments are
// cast to the declared types as Flink casts a call's arguments; a process
// table function is an error that says where it goes.
func compileUserFunc(f *sqlmini.FuncCall, def *ptf.FuncDef, sc *Scope) (Expr, error) {
	name := string(f.Name.Value)
	if def.Scalar == nil {
		return nil, sqlmini.Errorf(f.Pos, "%s is a process table function: call it in FROM (SELECT * FROM %s(...)), not in an expression", name, name)
	}
	if f.Star || f.Distinct {
		return nil, sqlmini.Errorf(f.Pos, "%s is a scalar function: it takes neither * nor DISTINCT", name)
	}
	required := 0
	for _, a := range def.Args {
		if !a.Optional {
			required++
		}
	}
	if len(f.Args) < required || len(f.Args) > len(def.Args) {
		return nil, sqlmini.Errorf(f.Pos, "%s takes %s, not %d: %s", name, argCount(required, len(def.Args)), len(f.Args), scalarSignature(name, def))
	}
	args := make([]Expr, len(def.Args))
	for i, a := range def.Args {
		if i >= len(f.Args) {
			args[i] = &Constant{t: types.Type{Kind: types.KindNull}} // an optional argument left out: NULL
			continue
		}
		x, err := Compile(f.Args[i], sc)
		if err != nil {
			return nil, err
		}
		if a.Type != nil && !x.Type().Equal(*a.Type) {
			if !CanImplicitCast(x.Type(), *a.Type) {
				return nil, sqlmini.Errorf(f.Args[i].Pos, "argument %d of %s (%s) is %s, which does not convert to %s: CAST it", i+1, name, a.Name, x.Type(), *a.Type)
			}
			x = CastTo(x, *a.Type)
		}
		args[i] = x
	}
	call, err := def.Scalar()
	if err != nil {
		return nil, sqlmini.Errorf(f.Pos, "%s: %w", name, err)
	}
	vals := make([]any, len(args))
	return &funcExpr{t: def.Output, f: func(row []any) (any, error) {
		for i, a := range args {
			v, err := a.Eval(row)
			if err != nil {
				return nil, err
			}
			vals[i] = v
		}
		v, err := call(vals)
		if err != nil {
			return nil, sqlmini.Errorf(f.Pos, "%w", err)
		}
		return v, nil
	}}, nil
}

// scalarSignature is name(arg TYPE, ...) RETURNS TYPE.
func scalarSignature(name string, def *ptf.FuncDef) string {
	var b strings.Builder
	b.WriteString(name + "(")
	for i, a := range def.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.Name)
		if a.Type != nil {
			b.WriteString(" " + a.Type.String())
		}
		if a.Optional {
			b.WriteString(" (optional)")
		}
	}
	return b.String() + ") RETURNS " + def.Output.String()
}

func argCount(lo, hi int) string {
	if lo == hi {
		return fmt.Sprintf("%d arguments", lo)
	}
	return fmt.Sprintf("%d to %d arguments", lo, hi)
}
