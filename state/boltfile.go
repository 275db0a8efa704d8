package state

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
)

// Checking a state file before bbolt reads it.
//
// bbolt trusts the pages of its file: it checks the meta pages' checksums and
// little else, panics or faults on damaged pages, can loop on pages that
// point back at their parents, and reads a page that was freed and still
// holds an old value as if it held the current one. OpenBolt therefore reads
// the whole file itself first, with the checks below, and hands it to bbolt
// only when it passes them. checkBoltFile knows bbolt's on-disk format
// (version 2, the only one bbolt has written since 2014) but never calls
// bbolt, so that a damaged file gives an error and never a panic.
//
// Every page below the high-water mark of the newest meta page is read:
//
//   - both meta pages have bbolt's magic number, version and checksum, and
//     agree on the page size; the newest one's page count fits in the file;
//   - the freelist page lists pages in range, each once;
//   - every page reached from the root carries its own id and a known type,
//     lies in range, and is used once: by one parent, not also free, not
//     also the freelist (so there are no cycles and no stale pages);
//   - each page's elements are laid out as bbolt lays them out (header,
//     element headers, then keys and values back to back up to the end of
//     the page's last overflow page), which finds a changed element count,
//     offset or size;
//   - keys are not empty and strictly ascending along each tree, and each
//     branch element's key routes lookups to the pages holding them, so
//     that Get finds every key that Scan visits;
//   - the top level holds only namespaces (buckets), including "__meta"
//     with the format version, and namespaces hold only values;
//   - in a file of format version 2 or later, every value passes its
//     checksum (see value.go).
//
// Pages that are neither reachable nor free are not reported: they hold
// nothing that can be read, and bbolt never reuses them.

// bbolt's on-disk format. Integers are in the machine's byte order.
const (
	boltMagic        = 0xED0CDAED
	boltFileVersion  = 2
	boltHeaderSize   = 16 // page header: id uint64, flags uint16, count uint16, overflow uint32
	boltElemSize     = 16 // leaf: flags, pos, ksize, vsize uint32; branch: pos, ksize uint32, pgid uint64
	boltBucketSize   = 16 // a bucket's value: root pgid uint64, sequence uint64 (then an inline page if root is 0)
	boltMetaSize     = 64 // magic, version, pageSize, flags uint32; root bucket; freelist, pgid, txid, checksum uint64
	boltBranchPage   = 0x01
	boltLeafPage     = 0x02
	boltMetaPage     = 0x04
	boltFreelistPage = 0x10
	boltBucketLeaf   = 0x01
	boltNoFreelist   = ^uint64(0)
	boltMaxDepth     = 64 // far deeper than any real tree
)

var ne = binary.NativeEndian

// boltMeta is the content of a meta page.
type boltMeta struct {
	pageSize uint32
	root     uint64 // root page of the top-level bucket
	freelist uint64
	pgid     uint64 // high-water mark: pages in use are below it
	txid     uint64
}

// fileProblem is a damage checkBoltFile found: what is wrong, and where.
type fileProblem struct {
	ns    string // the namespace it is in, if any
	key   []byte // the key it concerns, or the last good key before it
	after bool   // key is the last good key before the damage
	msg   string
}

func (p *fileProblem) Error() string {
	var sb strings.Builder
	if p.ns != "" {
		sb.WriteString(describeNamespace(p.ns))
		sb.WriteString(", ")
	}
	if p.key != nil {
		if p.after {
			sb.WriteString("after key ")
		} else {
			sb.WriteString("key ")
		}
		sb.WriteString(describeKey(p.key))
		sb.WriteString(": ")
	}
	sb.WriteString(p.msg)
	return sb.String()
}

// boltCheck is the result of checkBoltFile.
type boltCheck struct {
	fresh   bool   // a bbolt file that was never written to: no buckets at all
	version uint32 // the format version in __meta; 0 if fresh
}

// checkBoltFile checks the state file f of size bytes as described above.
// It returns a *fileProblem for damage, or an I/O error. For a file of a
// newer format version it checks the structure and __meta only, and
// returns that version.
func checkBoltFile(f io.ReaderAt, size int64) (boltCheck, error) {
	c := &boltChecker{f: f, size: size}
	return c.check()
}

type boltChecker struct {
	f    io.ReaderAt
	size int64
	ps   int
	meta boltMeta
	use  []byte // what each page below the high-water mark is used for: a pageUse

	ns   string // the namespace being checked
	last []byte // the last good key seen in it
	sum  uint32 // nsSum(ns)
	// version is the file's format version once __meta has been read;
	// values are checked only when it is 2 or more.
	version uint32
}

