package state

import "bytes"

// RawBoltPut lets the external tests make state files that OpenBolt must
// refuse, without importing bbolt outside bolt.go.
var RawBoltPut = rawBoltPut

// VersionValue is the stored form of a format version, for tests that make
// files of other versions.
var VersionValue = versionValue

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

// CheckBoltFile runs OpenBolt's checks of a whole file on b.
func CheckBoltFile(b []byte) error {
	_, err := checkBoltFile(bytes.NewReader(b), int64(len(b)))
	return err
}

// SetBeforeAsyncCommit sets the hook that runs before each background
// commit, until the test ends.
func SetBeforeAsyncCommit(t interface{ Cleanup(func()) }, f func() error) {
	old := beforeAsyncCommit
	beforeAsyncCommit = f
	t.Cleanup(func() { beforeAsyncCommit = old })
}

// PageSizeOf is the page size of a bbolt store's file.
func PageSizeOf(s Store) int { return s.(*boltStore).db.Info().PageSize }
