package connector

import (
	"github.com/ptfsh/ptfsh/runtime/exec"
)

// Unbounded reports whether n, a node that Factory.Scan returned, reads a
// table that has no end by itself, as Flink's ScanRuntimeProvider.isBounded
// answers false: a datagen or faker table without 'number-of-rows' or a sequence field (and
// no --rows bound), a Kafka table without 'scan.bounded.mode', a followed
// file or folder ('source.monitor-interval'), standard input and a
// stream (CREATE STREAM), which grows step by step. Batch mode refuses
// them.
func Unbounded(n exec.Node) bool {
	switch t := n.(type) {
	case *datagenNode:
		return t.spec.rows < 0 && !hasSequence(t.spec)
	case *fakerNode:
		return t.rows < 0
	case *kafkaNode:
		return t.s.boundMode == modeUnbounded
	case *fileNode:
		d, err := monitorInterval(t.t)
		return err == nil && d > 0
	case *stdinNode, *StreamScan:
		return true
	}
	return false
}
