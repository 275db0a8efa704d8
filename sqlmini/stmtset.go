package sqlmini

import "github.com/alecthomas/participle/v2/lexer"

// endTracker decides which semicolons end a statement, for Split and
// Complete. A statement set, EXECUTE STATEMENT SET BEGIN insert; ... END
// (or EXPLAIN ... STATEMENT SET BEGIN ... END), holds semicolons that end
// its INSERTs but not the statement: only the semicolon after its END does
// (an END that closes no CASE).
//
// A statement is such a block when it has the words STATEMENT SET in a row,
// or BEGIN right before INSERT, wherever they are: the rule is lexical, so
// that a statement set whose head is misspelt (EXPLIAN STATEMENT SET ...,
// EXECUTE STATEMENT SET BEGN ...) is still one statement, which fails to
// parse as a whole, and none of its INSERTs runs on its own. A block
// without its END runs to the end of the source. The SQL client's BEGIN
// STATEMENT SET, which starts a statement, is no block: it and the
// statements up to END are statements of their own, as in Flink's client.
type endTracker struct {
	block bool   // the statement is a block: it ends at END ;
	cases int    // CASEs open: their END is not the block's
	n     int    // tokens of the statement so far
	first string // its first token, a word upper-cased
	prev  string // the last token, a word upper-cased
	end   bool   // the last token is the block's END
}

// ends takes the next token of the source (not trivia, not EOF) and
// reports whether it is the semicolon that ends the statement. After a
// true result the tracker starts on the next statement.
func (e *endTracker) ends(tok lexer.Token) bool {
	v := tok.Value
	if tok.Type == opType && v == ";" {
		if !e.block || e.end {
			*e = endTracker{}
			return true
		}
		e.prev, e.end = ";", false
		return false
	}
	e.end = false
	if tok.Type == identType || tok.Type == keywordType {
		v = upper(v)
		switch {
		case v == "SET" && e.prev == "STATEMENT":
			e.block = e.n != 2 || e.first != "BEGIN"
		case v == "INSERT" && e.prev == "BEGIN":
			e.block = true
		case v == "CASE":
			e.cases++
		case v == "END" && e.cases > 0:
			e.cases--
		case v == "END":
			e.end = true
		}
	}
	if e.n == 0 {
		e.first = v
	}
	e.n++
	e.prev = v
	return false
}
