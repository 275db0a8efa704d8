package sqlmini_test

import (
	"fmt"

	"github.com/ptfsh/ptfsh/sqlmini"
)

// Parse a script and print each statement back as canonical SQL.
func Example() {
	src := `CREATE TEMPORARY FUNCTION sessionize AS 'sessionize.js';
-- one session per user
select * from sessionize(input => table clicks partition by user_id order by ts,
                         gap => interval '30' minute);
SELECT * FRM clicks;`

	stmts, err := sqlmini.Parse("query.sql", src)
	for _, st := range stmts {
		fmt.Printf("%s: %s\n", st.Pos, st)
	}
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// query.sql:1:1: CREATE TEMPORARY FUNCTION sessionize AS 'sessionize.js'
	// query.sql:3:1: SELECT * FROM sessionize(input => TABLE clicks PARTITION BY user_id ORDER BY ts, gap => INTERVAL '30' MINUTE)
	// query.sql:5:10: unexpected token "FRM"
}
