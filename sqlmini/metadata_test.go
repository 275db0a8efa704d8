package sqlmini_test

import (
	"testing"

	"github.com/ptfsh/ptfsh/sqlmini"
)

func TestParse_metadataColumn(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"CREATE TABLE t (a INT, p INT METADATA FROM 'partition' VIRTUAL, ts TIMESTAMP_LTZ(3) METADATA, o BIGINT METADATA VIRTUAL) WITH ('connector' = 'kafka')",
			"CREATE TABLE t (a INT, p INT METADATA FROM 'partition' VIRTUAL, ts TIMESTAMP_LTZ(3) METADATA, o BIGINT METADATA VIRTUAL) WITH ('connector' = 'kafka')"},
		{"create table t (metadata int, virtual int) with ('connector'='kafka')",
			"CREATE TABLE t (metadata INT, virtual INT) WITH ('connector' = 'kafka')"},
	} {
		st, err := sqlmini.ParseStatement("t.sql", tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if got := st.String(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
