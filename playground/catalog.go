package playground

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/internal/testarchive"
)

// Lesson is a lesson or a lab of examples/, as the page's menu shows it.
type Lesson struct {
	// ID is its folder under examples/: lessons/1-event-time, labs/...
	ID string `json:"id"`
	// Title is the first line of its script's story.
	Title string `json:"title"`
	// Script is the script that tells it (lesson.sql, lab.sql).
	Script string `json:"script"`
	// Exercises are its test files.
	Exercises []Exercise `json:"exercises"`
}

// Exercise is a test file of a lesson: what it asks, and of which file.
type Exercise struct {
	// ID is the lesson's ID and the test file's name without .txtar.
	ID string `json:"id"`
	// Title is the first line of what it asks; Text all of it.
	Title string `json:"title"`
	Text  string `json:"text"`
	// Function is the function file the learner writes.
	Function string `json:"function"`
	// Hints is how many hints it has.
	Hints int `json:"hints"`
}

var functionFileRe = regexp.MustCompile(`(?i)CREATE\s+FUNCTION\s+\w+\s+AS\s+'([^']+\.(?:js|ts))'`)

// Catalog lists the lessons (examples/lessons/*) and labs
// (examples/labs/*) of an examples folder, with their exercises.
func Catalog(examples string) ([]Lesson, error) {
	if examples == "" {
		return nil, nil
	}
	var out []Lesson
	for _, group := range []string{"lessons", "labs"} {
		dirs, err := filepath.Glob(filepath.Join(examples, group, "*"))
		if err != nil {
			return nil, err
		}
		sort.Strings(dirs)
		for _, dir := range dirs {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || filepath.Base(dir) == "data" {
				continue
			}
			l := Lesson{ID: group + "/" + filepath.Base(dir)}
			scripts, _ := filepath.Glob(filepath.Join(dir, "*.sql"))
			if len(scripts) > 0 {
				l.Script = filepath.Base(scripts[0])
				if b, err := os.ReadFile(scripts[0]); err == nil {
					l.Title = storyTitle(string(b))
				}
			}
			if l.Title == "" {
				l.Title = filepath.Base(dir)
			}
			tests, _ := filepath.Glob(filepath.Join(dir, "*.txtar"))
			sort.Strings(tests)
			for _, f := range tests {
				test, err := testarchive.Read(f)
				if err != nil {
					continue
				}
				ex := Exercise{ID: l.ID + "/" + strings.TrimSuffix(filepath.Base(f), ".txtar"), Text: strings.TrimSpace(test.Comment()), Hints: len(test.Hints())}
				ex.Title = firstSentence(ex.Text)
				if m := functionFileRe.FindStringSubmatch(test.Query); m != nil {
					ex.Function = m[1]
				}
				l.Exercises = append(l.Exercises, ex)
			}
			out = append(out, l)
		}
	}
	return out, nil
}

// storyTitle is the first line of a script's leading comment.
func storyTitle(src string) string {
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "--") {
			return ""
		}
		if t := strings.TrimSpace(strings.TrimPrefix(l, "--")); t != "" {
			return strings.TrimSuffix(t, ".")
		}
	}
	return ""
}

// firstSentence is a text's first sentence, on one line, without its
// period.
func firstSentence(text string) string {
	flat := strings.Join(strings.Fields(text), " ")
	if i := strings.Index(flat, ". "); i >= 0 {
		flat = flat[:i]
	}
	return strings.TrimSuffix(flat, ".")
}
