package stdlib

import (
	"errors"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"strings"
)

// What TO_CHANGELOG and FROM_CHANGELOG share: the op column, the
// op_mapping literal and the names of the change operations.

// defaultOpColumn names the op column when the call gives no op => DESCRIPTOR(name).
const defaultOpColumn = "op"

// kindNames are the change operations in Flink's RowKind order; each kind
// is its own default op code.
var kindNames = []string{"INSERT", "UPDATE_BEFORE", "UPDATE_AFTER", "DELETE"}

// validKinds is how Flink lists the valid change operations in its messages.
var validKinds = "[" + strings.Join(kindNames, ", ") + "]"

// parseKind parses a change operation name (INSERT, ...), case-sensitively.
func parseKind(s string) (types.RowKind, bool) {
	for i, n := range kindNames {
		if n == s {
			return types.RowKind(i), true
		}
	}
	return 0, false
}

// opColumn returns the op column that the op argument names: DESCRIPTOR(name),
// or "op" when the argument is absent. A value of another type is left to
// the planner's type check, which rejects it.
func opColumn(arg any) (string, error) {
	d, ok := arg.(types.Descriptor)
	if !ok {
		return defaultOpColumn, nil
	}
	if len(d) != 1 {
		return "", errors.New("The descriptor for argument 'op' must contain exactly one column name.")
	}
	return d[0], nil
}

// mapEntry is one entry of an op_mapping MAP literal; a NULL key or value is nil.
type mapEntry struct {
	key, value *string
}

// opMapping returns the entries of an op_mapping argument in the order the
// literal wrote them, a later entry replacing an earlier one with the same
// key as in Flink's (Java) map. ok is false when the argument is absent or
// is not a map of strings, which the planner's type check rejects.
func opMapping(arg any) (entries []mapEntry, ok bool) {
	m, isMap := arg.(*types.Map)
	if !isMap {
		return nil, false
	}
	str := func(v any) (*string, bool) {
		if v == nil {
			return nil, true
		}
		s, ok := v.(string)
		return &s, ok
	}
	at := map[string]int{}
	for i := range m.Keys {
		k, ok1 := str(m.Keys[i])
		v, ok2 := str(m.Values[i])
		if !ok1 || !ok2 {
			return nil, false
		}
		if k != nil {
			if j, dup := at[*k]; dup {
				entries[j].value = v
				continue
			}
			at[*k] = len(entries)
		}
		entries = append(entries, mapEntry{key: k, value: v})
	}
	return entries, true
}

// splitNames splits a comma-separated op_mapping key and trims each part,
// as Java's String.split(",") does: trailing empty parts are dropped.
func splitNames(key string) []string {
	parts := strings.Split(key, ",")
	if key != "" {
		for len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
	}
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// nullable renders a possibly NULL string as Java's String.valueOf does.
func nullable(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// kindList renders kinds as Flink prints a set or list of RowKinds:
// [INSERT, DELETE].
func kindList(kinds []types.RowKind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.String()
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// tableArg is a call's table argument as Infer sees it.
type tableArg struct {
	sch types.Schema
	// partition are the PARTITION BY columns (indexes); names the table
	// lacks are left out, for the planner reports them.
	partition []int
	// partitioned tells whether the call has PARTITION BY.
	partitioned bool
}

// tableArgOf returns table argument i of a call; false when the call
// passes no table there, which the planner reports in its own words.
func tableArgOf(call ptf.CallInfo, i int) (tableArg, bool) {
	if i >= len(call.Tables) || call.Tables[i].Len() == 0 {
		return tableArg{}, false
	}
	t := tableArg{sch: call.Tables[i]}
	if i < len(call.PartitionBy) {
		for _, name := range call.PartitionBy[i] {
			t.partitioned = true
			if k := t.sch.Index(name); k >= 0 {
				t.partition = append(t.partition, k)
			}
		}
	}
	return t, true
}

// traits are the table traits of an argument that has set semantics
// exactly when the call partitions it.
func (t tableArg) traits() ptf.Trait {
	if t.partitioned {
		return ptf.SetSemanticTable
	}
	return ptf.RowSemanticTable
}

// outputColumns returns the indexes of the input columns that a call's
// output carries: all but the partition keys (which the runtime puts in
// front of the output) and the column skip (-1: none).
func outputColumns(n int, partition []int, skip int) []int {
	drop := map[int]bool{skip: true}
	for _, k := range partition {
		drop[k] = true
	}
	var cols []int
	for i := 0; i < n; i++ {
		if !drop[i] {
			cols = append(cols, i)
		}
	}
	return cols
}

// partitionOf returns the PARTITION BY columns of the instance's table
// argument as the runtime bound them.
func partitionOf(ctx *ptf.Context, arg int) []int {
	sem, ok := ctx.TableSemantics(arg)
	if !ok {
		return nil
	}
	return sem.PartitionBy
}