// Uses of a page.
const (
	pageUnused byte = iota
	pageMeta
	pageFreelist
	pageFree
	pageTree
)

var pageUseNames = [...]string{"unused", "a meta page", "the freelist", "free", "in use"}

// problem returns a *fileProblem at the current position.
func (c *boltChecker) problem(format string, args ...any) error {
	p := &fileProblem{ns: c.ns, msg: fmt.Sprintf(format, args...)}
	if c.last != nil {
		p.key, p.after = bytes.Clone(c.last), true
	}
	return p
}

func (c *boltChecker) read(off int64, n int) ([]byte, error) {
	b := make([]byte, n)
	if _, err := c.f.ReadAt(b, off); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, c.problem("truncated: %d bytes, the page at %d needs %d", c.size, off, n)
		}
		return nil, err
	}
	return b, nil
}

func (c *boltChecker) check() (boltCheck, error) {
	// Both meta pages must pass: bbolt would silently fall back to the
	// other one, which holds the commit before the last.
	m0, err := c.readMeta(0, 0)
	if err != nil {
		return boltCheck{}, err
	}
	c.ps = int(m0.pageSize)
	m1, err := c.readMeta(1, int64(c.ps))
	switch {
	case err != nil:
		return boltCheck{}, err
	case m1.pageSize != m0.pageSize:
		return boltCheck{}, c.problem("the meta pages disagree on the page size (%d and %d)", m0.pageSize, m1.pageSize)
	case m0.txid == m1.txid:
		return boltCheck{}, c.problem("both meta pages hold transaction %d", m0.txid)
	}
	c.meta = m0
	if m1.txid > m0.txid {
		c.meta = m1
	}
	m := c.meta
	if m.pgid > uint64(c.size)/uint64(c.ps) || m.pgid < 3 {
		return boltCheck{}, c.problem("truncated: %d bytes, the meta page says %d pages of %d bytes", c.size, m.pgid, c.ps)
	}
	if m.root < 2 || m.root >= m.pgid {
		return boltCheck{}, c.problem("the root page %d is out of range", m.root)
	}
	if m.freelist == boltNoFreelist {
		return boltCheck{}, c.problem("the file has no freelist: not a state file")
	}
	c.use = make([]byte, m.pgid)
	c.use[0], c.use[1] = pageMeta, pageMeta
	if err := c.checkFreelist(); err != nil {
		return boltCheck{}, err
	}
	return c.checkTop()
}

// readMeta reads and checks meta page id at off.
func (c *boltChecker) readMeta(id int, off int64) (boltMeta, error) {
	what := fmt.Sprintf("meta page %d", id)
	if c.size < off+boltHeaderSize+boltMetaSize {
		return boltMeta{}, c.problem("truncated: %d bytes, too short for %s", c.size, what)
	}
	b, err := c.read(off, boltHeaderSize+boltMetaSize)
	if err != nil {
		return boltMeta{}, err
	}
	mb := b[boltHeaderSize:]
	m := boltMeta{
		pageSize: ne.Uint32(mb[8:]),
		root:     ne.Uint64(mb[16:]),
		freelist: ne.Uint64(mb[32:]),
		pgid:     ne.Uint64(mb[40:]),
		txid:     ne.Uint64(mb[48:]),
	}
	h := fnv.New64a()
	h.Write(mb[:56])
	switch {
	case ne.Uint32(mb) != boltMagic:
		return m, c.problem("%s has no bbolt magic number: not a state file", what)
	case ne.Uint32(mb[4:]) != boltFileVersion:
		return m, c.problem("%s has bbolt format version %d, not %d", what, ne.Uint32(mb[4:]), boltFileVersion)
	case h.Sum64() != ne.Uint64(mb[56:]):
		return m, c.problem("%s fails its checksum (the file is damaged, or the machine stopped while it was written)", what)
	case ne.Uint64(b) != uint64(id) || ne.Uint16(b[8:]) != boltMetaPage:
		return m, c.problem("%s has the header of another page", what)
	case m.pageSize < 512 || m.pageSize > 1<<20 || m.pageSize&(m.pageSize-1) != 0:
		return m, c.problem("%s has an invalid page size %d", what, m.pageSize)
	case ne.Uint32(mb[12:]) != 0 || ne.Uint64(mb[24:]) != 0:
		return m, c.problem("%s has flags or a root sequence set", what)
	}
	return m, nil
}

