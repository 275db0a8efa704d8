package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// prepare makes a workload's run folder: a copy of each script its ptfsh
// engines run (with their preamble), the function file and the data
// beside it as symbolic links, so that the scripts' relative paths work.
func prepare(c config, e *env, w workload) (string, error) {
	dir := filepath.Join(e.work, "runs", w.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	links := map[string]string{w.data.file(): e.data[w.data]}
	if w.fn != "" { // a workload in SQL alone has none
		links[filepath.Base(w.fn)] = filepath.Join(c.root, w.fn)
	}
	for _, f := range w.files {
		links[f] = filepath.Join(c.root, "bench", "workloads", f)
	}
	for _, en := range w.engines {
		if en.kind == "duckdb" {
			links[en.script] = filepath.Join(c.root, "bench", "workloads", en.script)
			links["duckdb_run.py"] = filepath.Join(c.root, "bench", "workloads", "duckdb_run.py")
		}
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			return "", err
		}
	}
	for _, en := range w.engines {
		if en.kind != "ptfsh" {
			continue
		}
		src, err := os.ReadFile(filepath.Join(c.root, "bench", "workloads", en.scriptOf(w)))
		if err != nil {
			return "", err
		}
		if en.kafka {
			src = []byte(strings.ReplaceAll(string(src), "${KAFKA}", e.kafka))
		}
		if err := os.WriteFile(filepath.Join(dir, en.scriptFile(w)), append([]byte(en.preamble), src...), 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func (en engine) scriptOf(w workload) string {
	if en.script != "" {
		return en.script
	}
	return w.script
}

// scriptFile is the name of the engine's copy of its script.
func (en engine) scriptFile(w workload) string {
	if en.preamble == "" {
		return en.scriptOf(w)
	}
	return strings.TrimSuffix(en.scriptOf(w), ".sql") + "." + slug(en.name) + ".sql"
}

func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// command is the child process of one run of an engine; its stdout is
// left to the caller.
func (en engine) command(c config, e *env, w workload, dir string) *exec.Cmd {
	var cmd *exec.Cmd
	switch en.kind {
	case "ptfsh":
		args := append([]string{}, en.flags...)
		if en.state {
			args = append(args, "--state", filepath.Join(dir, "state.db"))
		}
		if en.sinkFile == "" && len(w.sinks) == 0 {
			args = append(args, "--format", "csv")
		}
		args = append(args, "-f", en.scriptFile(w))
		cmd = exec.Command(e.ptfsh, args...)
	case "node":
		args := []string{filepath.Join(c.root, "bench", "node", "harness.mjs"),
			"--fn", filepath.Join(c.root, w.fn), "--input", w.data.file()}
		cmd = exec.Command(e.node, append(args, w.node...)...)
	case "node-tuned":
		// The workload's name is plain Go's (-workload filter|count|greeting).
		cmd = exec.Command(e.node, filepath.Join(c.root, "bench", "node", "tuned.mjs"),
			"--workload", w.plain[1], "--input", w.data.file())
	case "go":
		cmd = exec.Command(e.plain, append(append([]string{}, w.plain...), w.data.file())...)
	case "duckdb":
		cmd = exec.Command(e.python, "duckdb_run.py", en.script)
	default:
		panic("unknown engine kind " + en.kind)
	}
	cmd.Dir = dir
	return cmd
}

// available reports whether the engine can run here (Node and DuckDB may
// be absent).
func (en engine) available(e *env) bool {
	switch en.kind {
	case "node", "node-tuned":
		return e.node != ""
	case "duckdb":
		return e.duckdbVersion != ""
	}
	return true
}

type measurement struct {
	wall   time.Duration
	cpu    time.Duration // user and system time of the child
	rssKiB int64         // peak resident set size of the child
}

// runOnce runs an engine once with stdout going to out (a file: /dev/null
// or a check's output) and measures the child. A run that fails is an
// error with its stderr.
func runOnce(c config, e *env, w workload, en engine, dir string, out *os.File) (measurement, error) {
	if en.state {
		os.Remove(filepath.Join(dir, "state.db"))
	}
	if en.sinkFile != "" {
		os.Remove(filepath.Join(dir, en.sinkFile))
	}
	for _, s := range w.sinks {
		os.Remove(filepath.Join(dir, s.file))
	}
	cmd := en.command(c, e, w, dir)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return measurement{}, fmt.Errorf("%s on %s: %v\n$ cd %s && %s\n%s", en.name, w.name, err, dir, strings.Join(cmd.Args, " "), stderr.String())
	}
	m := measurement{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rssKiB = int64(ru.Maxrss)
		if runtime.GOOS == "darwin" {
			m.rssKiB /= 1024 // bytes there, KiB on Linux
		}
	}
	return m, nil
}
