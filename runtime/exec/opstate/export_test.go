package opstate

// SmallBatches makes a table's compactions write n keys a transaction, so
// that tests see compactions that span other work.
func SmallBatches(o Options, n int) Options {
	o.compactBatch = n
	return o
}

// Generations returns how many sealed generations a table has and whether
// a compaction is under way.
func (t *Table[V]) Generations() (int, bool) { return len(t.gens.list), t.comp != nil }

// SmallSpills makes a table spill its live generation after n writes, so
// that tests see spilled generations read, merged, sealed and dropped.
func SmallSpills(o Options, n int) Options {
	o.spillKeys = n
	return o
}