// mark records that pages [id, id+n) are used as use.
func (c *boltChecker) mark(id uint64, n uint64, use byte) error {
	for p := id; p < id+n; p++ {
		if prev := c.use[p]; prev != pageUnused {
			return c.problem("page %d is both %s and %s", p, pageUseNames[prev], pageUseNames[use])
		}
		c.use[p] = use
	}
	return nil
}

// page reads page id, checks its header and marks it and its overflow pages
// as used for use. It returns the page's bytes, overflow pages included.
func (c *boltChecker) page(id uint64, use byte) ([]byte, error) {
	if id < 2 || id >= c.meta.pgid {
		return nil, c.problem("a reference to page %d, outside the %d pages of the file", id, c.meta.pgid)
	}
	off := int64(id) * int64(c.ps)
	b, err := c.read(off, c.ps)
	if err != nil {
		return nil, err
	}
	if got := ne.Uint64(b); got != id {
		return nil, c.problem("page %d has the header of page %d", id, got)
	}
	n := uint64(ne.Uint32(b[12:])) + 1
	if n > c.meta.pgid-id {
		return nil, c.problem("page %d has %d overflow pages, beyond the end of the file", id, n-1)
	}
	if err := c.mark(id, n, use); err != nil {
		return nil, err
	}
	if n == 1 {
		return b, nil
	}
	rest, err := c.read(off+int64(c.ps), int(n-1)*c.ps)
	return append(b, rest...), err
}

func (c *boltChecker) checkFreelist() error {
	id := c.meta.freelist
	b, err := c.page(id, pageFreelist)
	if err != nil {
		return err
	}
	if flags := ne.Uint16(b[8:]); flags != boltFreelistPage {
		return c.problem("the freelist page %d has type 0x%x", id, flags)
	}
	start, count := boltHeaderSize, uint64(ne.Uint16(b[10:]))
	if count == 0xFFFF {
		count = ne.Uint64(b[start:])
		start += 8
	}
	if count > uint64(len(b)-start)/8 {
		return c.problem("the freelist page %d lists %d pages, more than it holds", id, count)
	}
	for i := range int(count) {
		free := ne.Uint64(b[start+8*i:])
		if free < 2 || free >= c.meta.pgid {
			return c.problem("the freelist lists page %d, outside the %d pages of the file", free, c.meta.pgid)
		}
		if err := c.mark(free, 1, pageFree); err != nil {
			return err
		}
	}
	return nil
}

// An element of a leaf page.
type leafElem struct {
	flags      uint32
	key, value []byte
}

// elements parses the elements of the page b (a leaf or branch page, or an
// inline page) and checks their layout. For a branch page, children gets
// the pages they point to.
func (c *boltChecker) elements(what string, b []byte, inline bool) (leaf bool, elems []leafElem, children []uint64, err error) {
	flags, count := ne.Uint16(b[8:]), int(ne.Uint16(b[10:]))
	switch flags {
	case boltLeafPage:
		leaf = true
	case boltBranchPage:
		if inline {
			return false, nil, nil, c.problem("%s: an inline page of type branch", what)
		}
	default:
		return false, nil, nil, c.problem("%s has type 0x%x, not a leaf or branch page", what, flags)
	}
	// Element headers, then keys and values back to back, as bbolt writes
	// them: a change to the count, an offset or a size breaks the chain.
	data := boltHeaderSize + count*boltElemSize
	if data > len(b) {
		return false, nil, nil, c.problem("%s has %d elements, more than fit", what, count)
	}
	elems = make([]leafElem, 0, count)
	if !leaf {
		children = make([]uint64, 0, count)
	}
	off := data
	for i := range count {
		e := b[boltHeaderSize+i*boltElemSize:]
		var pos, ksize, vsize int
		if leaf {
			pos, ksize, vsize = int(ne.Uint32(e[4:])), int(ne.Uint32(e[8:])), int(ne.Uint32(e[12:]))
		} else {
			pos, ksize = int(ne.Uint32(e)), int(ne.Uint32(e[4:]))
		}
		if boltHeaderSize+i*boltElemSize+pos != off {
			return false, nil, nil, c.problem("%s: element %d is not where the layout puts it", what, i)
		}
		if ksize <= 0 || ksize > maxKeySize || ksize > len(b)-off || vsize < 0 || vsize > len(b)-off-ksize {
			return false, nil, nil, c.problem("%s: element %d has an invalid size (key %d, value %d bytes)", what, i, ksize, vsize)
		}
		key := b[off : off+ksize]
		if leaf {
			elems = append(elems, leafElem{flags: ne.Uint32(e), key: key, value: b[off+ksize : off+ksize+vsize]})
		} else {
			elems = append(elems, leafElem{key: key})
			children = append(children, ne.Uint64(e[8:]))
		}
		off += ksize + vsize
	}
	// bbolt allocates a page the size its elements need, rounded up to
	// whole pages; an inline page is exactly that size.
	switch {
	case inline && off != len(b):
		return false, nil, nil, c.problem("%s: its elements end at %d of %d bytes", what, off, len(b))
	case inline && (ne.Uint64(b) != 0 || ne.Uint32(b[12:]) != 0):
		return false, nil, nil, c.problem("%s: an inline page with a page id or overflow", what)
	case !inline && (off+c.ps-1)/c.ps != len(b)/c.ps:
		return false, nil, nil, c.problem("%s: its elements end at %d, but it has %d overflow pages", what, off, len(b)/c.ps-1)
	}
	return leaf, elems, children, nil
}

