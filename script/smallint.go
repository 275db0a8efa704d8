package script

import (
	"reflect"
	"sync"

	"github.com/dop251/goja"
)

// smallIntMin and smallIntCount bound the integers whose JavaScript and
// Go values are made once, for every realm: rows and state hand out small
// amounts, counts and delays (early departures are negative) all the
// time, and boxing an int64 outside 0..255 allocates (goja keeps only
// -128..127). A view time of 683 read from a row and collected again cost
// two allocations a row.
const (
	smallIntMin   = -1024
	smallIntCount = 4096 // from 0: the tables hold smallIntMin..smallIntCount-1
	smallIntSpan  = smallIntCount - smallIntMin
)

var (
	smallJS   [smallIntSpan]goja.Value // goja's value of each small integer
	smallGo   [smallIntSpan]any        // each small integer as an int64 in an interface
	smallOnce sync.Once
	typeInt   = reflect.TypeOf(int64(0))
)

// initSmallInts fills the tables with the first realm's runtime (an
// integer's value belongs to no runtime).
func initSmallInts(vm *goja.Runtime) {
	smallOnce.Do(func() {
		for i := range smallIntSpan {
			smallJS[i] = vm.ToValue(int64(i + smallIntMin))
			smallGo[i] = int64(i + smallIntMin)
		}
	})
}

// intJS is the JavaScript value of an integer within ±2^53.
func (e *realm) intJS(i int64) goja.Value {
	if uint64(i-smallIntMin) < smallIntSpan {
		return smallJS[i-smallIntMin]
	}
	return e.vm.ToValue(i)
}

// boxInt is i as an int64 in an interface, shared when it is small.
func boxInt(i int64) any {
	if uint64(i-smallIntMin) < smallIntSpan {
		return smallGo[i-smallIntMin]
	}
	return i
}
