// Package ptf is the contract between ptfsh and a Process Table Function:
// the declaration (FuncDef, ArgDecl with Flink's argument traits, StateDecl)
// and what one call sees (Context). A PTF is any type with Eval and OnTimer
// (the PTF interface): script's JavaScript functions and stdlib's Go
// functions satisfy the same contract, and the PTF operator of
// runtime/exec serves the calls through the Host interface.
//
// It also parses type strings as written in SQL or in a JS declaration
// (ParseType), since a declaration's types are part of the contract.
// script, stdlib and export/flink depend on this package and runtime/types
// only, never on the SQL engine.
package ptf
