package connector

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crcSum is prefixHasher.sum computed from the bytes themselves.
func crcSum(b []byte) string {
	return fmt.Sprintf("%08x%08x", crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)), crc32.ChecksumIEEE(b))
}

func shaSum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestPrefixHasher_matches: the check of a file's prefix is its two CRCs,
// taken in steps as checkpoints take it (with reads larger than one
// buffer); a position of an older state file (a SHA-256) is checked too,
// and the hasher goes on with the CRCs; a byte changed inside the prefix
// fails both, and a file shorter than the prefix is errShrank.
func TestPrefixHasher_matches(t *testing.T) {
	dir := t.TempDir()
	var data []byte
	for i := 0; len(data) < 3*hashBuf; i++ {
		data = fmt.Appendf(data, "user%d,/page/%d,%d\n", i%977, i, i*7)
	}
	path := filepath.Join(dir, "clicks.csv")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	n := int64(hashBuf + 12345)

	var p prefixHasher
	for _, upTo := range []int64{100, 100, 70_000, n} {
		if err := p.extend(path, upTo); err != nil {
			t.Fatal(err)
		}
		if got, want := p.sum(), crcSum(data[:upTo]); got != want {
			t.Fatalf("after %d bytes: sum %s, want %s", upTo, got, want)
		}
	}

	tests := []struct {
		name     string
		crc, sha string
		want     bool
	}{
		{"crc", crcSum(data[:n]), "", true},
		{"older state file: sha256", "", shaSum(data[:n]), true},
		{"crc of another prefix", crcSum(data[:n-1]), "", false},
		{"sha256 of another prefix", "", shaSum(data[:n-1]), false},
		{"neither", "", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var q prefixHasher
			if got := q.matches(path, n, tt.crc, tt.sha); got != tt.want {
				t.Fatalf("matches = %v, want %v", got, tt.want)
			}
			if !tt.want {
				return
			}
			// Resumed, it goes on with the CRCs of the whole prefix.
			if err := q.extend(path, n+1000); err != nil {
				t.Fatal(err)
			}
			if got, want := q.sum(), crcSum(data[:n+1000]); got != want {
				t.Fatalf("went on to sum %s, want %s", got, want)
			}
		})
	}

	changed := bytes.Clone(data)
	changed[n/2] ^= 1
	if err := os.WriteFile(path, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	var q prefixHasher
	if q.matches(path, n, crcSum(data[:n]), "") {
		t.Error("a byte changed inside the prefix still matches its crc")
	}
	q = prefixHasher{}
	if q.matches(path, n, "", shaSum(data[:n])) {
		t.Error("a byte changed inside the prefix still matches its sha256")
	}

	if err := os.WriteFile(path, data[:n-1], 0o644); err != nil {
		t.Fatal(err)
	}
	q = prefixHasher{}
	if err := q.extend(path, n); !errors.Is(err, errShrank) {
		t.Errorf("a file shorter than the prefix: %v, want errShrank", err)
	}
}

// TestPrefixHasher_gzip: a gzip file's check is of its decompressed
// bytes, taken in steps from the stream the hasher keeps open.
func TestPrefixHasher_gzip(t *testing.T) {
	data := []byte(strings.Repeat("a,1\nb,2\n", 40_000))
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(data)
	w.Close()
	path := filepath.Join(t.TempDir(), "t.csv.gz")
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var p prefixHasher
	defer p.close()
	for _, upTo := range []int64{10, 200_000, int64(len(data))} {
		if err := p.extend(path, upTo); err != nil {
			t.Fatal(err)
		}
		if got, want := p.sum(), crcSum(data[:upTo]); got != want {
			t.Fatalf("after %d bytes: sum %s, want %s", upTo, got, want)
		}
	}
	if err := p.extend(path, int64(len(data))+1); !errors.Is(err, errShrank) {
		t.Errorf("past the end of the stream: %v, want errShrank", err)
	}
}
