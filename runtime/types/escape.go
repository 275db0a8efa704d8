package types

import (
	"strings"
	"unicode/utf8"
)

// Control characters in text meant for people. Data can hold any
// character, and a C0 control (U+0000 to U+001F), DEL (U+007F) or a C1
// control (U+0080 to U+009F) written to a terminal is not shown but
// obeyed: ESC [ 2 J clears the screen, ESC ] 0 ; ... BEL sets the
// window's title, a CR overwrites the line, U+009B starts a command in
// terminals that read C1 controls. Where ptfsh shows data to a person
// (results at a terminal, error messages, console.log) it writes each
// such character as an escape, the way Go and C spell them:
//
//	\a \b \t \n \v \f \r      for BEL, BS, TAB, LF, VT, FF, CR
//	\x00 ... \x1f, \x7f       for the other C0 controls and DEL (ESC is \x1b)
//	\u0080 ... \u009f         for the C1 controls
//	\xHH                      for a byte that is not UTF-8
//
// A backslash itself is left as it is, so that C:\dir and regular
// expressions read as they are written; the escapes are for reading, not
// for reading back. Every other character, non-ASCII letters and emoji
// included, is written as it is.

// HasControl reports whether s holds a character EscapeControls escapes.
func HasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f {
			return true
		}
		if c >= 0x80 {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size <= 1 || r >= 0x80 && r <= 0x9f {
				return true
			}
			i += size - 1
		}
	}
	return false
}

// EscapeControls returns s with its control characters escaped (see
// above), s itself when it has none.
func EscapeControls(s string) string {
	if !HasControl(s) {
		return s
	}
	return string(AppendEscaped(make([]byte, 0, len(s)+8), s, ""))
}

// EscapeControlsKeep is EscapeControls that leaves the characters of
// keep as they are (console output keeps its line breaks and tabs:
// "\n\t").
func EscapeControlsKeep(s, keep string) string {
	if !HasControl(s) {
		return s
	}
	return string(AppendEscaped(make([]byte, 0, len(s)+8), s, keep))
}

// AppendEscaped appends s to b with its control characters escaped, but
// those in keep.
func AppendEscaped(b []byte, s, keep string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			b = append(b, c)
			i++
			continue
		}
		if c < 0x80 {
			if keep != "" && strings.IndexByte(keep, c) >= 0 {
				b = append(b, c)
			} else {
				b = appendEscape(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
		case r >= 0x80 && r <= 0x9f:
			b = append(b, '\\', 'u', '0', '0', hexDigits[r>>4], hexDigits[r&15])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
}

// AppendEscapedBytes is AppendEscaped for a byte slice, keeping nothing.
func AppendEscapedBytes(b, s []byte) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return AppendEscaped(append(b, s[:i]...), string(s[i:]), "")
		}
	}
	return append(b, s...)
}

const hexDigits = "0123456789abcdef"

// appendEscape appends the escape of an ASCII control character.
func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '\a':
		return append(b, '\\', 'a')
	case '\b':
		return append(b, '\\', 'b')
	case '\t':
		return append(b, '\\', 't')
	case '\n':
		return append(b, '\\', 'n')
	case '\v':
		return append(b, '\\', 'v')
	case '\f':
		return append(b, '\\', 'f')
	case '\r':
		return append(b, '\\', 'r')
	}
	return append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
}
