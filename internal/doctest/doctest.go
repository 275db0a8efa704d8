// Package doctest reads the documentation's pages (README.md and the pages
// under docs/) into the fenced blocks that the doc tests execute:
// tests/docs_test.go runs the SQL, the functions and the excerpts, and
// cmd/ptfsh/docs_test.go runs the "$ ptfsh ..." command lines through the
// command itself.
//
// # Directives
//
// A block is checked by its language, or by a directive: an HTML comment
// on the last line before it, which a reader of the rendered page does not
// see.
//
//	<!-- doc: file NAME -->      the block is the file NAME of the page's
//	                             scratch folder (a function, a data file, a
//	                             test file)
//	<!-- doc: run [in DIR] [as NAME] -->
//	                             the sql block runs as ptfsh test runs a
//	                             query.sql (each statement, results and
//	                             errors together) in the page's scratch
//	                             folder, or in DIR of the repository, and
//	                             the next block (no language, or text) is
//	                             what it prints; "as NAME" also saves it as
//	                             the file NAME
//	<!-- doc: excerpt PATH -->   the block's lines are lines of PATH, in
//	                             order; a line "..." stands for lines of
//	                             PATH left out
//	<!-- doc: checked-by PATH[, PATH] -->
//	                             what the tests PATH run (a terminal, a
//	                             Maven build, a watch loop): PATH must exist
//
// Without a directive, an sql block must parse, a js or ts block must load
// as a function, and a block whose lines start with "$ ptfsh " is a list of
// commands, each followed by what it prints (stdout; stderr too when the
// command ends with 2>&1). Every other block needs a directive, and an
// indented code block is an error (fence it), so that nothing shown goes
// unchecked. The blocks of a page share one scratch folder, in page order.
package doctest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Block is a fenced block of a page.
type Block struct {
	// Line is the 1-based line of the opening fence.
	Line int
	// Lang is the word after the opening fence ("sql", "js", "" ...).
	Lang string
	// Body is the lines inside, each ending with "\n".
	Body string
	// Verb and Arg are the directive before the block ("run", "in examples"),
	// "" when there is none.
	Verb, Arg string
	// Start and End index the page's lines: the first line inside and the
	// closing fence.
	Start, End int
}

var (
	directiveRe   = regexp.MustCompile(`^<!-- doc: (.*) -->$`)
	orderedItemRe = regexp.MustCompile(`^\d+\. `)
)

// Pages lists README.md and every .md file under docs/ of the repository
// at root, relative to root with forward slashes, README.md first and the
// others sorted.
func Pages(root string) ([]string, error) {
	pages := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			pages = append(pages, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(pages[1:])
	return pages, err
}

// FlinkPages are pages of Flink's own material: their blocks show what
// Flink prints, and tests/conformance_test.go holds ptfsh to them through
// the archives of tests/testdata/conformance. The doc tests check their
// links, not their blocks.
var FlinkPages = map[string]bool{
	"docs/conformance/flink-cases.md":  true,
	"docs/conformance/doc-examples.md": true,
}

// ReadPage returns the lines of a page of the repository at root.
func ReadPage(root, page string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		return nil, err
	}
	return strings.Split(string(b), "\n"), nil
}

// PageBlocks reads a page of the repository at root: its lines and its
// fenced blocks (Blocks).
func PageBlocks(root, page string) ([]string, []Block, error) {
	lines, err := ReadPage(root, page)
	if err != nil {
		return nil, nil, err
	}
	blocks, err := Blocks(lines)
	if err != nil {
		return nil, nil, fmt.Errorf("%s:%w", page, err)
	}
	return lines, blocks, nil
}

// Rewrite writes a page of the repository at root with the replacements
// made (for the tests' -update); no replacements, no write.
func Rewrite(root, page string, lines []string, repls []Replacement) error {
	if len(repls) == 0 {
		return nil
	}
	return WriteFile(filepath.Join(root, page), strings.Join(Replaced(lines, repls), "\n"))
}

// Blocks returns the fenced blocks of a page's lines, and an error for a
// fence left open or an indented code block, which no rule could check.
func Blocks(lines []string) ([]Block, error) {
	var blocks []Block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "    ") && i > 0 && strings.TrimSpace(lines[i-1]) == "" && strings.TrimSpace(l) != "" && !inList(lines, i) {
			return nil, fmt.Errorf("line %d: an indented code block: fence it (```) so that the doc tests check it", i+1)
		}
		if !strings.HasPrefix(l, "```") {
			continue
		}
		b := Block{Line: i + 1, Lang: strings.TrimSpace(l[3:]), Start: i + 1}
		for k := i - 1; k >= 0; k-- {
			if s := strings.TrimSpace(lines[k]); s != "" {
				if m := directiveRe.FindStringSubmatch(s); m != nil {
					b.Verb, b.Arg, _ = strings.Cut(strings.TrimSpace(m[1]), " ")
					b.Arg = strings.TrimSpace(b.Arg)
				}
				break
			}
		}
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(lines[j], "```") {
			j++
		}
		if j == len(lines) {
			return nil, fmt.Errorf("line %d: the block is not closed", i+1)
		}
		if j > i+1 {
			b.Body = strings.Join(lines[i+1:j], "\n") + "\n"
		}
		b.End = j
		blocks = append(blocks, b)
		i = j
	}
	return blocks, nil
}