// walk visits the leaf elements of the tree whose root is page root (or the
// inline page, if root is 0), in key order, checking every page on the way.
// Keys must ascend strictly; lo and hi bound the keys of the subtree (nil
// for none), as lookups route them through the branch pages above.
func (c *boltChecker) walk(root uint64, inline []byte, visit func(leafElem) error) error {
	c.last = nil
	if root == 0 {
		_, elems, _, err := c.elements("the inline page", inline, true)
		if err != nil {
			return err
		}
		for _, e := range elems {
			if err := c.visit(e, nil, nil, visit); err != nil {
				return err
			}
		}
		return nil
	}
	return c.walkPage(root, nil, nil, 0, visit)
}

func (c *boltChecker) walkPage(id uint64, lo, hi []byte, depth int, visit func(leafElem) error) error {
	if depth > boltMaxDepth {
		return c.problem("the tree is more than %d pages deep", boltMaxDepth)
	}
	b, err := c.page(id, pageTree)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("page %d", id)
	leaf, elems, children, err := c.elements(what, b, false)
	if err != nil {
		return err
	}
	if len(elems) == 0 {
		if depth == 0 && c.ns == "" && leaf {
			return errEmptyRoot
		}
		return c.problem("%s has no elements", what)
	}
	if leaf {
		for _, e := range elems {
			if err := c.visit(e, lo, hi, visit); err != nil {
				return err
			}
		}
		return nil
	}
	for i, child := range children {
		// bbolt's lookups go to the last element whose key is at most the
		// key looked for, or to the first element.
		clo, chi := lo, hi
		if i > 0 {
			clo = elems[i].key
		}
		if i+1 < len(elems) {
			chi = elems[i+1].key
		}
		if i > 0 && bytes.Compare(elems[i-1].key, elems[i].key) >= 0 {
			return c.problem("%s: the keys of its elements %d and %d are out of order", what, i-1, i)
		}
		if err := c.walkPage(child, clo, chi, depth+1, visit); err != nil {
			return err
		}
	}
	return nil
}

// visit checks the order and range of a leaf element's key and passes it on.
func (c *boltChecker) visit(e leafElem, lo, hi []byte, visit func(leafElem) error) error {
	if c.last != nil && bytes.Compare(e.key, c.last) <= 0 {
		return c.problem("key %s is out of order", describeKey(e.key))
	}
	if (lo != nil && bytes.Compare(e.key, lo) < 0) || (hi != nil && bytes.Compare(e.key, hi) >= 0) {
		return c.problem("key %s is on a page that lookups of it do not reach", describeKey(e.key))
	}
	if err := visit(e); err != nil {
		return err
	}
	c.last = e.key
	return nil
}

// bucket parses a bucket's value: its root page, or its inline page.
func (c *boltChecker) bucket(e leafElem) (root uint64, inline []byte, err error) {
	if e.flags != boltBucketLeaf {
		return 0, nil, c.problem("%q is a value, not a namespace", e.key)
	}
	v := e.value
	if len(v) < boltBucketSize || ne.Uint64(v[8:]) != 0 {
		return 0, nil, c.problem("namespace %q has an invalid header", e.key)
	}
	root = ne.Uint64(v)
	if root == 0 {
		if len(v) < boltBucketSize+boltHeaderSize {
			return 0, nil, c.problem("namespace %q has an inline page of %d bytes", e.key, len(v)-boltBucketSize)
		}
		return 0, v[boltBucketSize:], nil
	}
	if len(v) != boltBucketSize {
		return 0, nil, c.problem("namespace %q has both a root page and an inline page", e.key)
	}
	return root, nil, nil
}

