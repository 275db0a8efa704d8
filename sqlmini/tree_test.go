package sqlmini_test

import (
	"fmt"
	"reflect"
	"strings"
)

// treeDiff compares two parse trees and describes the first difference,
// or returns "". It ignores positions and source text, and compares
// words the printer upper-cases (plain string fields and the language of
// CREATE FUNCTION) regardless of case; identifiers and literals must be
// equal.
func treeDiff(a, b any) string {
	return diffValue(reflect.ValueOf(a), reflect.ValueOf(b), "", false)
}

func diffValue(a, b reflect.Value, path string, fold bool) string {
	if a.Kind() != b.Kind() {
		return fmt.Sprintf("%s: kind %s vs %s", path, a.Kind(), b.Kind())
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: nil %v vs %v", path, a.IsNil(), b.IsNil())
			}
			return ""
		}
		return diffValue(a.Elem(), b.Elem(), path, fold)
	case reflect.Struct:
		for i := range a.NumField() {
			f := a.Type().Field(i)
			if f.Name == "Pos" || f.Name == "Text" {
				continue
			}
			fold := fold || f.Name == "Lang1" || f.Name == "Lang2"
			if d := diffValue(a.Field(i), b.Field(i), path+"."+f.Name, fold); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: len %d vs %d", path, a.Len(), b.Len())
		}
		for i := range a.Len() {
			if d := diffValue(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i), fold); d != "" {
				return d
			}
		}
		return ""
	case reflect.String:
		x, y := a.String(), b.String()
		if fold || a.Type() == reflect.TypeFor[string]() {
			if strings.EqualFold(x, y) {
				return ""
			}
		} else if x == y {
			return ""
		}
		return fmt.Sprintf("%s: %q vs %q", path, x, y)
	case reflect.Uint8: // a binary literal's bytes
		if a.Uint() != b.Uint() {
			return fmt.Sprintf("%s: %d vs %d", path, a.Uint(), b.Uint())
		}
		return ""
	case reflect.Bool:
		if a.Bool() != b.Bool() {
			return fmt.Sprintf("%s: %v vs %v", path, a.Bool(), b.Bool())
		}
		return ""
	}
	return fmt.Sprintf("%s: cannot compare %s", path, a.Kind())
}
