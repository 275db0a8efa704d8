//go:build ptfsh_faults && unix

package fault

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	mu     sync.Mutex
	counts = map[string]int{}
	target string
	nth    int
	logf   *os.File
)

func init() {
	if spec := os.Getenv("PTFSH_FAULT"); spec != "" {
		i := strings.LastIndexByte(spec, ':')
		n, err := strconv.Atoi(spec[i+1:])
		if i < 0 || err != nil || n < 1 {
			panic(fmt.Sprintf("fault: PTFSH_FAULT=%q: want NAME:N", spec))
		}
		target, nth = spec[:i], n
	}
	if path := os.Getenv("PTFSH_FAULT_LOG"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			panic(fmt.Sprintf("fault: PTFSH_FAULT_LOG: %v", err))
		}
		logf = f
	}
}

// Point marks the place name of the commit path: it logs it, and kills
// the process with SIGKILL when it is the one PTFSH_FAULT names.
func Point(name string) {
	mu.Lock()
	defer mu.Unlock()
	counts[name]++
	if logf != nil {
		logf.WriteString(name + "\n")
	}
	if name == target && counts[name] == nth {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		for {
			time.Sleep(time.Second) // the signal is on its way
		}
	}
}
