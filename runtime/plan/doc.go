// Package plan turns a query's AST (sqlmini) into a tree of runtime/exec
// nodes, resolving names against the catalog and the query's WITH clauses.
// It applies Flink's rules for PTF calls (plan_call.go binds the arguments;
// plan_rules.go checks the shape of a call, its time attribute and infers
// changelog modes), plans GROUP BY and HAVING (aggregate.go), SELECT
// DISTINCT (a GROUP BY), ORDER BY (a Top-N with LIMIT, else a sort on
// a time attribute, Flink's streaming rules), OVER windows (over.go),
// ROW_NUMBER's Top-N and deduplication idioms (rank.go), and the window
// table functions with window aggregation (window.go) and window Top-N
// and deduplication (window_rank.go). A Planner sees the
// catalog and what sources take from the session's settings
// ([connector.Env]), not the session itself.
package plan
