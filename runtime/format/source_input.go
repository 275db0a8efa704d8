package format

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// IsGzip reports whether path names a gzip-compressed file: its name ends
// in .gz or .gzip. The CSV and JSON readers decompress such a file as they
// read it, as Flink's file sources pick a decompressor by the file's
// extension (StandardDeCompressors.getDecompressorForFileName).
func IsGzip(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".gz") || strings.HasSuffix(p, ".gzip")
}

// sourceInput is the byte stream a text reader (CSV, JSON) reads: the
// file itself, or its decompressed bytes for a gzip file. Offsets in
// positions count the bytes of this stream: for a gzip file, decompressed
// bytes, so a resume decompresses the file again from its start and skips
// what was read (gzip has no index to seek by).
type sourceInput struct {
	path string
	f    *os.File
	gz   *gzip.Reader // nil for a file that is not compressed
	r    io.Reader
	// lineStart is, for a gzip file opened to resume, the offset of the
	// start of the line that holds the resume offset, found while skipping.
	lineStart int64
}

// InputOptions say where a text reader's bytes come from, beyond a file
// it opens and reads to its end.
type InputOptions struct {
	// Stream, when not nil, is read instead of opening the path, which
	// then only names it in messages and positions: standard input. It
	// cannot be resumed (Resume must be zero) and its reader does not
	// close it.
	Stream io.Reader
	// Follow reads a file that grows: a line is read once its line end is
	// written, so that a line caught half-written is not read as a row,
	// and Next after io.EOF goes on with what was appended since. A gzip
	// file cannot be followed.
	Follow bool
}

// openSourceInput opens path as openSourceFile does and, for a gzip file
// (IsGzip), decompresses it, skipping resume.Offset decompressed bytes.
// With in.Stream it reads that instead; with in.Follow it hands on whole
// lines only (followReader).
func openSourceInput(path string, resume SourcePos, opts ...InputOptions) (*sourceInput, error) {
	var o InputOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Stream != nil {
		if resume != (SourcePos{}) && resume.Offset != 0 {
			return nil, fmt.Errorf("open %s: a stream cannot resume at offset %d", path, resume.Offset)
		}
		return &sourceInput{path: path, r: o.Stream}, nil
	}
	if o.Follow {
		if IsGzip(path) {
			return nil, fmt.Errorf("open %s: a gzip file cannot be followed: it is compressed whole, not appended to line by line", path)
		}
		f, err := openSourceFile(path, resume)
		if err != nil {
			return nil, err
		}
		return &sourceInput{path: path, f: f, r: &followReader{f: f}}, nil
	}
	if !IsGzip(path) {
		f, err := openSourceFile(path, resume)
		if err != nil {
			return nil, err
		}
		return &sourceInput{path: path, f: f, r: f}, nil
	}
	f, err := openSourceFile(path, SourcePos{})
	if err != nil {
		return nil, err
	}
	if resume.Offset < 0 || resume.Line < 0 || resume.Row < 0 {
		f.Close()
		return nil, fmt.Errorf("open %s: invalid resume position %s", path, resume)
	}
	in := &sourceInput{path: path, f: f}
	gz, err := gzip.NewReader(bufio.NewReaderSize(f, 64<<10))
	if err == io.EOF {
		in.r = strings.NewReader("") // an empty file: no rows, as an empty CSV
	} else if err != nil {
		f.Close()
		if err == io.ErrUnexpectedEOF {
			err = gzip.ErrHeader // shorter than a gzip header
		}
		return nil, gzipError(path, err)
	} else {
		in.gz, in.r = gz, gz
	}
	if resume.Offset > 0 {
		if err := in.skip(resume.Offset); err != nil {
			f.Close()
			return nil, err
		}
	}
	return in, nil
}

// skip reads and drops the first n decompressed bytes, noting where the
// line that holds byte n starts.
func (in *sourceInput) skip(n int64) error {
	buf := make([]byte, 64<<10)
	var done int64
	for done < n {
		m, err := in.r.Read(buf[:min(int64(len(buf)), n-done)])
		for i := m - 1; i >= 0; i-- {
			if buf[i] == '\n' {
				in.lineStart = done + int64(i) + 1
				break
			}
		}
		done += int64(m)
		if err == io.EOF && done < n {
			return fmt.Errorf("open %s: cannot resume at offset %d: the file has only %d bytes once decompressed (truncated or replaced?)", in.path, n, done)
		}
		if err != nil && err != io.EOF {
			return gzipError(in.path, err)
		}
	}
	return nil
}

