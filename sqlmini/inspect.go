package sqlmini

import "reflect"

// Inspect calls f for node and for every node of the tree below it, parents
// first, in the order of the fields.
func Inspect(node any, f func(any)) {
	inspect(reflect.ValueOf(node), f)
}

func inspect(v reflect.Value, f func(any)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return
		}
		f(v.Interface())
		inspect(v.Elem(), f)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				inspect(v.Field(i), f)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			inspect(v.Index(i), f)
		}
	}
}