// checkTop checks the top-level bucket, then __meta, then every namespace.
func (c *boltChecker) checkTop() (boltCheck, error) {
	type bucket struct {
		name   string
		root   uint64
		inline []byte
	}
	var buckets []bucket
	var meta, trash *bucket
	err := c.walk(c.meta.root, nil, func(e leafElem) error {
		root, inline, err := c.bucket(e)
		if err != nil {
			return err
		}
		b := bucket{string(e.key), root, inline}
		switch {
		case b.name == metaBucket:
			meta = &b
		case b.name == trashBucket:
			trash = &b
		case strings.HasPrefix(b.name, reservedNS):
			return c.problem("unknown reserved namespace %q", b.name)
		default:
			buckets = append(buckets, b)
		}
		return nil
	})
	if errors.Is(err, errEmptyRoot) {
		// bbolt's new file: an empty root page and no commit since.
		if c.meta.txid <= 1 {
			return boltCheck{fresh: true}, nil
		}
		err = c.problem("the root page has no elements")
	}
	if err != nil {
		return boltCheck{}, err
	}
	c.last = nil
	if meta == nil {
		return boltCheck{}, c.problem("a bbolt file without a %s namespace: not written by ptfsh", metaBucket)
	}
	c.ns = metaBucket
	c.sum = nsSum(metaBucket)
	var version []byte
	err = c.walk(meta.root, meta.inline, func(e leafElem) error {
		if e.flags != 0 || string(e.key) != versionKey {
			return c.problem("unexpected entry %q", e.key)
		}
		version = e.value
		return nil
	})
	if err != nil {
		return boltCheck{}, err
	}
	if version == nil {
		return boltCheck{}, c.problem("no format version")
	}
	v, err := parseVersion(c.sum, version)
	if err != nil {
		return boltCheck{}, &fileProblem{ns: metaBucket, key: []byte(versionKey), msg: err.Error()}
	}
	if v > FormatVersion {
		return boltCheck{version: v}, nil // OpenBolt refuses it; its values may differ
	}
	c.version = v
	if trash != nil {
		// Deleted namespaces whose pages are not yet free (bolt_trim.go):
		// under each sequence number a bucket that holds one namespace.
		c.ns = trashBucket
		var holders []bucket
		err := c.walk(trash.root, trash.inline, func(e leafElem) error {
			root, inline, err := c.bucket(e)
			if len(e.key) != 8 && err == nil {
				err = c.problem("unexpected entry %q", e.key)
			}
			holders = append(holders, bucket{string(e.key), root, inline})
			return err
		})
		for _, h := range holders {
			if err != nil {
				break
			}
			err = c.walk(h.root, h.inline, func(e leafElem) error {
				root, inline, err := c.bucket(e)
				buckets = append(buckets, bucket{string(e.key), root, inline})
				return err
			})
		}
		if err != nil {
			return boltCheck{}, err
		}
	}
	for _, b := range buckets {
		c.ns, c.sum = b.name, nsSum(b.name)
		err := c.walk(b.root, b.inline, func(e leafElem) error {
			if e.flags != 0 {
				return c.problem("a namespace inside a namespace")
			}
			if c.version >= 2 {
				if _, err := openValue(c.sum, e.key, e.value); err != nil {
					return &fileProblem{ns: c.ns, key: bytes.Clone(e.key), msg: err.Error()}
				}
			}
			return nil
		})
		if err != nil {
			return boltCheck{}, err
		}
	}
	return boltCheck{version: c.version}, nil
}

// errEmptyRoot is returned by walk for a root page without elements. It is
// only an error in a file with commits.
var errEmptyRoot = errors.New("empty root page")

// parseVersion reads the format version stored under __meta/version: a
// value with a checksum (format 2 on), or 4 bytes holding 1 (format 1).
func parseVersion(metaSum uint32, stored []byte) (uint32, error) {
	if len(stored) == 4 {
		if v := binary.BigEndian.Uint32(stored); v == 1 {
			return 1, nil
		}
		return 0, fmt.Errorf("invalid format version %x", stored)
	}
	v, err := openValue(metaSum, []byte(versionKey), stored)
	if err != nil {
		return 0, fmt.Errorf("format version: %v", err)
	}
	if len(v) != 4 || binary.BigEndian.Uint32(v) < 2 {
		return 0, fmt.Errorf("invalid format version %x", v)
	}
	return binary.BigEndian.Uint32(v), nil
}
