package tests

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/ptfsh/ptfsh/internal/doctest"
	"github.com/ptfsh/ptfsh/runtime/connector"
)

var (
	linkRe = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	codeRe = regexp.MustCompile("`[^`]*`")
)

// pageText returns a page's lines outside fenced blocks, inline code
// removed, with their 1-based numbers.
func pageText(lines []string) map[int]string {
	text := map[int]string{}
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			text[i+1] = codeRe.ReplaceAllString(l, "")
		}
	}
	return text
}

// anchors returns the anchors GitHub gives the headings of a page: the
// heading in lower case, without punctuation, spaces as dashes, a repeated
// one numbered.
func anchors(lines []string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, l := range lines {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a]++
			a += "-" + string(rune('0'+n))
		} else {
			seen[a] = 1
		}
		out[a] = true
	}
	return out
}

// TestDocs_links checks every relative link of README.md and of the pages
// under docs/: the file it names exists, and so does the heading its
// anchor names.
func TestDocs_links(t *testing.T) {
	pages, err := doctest.Pages("..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, page := range pages {
		lines, err := doctest.ReadPage("..", page)
		if err != nil {
			t.Fatal(err)
		}
		text := pageText(lines)
		nums := make([]int, 0, len(text))
		for n := range text {
			nums = append(nums, n)
		}
		sort.Ints(nums)
		for _, n := range nums {
			for _, m := range linkRe.FindAllStringSubmatch(text[n], -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				file, anchor, _ := strings.Cut(target, "#")
				dest := page
				if file != "" {
					dest = path.Clean(path.Join(path.Dir(page), file))
				}
				if strings.HasPrefix(dest, "../") {
					t.Errorf("%s:%d: %s leaves the repository", page, n, target)
					continue
				}
				if _, err := os.Stat(filepath.Join("..", dest)); err != nil {
					t.Errorf("%s:%d: %s: no such file", page, n, target)
					continue
				}
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s:%d: %s: an anchor in a file that is not a page", page, n, target)
					continue
				}
				destLines, err := doctest.ReadPage("..", dest)
				if err != nil {
					t.Fatal(err)
				}
				if !anchors(destLines)[anchor] {
					t.Errorf("%s:%d: %s: %s has no heading #%s", page, n, target, dest, anchor)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no relative link was checked")
	}
}

// TestDocs_index checks that the docs' index (docs/README.md) and the map
// of README.md link every page under docs/ (the pages of docs/conformance
// through its README), and that README.md stays a front page.
func TestDocs_index(t *testing.T) {
	pages, err := doctest.Pages("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, index := range []string{"README.md", "docs/README.md"} {
		lines, err := doctest.ReadPage("..", index)
		if err != nil {
			t.Fatal(err)
		}
		linked := map[string]bool{}
		for _, l := range pageText(lines) {
			for _, m := range linkRe.FindAllStringSubmatch(l, -1) {
				file, _, _ := strings.Cut(m[1], "#")
				linked[path.Clean(path.Join(path.Dir(index), file))] = true
			}
		}
		for _, p := range pages {
			if p == index || p == "README.md" || strings.HasPrefix(p, "docs/conformance/") && p != "docs/conformance/README.md" {
				continue
			}
			if !linked[p] {
				t.Errorf("%s does not link %s: add it to the map of pages", index, p)
			}
		}
		if index == "README.md" && len(lines) > 300 {
			t.Errorf("README.md has %d lines: a front page has at most 300; move the detail to a page under docs/", len(lines))
		}
	}
}

// connectorPages names the page that documents each connector's WITH
// options. A connector that has no page yet is named in the test's log.
var connectorPages = map[string]string{
	"filesystem":   "docs/formats.md",
	"datagen":      "docs/formats.md",
	"values":       "docs/formats.md",
	"print":        "docs/formats.md",
	"blackhole":    "docs/formats.md",
	"stdin":        "docs/live-streams.md",
	"kafka":        "docs/kafka.md",
	"upsert-kafka": "docs/kafka.md",
}

// TestDocs_connectorOptions checks that the page of each connector names
// every WITH option the connector takes.
func TestDocs_connectorOptions(t *testing.T) {
	for _, name := range append(connector.Names(), "values") {
		page, ok := connectorPages[name]
		if !ok {
			t.Logf("connector '%s' has no page in connectorPages: its options are not checked", name)
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", page))
		if err != nil {
			t.Fatal(err)
		}
		f, ok := connector.Lookup(name)
		if !ok {
			t.Fatalf("connector.Lookup(%q) finds nothing", name)
		}
		for _, opt := range f.Options() {
			if !strings.Contains(string(b), "`"+opt+"`") && !strings.Contains(string(b), "`'"+opt+"'") {
				t.Errorf("%s does not name the option '%s' of connector '%s'", page, opt, name)
			}
		}
	}
}
