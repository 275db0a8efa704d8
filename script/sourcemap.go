package script

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// sourceMap is a decoded source map (version 3) of one compiled program:
// it maps positions of the code goja runs back to the user's files.
//
// It exists instead of goja's own source-map support (parser.WithSourceMapLoader)
// because we want control over the file names shown to the user (the names
// esbuild writes are relative to the output file, and an inline function has
// no file at all) and because goja hands the decoder 1-based columns where
// the format has 0-based ones.
type sourceMap struct {
	sources  []string // display names, index = source index
	contents []string // sourcesContent, "" when absent
	lines    [][]mapping
	// lineShift is the number of lines our own wrapper adds in front of the
	// code the map describes (the generated line n of the map is line
	// n+lineShift of the program goja runs).
	lineShift int
}

// mapping is one segment: a generated column (0-based) and the original
// source, line and column (0-based, in UTF-16 units as the format has it).
type mapping struct {
	genCol  int
	src     int // -1: no source
	srcLine int
	srcCol  int
}

type rawSourceMap struct {
	Version        int       `json:"version"`
	Sources        []string  `json:"sources"`
	SourcesContent []*string `json:"sourcesContent"`
	Mappings       string    `json:"mappings"`
}

// parseSourceMap decodes a source map. rename turns each entry of
// "sources" into the name shown to the user.
func parseSourceMap(data []byte, rename func(string) string) (*sourceMap, error) {
	var raw rawSourceMap
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	if raw.Version != 3 {
		return nil, errors.New("source map: unsupported version")
	}
	m := &sourceMap{
		sources:  make([]string, len(raw.Sources)),
		contents: make([]string, len(raw.Sources)),
	}
	for i, s := range raw.Sources {
		m.sources[i] = rename(s)
		if i < len(raw.SourcesContent) && raw.SourcesContent[i] != nil {
			m.contents[i] = *raw.SourcesContent[i]
		}
	}
	var src, srcLine, srcCol int
	for _, text := range strings.Split(raw.Mappings, ";") {
		var line []mapping
		genCol := 0
		for _, seg := range strings.Split(text, ",") {
			if seg == "" {
				continue
			}
			var f [5]int
			n := 0
			for seg != "" {
				v, rest, err := decodeVLQ(seg)
				if err != nil {
					return nil, err
				}
				if n < len(f) {
					f[n] = v
				}
				n++
				seg = rest
			}
			genCol += f[0]
			mp := mapping{genCol: genCol, src: -1}
			if n >= 4 {
				src += f[1]
				srcLine += f[2]
				srcCol += f[3]
				mp.src, mp.srcLine, mp.srcCol = src, srcLine, srcCol
			}
			line = append(line, mp)
		}
		m.lines = append(m.lines, line)
	}
	return m, nil
}

const vlqChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var errVLQ = errors.New("source map: bad VLQ")

func decodeVLQ(s string) (int, string, error) {
	v, shift := 0, 0
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(vlqChars, s[i])
		if d < 0 {
			return 0, "", errVLQ
		}
		v |= (d & 31) << shift
		shift += 5
		if d&32 == 0 {
			if v&1 != 0 {
				return -(v >> 1), s[i+1:], nil
			}
			return v >> 1, s[i+1:], nil
		}
	}
	return 0, "", errVLQ
}

// original maps a 1-based line and column of the program goja runs to the
// user's file, line and column (1-based, in characters).
func (m *sourceMap) original(line, col int) (file string, l, c int, ok bool) {
	if m == nil {
		return "", 0, 0, false
	}
	line -= m.lineShift
	if line < 1 || line > len(m.lines) {
		return "", 0, 0, false
	}
	segs := m.lines[line-1]
	col-- // 0-based
	i := sort.Search(len(segs), func(i int) bool { return segs[i].genCol > col }) - 1
	for ; i >= 0 && segs[i].src < 0; i-- {
	}
	if i < 0 {
		// Before the first segment of the line: use the first one.
		for i = 0; i < len(segs) && segs[i].src < 0; i++ {
		}
		if i == len(segs) {
			return "", 0, 0, false
		}
	}
	sg := segs[i]
	if sg.src >= len(m.sources) {
		return "", 0, 0, false
	}
	return m.sources[sg.src], sg.srcLine + 1, m.charColumn(sg.src, sg.srcLine, sg.srcCol) + 1, true
}

// charColumn converts a 0-based UTF-16 column of a source line into a
// 0-based character (rune) column, using the source text when the map
// carries it.
func (m *sourceMap) charColumn(src, line, col16 int) int {
	text := m.contents[src]
	if text == "" {
		return col16
	}
	for ; line > 0; line-- {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			return col16
		}
		text = text[i+1:]
	}
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	return utf16ToRunes(text, col16)
}

// utf16ToRunes returns how many runes of text the first n UTF-16 units cover.
func utf16ToRunes(text string, n int) int {
	runes := 0
	for n > 0 && text != "" {
		r, size := utf8.DecodeRuneInString(text)
		text = text[size:]
		n -= utf16.RuneLen(r)
		runes++
	}
	return runes + max(n, 0)
}

// byteToRuneColumn converts a 0-based byte column of a line into a 0-based
// rune column.
func byteToRuneColumn(line string, col int) int {
	if col > len(line) {
		return utf8.RuneCountInString(line) + col - len(line)
	}
	return utf8.RuneCountInString(line[:col])
}

// lineText returns line (1-based) of source file, "" when the map does not
// carry that source's text.
func (m *sourceMap) lineText(file string, line int) string {
	for i, name := range m.sources {
		if name == file && m.contents[i] != "" {
			return nthLine(m.contents[i], line)
		}
	}
	return ""
}

// nthLine returns line n (1-based) of text without its line end; "" when
// text is shorter. Lines end as JavaScript's do: LF, CR, CRLF, U+2028 or
// U+2029.
func nthLine(text string, n int) string {
	start := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch r {
		case '\r', '\n', '\u2028', '\u2029':
			if n == 1 {
				return text[start:i]
			}
			if r == '\r' && i+1 < len(text) && text[i+1] == '\n' {
				size = 2
			}
			n--
			start = i + size
		}
		i += size
	}
	if n == 1 {
		return text[start:]
	}
	return ""
}

// badUTF8 locates the first byte of a text that is not UTF-8.
type badUTF8 struct {
	b      byte
	line   int    // 1-based, in JavaScript's lines
	before string // the line up to the byte, made valid
	text   string // the whole line, made valid (U+FFFD for bad bytes)
}

// firstInvalidUTF8 finds the first byte of text that is not UTF-8.
func firstInvalidUTF8(text string) (badUTF8, bool) {
	if utf8.ValidString(text) {
		return badUTF8{}, false
	}
	line, start := 1, 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			full := nthLine(text[start:], 1)
			return badUTF8{b: text[i], line: line,
				before: strings.ToValidUTF8(text[start:i], "\uFFFD"),
				text:   strings.ToValidUTF8(full, "\uFFFD")}, true
		case r == '\r' || r == '\n' || r == '\u2028' || r == '\u2029':
			if r == '\r' && i+1 < len(text) && text[i+1] == '\n' {
				size = 2
			}
			line++
			start = i + size
		}
		i += size
	}
	return badUTF8{}, false
}

func (b badUTF8) message() string {
	return fmt.Sprintf("invalid UTF-8 (byte 0x%02x): a function's source must be UTF-8 text", b.b)
}
