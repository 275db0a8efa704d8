// Package catalog holds a session's tables, views and functions. Function
// names are looked up case-insensitively, as in Flink, table names
// case-sensitively; temporary functions shadow catalog functions of the
// same name. The Suggest methods propose a close name for a misspelled one.
package catalog
