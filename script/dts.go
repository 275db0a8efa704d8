package script

import _ "embed"

// TypeDefinitions is ptf.d.ts: TypeScript declarations of the whole JS
// API (the declaration object, ctx, timeContext, TableSemantics,
// ChangelogMode, Row, RowKind, state kinds) for editors. A command may
// write it beside a user's function files.
//
//go:embed ptf.d.ts
var TypeDefinitions string
