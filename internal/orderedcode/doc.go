// Package orderedcode is the order-preserving encoding of keys: tuples of
// nulls, booleans, integers, floats, strings and bytes written so that
// bytes.Compare of two encodings agrees with comparing the tuples element
// by element, and a tuple's encoding is a prefix of every longer tuple's
// that starts with it (encode.go describes the bytes).
//
// It is a leaf, so that the store (state), which scans by prefix, and the
// key codec of rows (runtime/keycodec), which encodes partition keys, share
// it without the key codec depending on the store.
package orderedcode
