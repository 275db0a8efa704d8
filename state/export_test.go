package state

// RawBoltPut lets the external tests make state files that OpenBolt must
// refuse, without importing bbolt outside bolt.go.
var RawBoltPut = rawBoltPut

// SealValue and OpenValue give the fuzz tests the stored form of values.
var (
	SealValue = sealValue
	OpenValue = openValue
	NSSum     = nsSum
)

// DescribeNamespace and DescribeKey are how errors name namespaces and keys.
var (
	DescribeNamespace = describeNamespace
	DescribeKey       = describeKey
)