// Read implements io.Reader; errors of a damaged gzip file say so.
func (in *sourceInput) Read(p []byte) (int, error) {
	n, err := in.r.Read(p)
	if err != nil && err != io.EOF && in.gz != nil {
		err = gzipError(in.path, err)
	}
	return n, err
}

// lineStartBefore returns the offset of the start of the line that holds
// byte off, the offset the input was opened at.
func (in *sourceInput) lineStartBefore(off int64) (int64, error) {
	if in.f == nil {
		return 0, fmt.Errorf("a stream cannot resume at offset %d", off)
	}
	if in.gz != nil || IsGzip(in.path) {
		return in.lineStart, nil
	}
	return LineStartBefore(in.f, off)
}

// Close closes the file (not a stream, which its owner closes).
func (in *sourceInput) Close() error {
	if in.gz != nil {
		in.gz.Close()
	}
	if in.f == nil {
		return nil
	}
	return in.f.Close()
}

// followReader reads a file that grows. It hands on whole lines only: the
// bytes after the last line end read so far wait until their line end is
// written. When no whole line is there, it returns io.EOF, which it does
// not keep: the next Read reads what was appended since.
type followReader struct {
	f     *os.File
	buf   []byte // read from the file: buf[off:ready] to hand on, then a part line
	off   int
	ready int
}

func (r *followReader) Read(p []byte) (int, error) {
	if r.off < r.ready {
		n := copy(p, r.buf[r.off:r.ready])
		r.off += n
		return n, nil
	}
	part := copy(r.buf, r.buf[r.ready:]) // the part line moves to the front
	r.buf = r.buf[:part]
	r.off, r.ready = 0, 0
	for {
		if cap(r.buf)-len(r.buf) < 16<<10 {
			r.buf = append(make([]byte, 0, 2*cap(r.buf)+64<<10), r.buf...)
		}
		m, err := r.f.Read(r.buf[len(r.buf):cap(r.buf)])
		r.buf = r.buf[:len(r.buf)+m]
		if i := bytes.LastIndexByte(r.buf[len(r.buf)-m:], '\n'); i >= 0 {
			r.ready = len(r.buf) - m + i + 1
			n := copy(p, r.buf[:r.ready])
			r.off = n
			return n, nil
		}
		if err == io.EOF || m == 0 && err == nil {
			return 0, io.EOF
		}
		if err != nil {
			return 0, err
		}
		if len(r.buf) > MaxLineBytes {
			return 0, LineTooLong(r.f.Name(), 0)
		}
	}
}

// Partial returns how many bytes of a line without its line end yet the
// reader holds back.
func (r *followReader) Partial() int { return len(r.buf) - r.ready }

// GzipError is a damaged gzip file's error: "read PATH: " and what is
// wrong (Detail). The readers return it as it is.
type GzipError struct {
	Path string
	err  error
}

type gzipErr = GzipError

func (e *GzipError) Error() string { return "read " + e.Path + ": " + e.Detail() }

// Detail says what is wrong with the file, in words.
func (e *GzipError) Detail() string {
	what := e.err.Error()
	switch {
	case errors.Is(e.err, gzip.ErrHeader):
		what = "not a gzip file (its name ends in .gz, so it is read decompressed; rename it if it is not compressed)"
	case errors.Is(e.err, gzip.ErrChecksum):
		what = "damaged gzip data (checksum mismatch)"
	case errors.Is(e.err, io.ErrUnexpectedEOF):
		what = "the gzip data ends early (the file is cut short)"
	}
	return what
}

func (e *gzipErr) Unwrap() error { return e.err }

func gzipError(path string, err error) error {
	var ge *gzipErr
	if errors.As(err, &ge) {
		return err
	}
	return &gzipErr{Path: path, err: err}
}

// ReadRange returns the bytes from offset from to offset to of the stream
// a text reader reads from path (decompressed for a gzip file), and the
// offset where the line holding byte from starts. It is
// io.ErrUnexpectedEOF, with the bytes there are, when the stream is
// shorter.
func ReadRange(path string, from, to int64) ([]byte, int64, error) {
	in, err := openSourceInput(path, SourcePos{Offset: from})
	if err != nil {
		return nil, 0, err
	}
	defer in.Close()
	start, err := in.lineStartBefore(from)
	if err != nil {
		return nil, 0, err
	}
	b := make([]byte, to-from)
	n, err := io.ReadFull(in, b)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return b[:n], start, err
}

// OpenStream opens the stream a text reader reads from path, from its
// start: the file's bytes, decompressed for a gzip file. Checkpoints hash
// it (the SHA-256 of the prefix read).
func OpenStream(path string) (io.ReadCloser, error) {
	return openSourceInput(path, SourcePos{})
}
