package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// check runs every engine of every workload once, keeps what each prints
// (or writes to its sink file) and compares them as multisets of lines:
// the same count and the same SHA-256 of the sorted lines, the header
// included. Any difference, or an output with no rows, is an error.
func check(c config, e *env, ws []workload, stdout, stderr io.Writer) error {
	type job struct {
		w   workload
		en  engine
		dir string
		out string
	}
	var jobs []*job
	for _, w := range ws {
		dir, err := prepare(c, e, w)
		if err != nil {
			return err
		}
		for _, en := range w.engines {
			if !en.available(e) {
				continue
			}
			// Engines that need files of their own in the folder get a
			// folder of their own.
			d := dir
			if en.state || en.sinkFile != "" || len(w.sinks) > 0 {
				d = filepath.Join(dir, slug(en.name))
				if err := linkAll(dir, d); err != nil {
					return err
				}
			}
			jobs = append(jobs, &job{w: w, en: en, dir: d, out: filepath.Join(dir, slug(en.name)+".out")})
		}
	}
	// No timing here: the runs go two at a time.
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			f, err := os.Create(j.out)
			if err != nil {
				errs[i] = err
				return
			}
			defer f.Close()
			if _, err := runOnce(c, e, j.w, j.en, j.dir, f); err != nil {
				errs[i] = err
				return
			}
			if j.en.sinkFile != "" {
				j.out = filepath.Join(j.dir, j.en.sinkFile)
			}
			if len(j.w.sinks) > 0 {
				j.out = filepath.Join(j.dir, "sinks.out")
				errs[i] = gatherSinks(e, j.w.sinks, j.dir, j.out)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}

	fmt.Fprintf(stdout, "check: %s input rows per workload, the output of each engine as a multiset of lines\n\n", thousands(c.rows))
	fmt.Fprintln(stdout, "| workload | engine | lines | sha256 of the sorted lines | |")
	fmt.Fprintln(stdout, "|---|---|---:|---|---|")
	var failed []string
	var first *summary
	var firstW string
	for _, j := range jobs {
		s, err := summarize(j.out)
		if err != nil {
			return err
		}
		verdict := "ok"
		if firstW != j.w.name {
			first, firstW = &s, j.w.name
		}
		switch {
		case s.lines < 2:
			verdict = "NO ROWS"
			failed = append(failed, fmt.Sprintf("%s: %s printed no rows", j.w.name, j.en.name))
		case s != *first:
			verdict = "MISMATCH"
			failed = append(failed, fmt.Sprintf("%s: %s differs from %s (%s)", j.w.name, j.en.name, j.w.engines[0].name, j.out))
		}
		fmt.Fprintf(stdout, "| %s | %s | %d | %x | %s |\n", j.w.name, j.en.name, s.lines, s.sum[:8], verdict)
	}
	if len(failed) > 0 {
		for _, f := range failed {
			fmt.Fprintln(stderr, "MISMATCH", f)
		}
		return fmt.Errorf("%d of %d outputs do not agree (run with -keep to look at them)", len(failed), len(jobs))
	}
	fmt.Fprintf(stdout, "\nall %d outputs agree\n", len(jobs))
	return nil
}

// gatherSinks writes the lines of a run's sink files into out, each line
// after its file's name; Parquet sinks are printed as CSV by ptfsh.
func gatherSinks(e *env, sinks []sink, dir, out string) error {
	var b bytes.Buffer
	for _, s := range sinks {
		path := filepath.Join(dir, s.file)
		var text []byte
		var err error
		if s.schema == "" {
			text, err = os.ReadFile(path)
		} else {
			q := fmt.Sprintf("CREATE TABLE s (%s) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'parquet');\nSELECT * FROM s;\n",
				s.schema, strings.ReplaceAll(path, "'", "''"))
			cmd := exec.Command(e.ptfsh, "--format", "csv", "-e", q)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			text, err = cmd.Output()
			if err != nil {
				err = fmt.Errorf("reading %s back: %v\n%s", path, err, stderr.String())
			}
		}
		if err != nil {
			return err
		}
		for _, line := range strings.SplitAfter(string(text), "\n") {
			if line != "" {
				fmt.Fprintf(&b, "%s: %s", s.file, line)
			}
		}
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}

type summary struct {
	lines int
	sum   [sha256.Size]byte
}

func summarize(path string) (summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return summary{}, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return summary{}, err
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	s := summary{lines: len(lines)}
	h.Sum(s.sum[:0])
	return s, nil
}

// linkAll fills dst with symbolic links to the files of src.
func linkAll(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, ent := range ents {
		if ent.IsDir() {
			continue
		}
		if err := os.Symlink(filepath.Join(src, ent.Name()), filepath.Join(dst, ent.Name())); err != nil {
			return err
		}
	}
	return nil
}
