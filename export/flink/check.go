package flink

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Check reports the first feature of def that the exported project could
// not run as ptfsh does, naming the feature and file.
func Check(def *ptf.FuncDef, file string) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: export flink: %s is not supported yet", file, fmt.Sprintf(format, args...))
	}
	if strings.ContainsAny(def.Name, "\r\n") {
		return fmt.Errorf("%s: export flink: the function name %q cannot be written in Flink SQL: its quoted names hold no line breaks", file, def.Name)
	}
	if def.Scalar != nil {
		return checkScalar(def, file)
	}
	if def.Infer != nil {
		return fail("a built-in function with its own type inference")
	}
	scalar := ""
	for _, a := range def.Args {
		if !a.IsTable() && scalar == "" {
			scalar = a.Name
		}
		if a.IsTable() && a.Traits.Has(ptf.PassColumnsThrough) && scalar != "" {
			// Seen on Flink 2.3 (the conformance archive
			// process_row_semantic_table_pass_through_after_scalar): the
			// generated class fails in Flink's code generation.
			return fail("a scalar argument (%q) declared before the PASS_COLUMNS_THROUGH table %q (Flink 2.3 fails to generate code for the class: declare the table first)", scalar, a.Name)
		}
		if !flinkName.MatchString(a.Name) {
			return fmt.Errorf("%s: export flink: Invalid argument name '%s'. An argument must follow the pattern %s.", file, a.Name, flinkNamePattern)
		}
		if a.IsTable() {
			continue
		}
		if a.Type == nil || javaClass(*a.Type, true) == "" {
			return fail("the scalar argument type %s (argument %q)", typeName(a.Type), a.Name)
		}
	}
	for _, s := range def.State {
		if !flinkName.MatchString(s.Name) {
			return fmt.Errorf("%s: export flink: Invalid state name '%s'. A state entry must follow the pattern %s.", file, s.Name, flinkNamePattern)
		}
		switch {
		case s.Kind == ptf.MapState:
			if viewClass(*s.Type.Key) == "" || viewElemClass(*s.Type.Elem) == "" {
				return fail("MapView state of type %s (state %q; keys of BOOLEAN, integer, FLOAT, DOUBLE or STRING, and values of any type but MAP, are)", s.Type, s.Name)
			}
		case s.Kind == ptf.ListState:
			if viewElemClass(*s.Type.Elem) == "" {
				return fail("ListView state of type %s (state %q; elements of any type but MAP are)", s.Type, s.Name)
			}
		}
	}
	if def.Output.Kind == types.KindRow {
		for _, f := range def.Output.Fields {
			if javaClass(f.Type, false) == "" {
				return fail("the output field type %s (field %q)", f.Type, f.Name)
			}
		}
	} else if javaClass(def.Output, false) == "" {
		return fail("the output type %s", def.Output)
	}
	return nil
}

// checkScalar is Check for a scalar function (kind: "scalar"), which
// becomes a Flink ScalarFunction: its arguments and output of the types
// the bridge converts.
func checkScalar(def *ptf.FuncDef, file string) error {
	for _, a := range def.Args {
		if !flinkName.MatchString(a.Name) {
			return fmt.Errorf("%s: export flink: Invalid argument name '%s'. An argument must follow the pattern %s.", file, a.Name, flinkNamePattern)
		}
		if a.Type == nil || a.Type.Kind == types.KindDescriptor || javaClass(*a.Type, true) == "" {
			return fmt.Errorf("%s: export flink: the scalar argument type %s (argument %q) of a scalar function is not supported yet", file, typeName(a.Type), a.Name)
		}
	}
	if def.Output.Kind == types.KindRow || javaClass(def.Output, false) == "" {
		return fmt.Errorf("%s: export flink: the output type %s of a scalar function is not supported yet", file, def.Output)
	}
	return nil
}

// CheckChangelog reports whether the bridge can carry the changelog
// declaration of def (script.Changelog: mode is "insert-only", "retract",
// "upsert", "all" or "" for none; fn is the function form), naming the
// file. Both forms are carried (the class is a ChangelogFunction; the
// function form runs in a GraalJS context of its own when Flink plans),
// for a ROW output.
func CheckChangelog(def *ptf.FuncDef, mode string, fn bool, file string) error {
	if (fn || mode != "" && mode != "insert-only") && def.Output.Kind != types.KindRow {
		return fmt.Errorf("%s: export flink: a changelog function with the output %s is not supported yet (a ROW output is)", file, def.Output)
	}
	if def.ChangelogMode != nil && mode == "" && !fn {
		return fmt.Errorf("%s: export flink: a changelog function whose mode is not known is not supported yet", file)
	}
	return nil
}

// bridgeLacks are the methods of ptfsh's JavaScript API that the bridge
// does not carry to Flink, with what they are. It carries every method of
// ptf.d.ts today (the row methods, the timers, the views,
// tableSemanticsFor, getChangelogMode); a method that ptfsh gains before
// the bridge does goes here, so that the export refuses it by name.
var bridgeLacks = []struct{ name, what string }{}

var bridgeLacksRE = func() *regexp.Regexp {
	var names []string
	for _, l := range bridgeLacks {
		names = append(names, l.name)
	}
	if len(names) == 0 {
		return nil
	}
	return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
}()

// CheckScript reports the first method of ptfsh's JavaScript API that the
// bundled script names and the bridge does not carry to Flink (found by
// name in the code, its imports included: a property of that name is
// refused as well, rather than fail on Flink).
func CheckScript(script, file string) error {
	if bridgeLacksRE == nil {
		return nil
	}
	m := bridgeLacksRE.FindStringSubmatch(script)
	if m == nil {
		return nil
	}
	for _, l := range bridgeLacks {
		if l.name == m[1] {
			return fmt.Errorf("%s: export flink: the function uses %s, which the Flink bridge does not carry yet", file, l.what)
		}
	}
	return nil
}

// flinkName is the pattern Flink requires of the names of arguments and
// state entries (StaticArgument.checkName, the state names of a PTF).
const flinkNamePattern = `[a-zA-Z_$][a-zA-Z_$0-9]*`

var flinkName = regexp.MustCompile(`^` + flinkNamePattern + `$`)