// inList says whether line i continues a list item: the paragraph above
// it starts with "- ", "* " or "1. ".
func inList(lines []string, i int) bool {
	for k := i - 1; k >= 0; k-- {
		s := lines[k]
		if strings.TrimSpace(s) == "" || strings.HasPrefix(s, " ") {
			continue
		}
		return strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "* ") || orderedItemRe.MatchString(s)
	}
	return false
}

// RunArgs reads the argument of a run directive, "[in DIR] [as NAME]":
// the folder of the repository to run in ("" for the scratch folder) and
// the name to save the statements as ("" for none).
func RunArgs(arg string) (dir, name string, err error) {
	f := strings.Fields(arg)
	for len(f) >= 2 {
		switch f[0] {
		case "in":
			dir = f[1]
		case "as":
			name = f[1]
		default:
			return "", "", fmt.Errorf("doc: run %s: want [in DIR] [as NAME]", arg)
		}
		f = f[2:]
	}
	if len(f) != 0 {
		return "", "", fmt.Errorf("doc: run %s: want [in DIR] [as NAME]", arg)
	}
	return dir, name, nil
}

// Command is one command line of a command block and what the page shows
// it print.
type Command struct {
	// Line is the command line without its "$ ".
	Line string
	// Want is the lines after it, up to the next command.
	Want string
}

// Commands splits a block of "$ ptfsh ..." lines into its commands; false
// when the block is not one (its first line is not a command of ptfsh).
func Commands(body string) ([]Command, bool) {
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if body == "" || !strings.HasPrefix(lines[0], "$ ptfsh ") {
		return nil, false
	}
	var cmds []Command
	for j := 0; j < len(lines); j++ {
		if !strings.HasPrefix(lines[j], "$ ptfsh ") {
			return nil, false
		}
		c := Command{Line: strings.TrimPrefix(lines[j], "$ ")}
		for j+1 < len(lines) && !strings.HasPrefix(lines[j+1], "$ ") {
			j++
			c.Want += lines[j] + "\n"
		}
		cmds = append(cmds, c)
	}
	return cmds, true
}

// ShellWords splits a command line as sh does for plain words and
// "double" or 'single' quoted ones (no escapes, no expansions).
func ShellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words
}

// Replacement is a block's new lines, for the tests' -update.
type Replacement struct {
	Start, End int
	Lines      []string
}

// NewBody is the replacement of the lines inside block b by body.
func NewBody(b Block, body string) Replacement {
	var l []string
	if body != "" {
		l = strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	}
	return Replacement{b.Start, b.End, l}
}

// Replaced returns the page's lines with the replacements made; they must
// be in page order and not overlap.
func Replaced(lines []string, repls []Replacement) []string {
	out := append([]string(nil), lines...)
	for k := len(repls) - 1; k >= 0; k-- {
		r := repls[k]
		out = append(out[:r.Start], append(append([]string(nil), r.Lines...), out[r.End:]...)...)
	}
	return out
}

// ScratchPath is the path of the file name of a file or run directive in
// the scratch folder: an error for a name that is empty, absolute or
// would leave the folder.
func ScratchPath(scratch, name string) (string, error) {
	if name == "" || filepath.IsAbs(name) || !filepath.IsLocal(name) {
		return "", fmt.Errorf("doc: the file name %q is not a relative path inside the page's folder", name)
	}
	return filepath.Join(scratch, name), nil
}

// WriteFile writes a file of a page's scratch folder, making its folders.
func WriteFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

// CheckExcerpt checks that the lines of body are lines of the file at
// path, in order, a "..." line standing for lines of the file left out.
func CheckExcerpt(path, body string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	file := strings.Split(string(b), "\n")
	var segments [][]string
	cur := []string{}
	for _, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if strings.TrimSpace(l) == "..." {
			segments = append(segments, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, l)
	}
	segments = append(segments, cur)
	at := 0
	for _, seg := range segments {
		if len(seg) == 0 {
			continue
		}
		found := -1
		for k := at; k+len(seg) <= len(file); k++ {
			if equal(file[k:k+len(seg)], seg) {
				found = k
				break
			}
		}
		if found < 0 {
			return fmt.Errorf("these lines are not in %s (after its line %d):\n%s", path, at, strings.Join(seg, "\n"))
		}
		at = found + len(seg)
	}
	return nil
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
