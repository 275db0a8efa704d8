package sqlmini

import "github.com/alecthomas/participle/v2/lexer"

// endTracker decides which semicolons end a statement, for Split and
// Complete. A statement set, EXECUTE STATEMENT SET BEGIN insert; ... END,
// holds semicolons that end its INSERTs but not the statement: only the
// semicolon after its END does (an END that follows a semicolon or BEGIN,
// so that a table named end inside an INSERT does not count).
type endTracker struct {
	n     int       // tokens of the statement so far
	head  int       // how many of EXECUTE STATEMENT SET BEGIN it starts with
	block bool      // the statement is a statement set
	prev  [2]string // the last two tokens, words upper-cased, latest first
}

// setHead is how a statement set starts.
var setHead = [...]string{"EXECUTE", "STATEMENT", "SET", "BEGIN"}

// ends takes the next token of the source (not trivia, not EOF) and
// reports whether it is the semicolon that ends the statement. After a
// true result the tracker starts on the next statement.
func (e *endTracker) ends(tok lexer.Token) bool {
	v := tok.Value
	if tok.Type == opType && v == ";" {
		if !e.block || e.prev[0] == "END" && (e.prev[1] == ";" || e.prev[1] == "BEGIN") {
			*e = endTracker{}
			return true
		}
		e.push(";")
		return false
	}
	if tok.Type == identType || tok.Type == keywordType {
		v = upper(v)
	}
	if e.n < len(setHead) && e.head == e.n && v == setHead[e.n] {
		e.head++
		e.block = e.head == len(setHead)
	}
	e.n++
	e.push(v)
	return false
}

func (e *endTracker) push(v string) { e.prev[1], e.prev[0] = e.prev[0], v }
