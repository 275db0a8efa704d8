package flink

import (
	"fmt"
	"strings"
	"unicode"
)

// ClassName is the Java class name of a function: the ASCII letters,
// digits and _ of its SQL name, the first letter upper-cased; "Fn" comes
// first when that does not start with a letter, and "Function" last when
// it is a name the project's Java uses otherwise (JsFunction, Row,
// String, ...). So any name gives a valid and harmless class name, the
// name of its file too.
func ClassName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r == '_' || isASCIILetter(r) || '0' <= r && r <= '9' {
			if b.Len() == 0 {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || !isASCIILetter(rune(s[0])) {
		s = "Fn" + s
	}
	if javaTakenClasses[s] {
		s += "Function"
	}
	return s
}

func isASCIILetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

// javaTakenClasses are the simple class names that the generated class
// and its neighbours use: a class of that name in package ptfsh.flink
// would hide them (or overwrite a generated file).
var javaTakenClasses = map[string]bool{}

func init() {
	for _, c := range strings.Fields(`JsFunction ExportedCasesTest ArgumentHint ArgumentTrait DataTypeHint
		StateHint FunctionContext ProcessTableFunction Row Context OnTimerContext TimeContext ListView MapView
		ChangelogMode ChangelogFunction ChangelogContext RowKind TableSemantics Object String Boolean Byte Short
		Integer Long Float Double Exception Override System Math Class Void Character Number JsRt`) {
		javaTakenClasses[c] = true
	}
}

// javaIdent is a Java identifier for a name: its ASCII letters, digits
// (but for the first character) and _, each other character as _. The
// caller adds _ after keywords (javaKeywords, _ included).
func javaIdent(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '_' || isASCIILetter(r) || (b.Len() > 0 && '0' <= r && r <= '9'):
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	if b.Len() == 0 {
		return "arg"
	}
	return b.String()
}

// javaString escapes s for the inside of a Java string literal: \, " and
// the control characters. These get \n, \r, \t or an octal escape of
// three digits, never \u: Java replaces a \u escape by its character
// before it reads the literal, so \u000a would end the line.
func javaString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\%03o`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// javaComment makes s safe inside a Java comment: backslashes doubled (no
// \u escape can make a line break), */ broken up and control characters
// shown as ?.
func javaComment(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "*/", `*\/`)
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' {
			return '?'
		}
		return r
	}, s)
}

// sqlIdent quotes name as a Flink SQL identifier: always between
// backquotes (Flink reserves more words than ptfsh), backquotes inside
// doubled.
func sqlIdent(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// sqlString quotes s as a Flink SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

var javaKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`abstract assert boolean break byte case catch char class const continue
		default do double else enum extends final finally float for goto if implements import instanceof
		int interface long native new package private protected public return short static strictfp super
		switch synchronized this throw throws transient try void volatile while true false null var record yield
		sealed permits _`) {
		javaKeywords[k] = true
	}
}
