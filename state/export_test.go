package state

// RawBoltPut lets the external tests make state files that OpenBolt must
// refuse, without importing bbolt outside bolt.go.
var RawBoltPut = rawBoltPut
