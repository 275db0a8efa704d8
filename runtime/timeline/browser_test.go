package timeline

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestBrowser opens the HTML timeline in a real headless browser
// (Chromium from the OS packages: apt-get install chromium) and checks what
// it shows: the DOM after the page's script ran has the lanes and the
// legend, a turn of the wheel zooms, and a screenshot has the picture's
// structure (the watermark line above lanes of marks in their colours).
// It is opt-in, as it needs the browser:
//
//	PTFSH_BROWSER=1 go test ./runtime/timeline -run Browser -v
func TestBrowser(t *testing.T) {
	if os.Getenv("PTFSH_BROWSER") == "" {
		t.Skip("set PTFSH_BROWSER=1 to check the HTML timeline in headless Chromium")
	}
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("no chromium on PATH (apt-get install chromium)")
	}
	dir := t.TempDir()
	if d := os.Getenv("PTFSH_BROWSER_DIR"); d != "" {
		dir = d // keep the pages and screenshots to look at
	}
	for name, r := range map[string]*Record{"lesson": lesson(), "crowd": crowd()} {
		t.Run(name, func(t *testing.T) {
			page := filepath.Join(dir, name+".html")
			var b bytes.Buffer
			if err := HTML(&b, r); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			dom := chromium(t, bin, dir, "--dump-dom", "file://"+page+"#zoom-check")
			lanes := regexp.MustCompile(`<g class="lane[ "]`).FindAllString(dom, -1)
			want := map[string]int{"lesson": 3, "crowd": 22}[name]
			if len(lanes) != want {
				t.Errorf("the browser's DOM has %d lanes, want %d", len(lanes), want)
			}
			for _, s := range []string{`id="legend"`, "watermark", `data-zoom-check="1.25"`} {
				if !strings.Contains(dom, s) {
					t.Errorf("the browser's DOM lacks %s", s)
				}
			}
			shot := filepath.Join(dir, name+".png")
			chromium(t, bin, dir, "--window-size=1200,800", "--hide-scrollbars", "--screenshot="+shot, "file://"+page)
			f, err := os.Open(shot)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			checkScreenshot(t, name, img)
		})
		t.Run(name+"-arrival", func(t *testing.T) {
			page := filepath.Join(dir, name+"-arrival.html")
			var b bytes.Buffer
			if err := HTMLView(&b, r, ArrivalView); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			dom := chromium(t, bin, dir, "--dump-dom", "file://"+page+"#zoom-check")
			count := func(re string) int { return len(regexp.MustCompile(re).FindAllString(dom, -1)) }
			points, late := count(`class="pt-in"`), count(`class="pt-late"`)
			if name == "crowd" {
				points, late = count(`class="bin-in"`), count(`class="bin-late"`)
			}
			if points < 2 || late < 1 || count(`class="wm-curve"`) < 1 || count(`class="fired"|class="bin-fired"`) < 1 {
				t.Errorf("the arrival view in the browser has %d points, %d late marks, %d curves, %d timers", points, late, count(`class="wm-curve"`), count(`class="fired"|class="bin-fired"`))
			}
			for _, s := range []string{`id="legend"`, ">event time</text>", ">arrival time</text>", `data-zoom-check="1.25"`} {
				if !strings.Contains(dom, s) {
					t.Errorf("the browser's DOM lacks %s", s)
				}
			}
		})
	}
}

// chromium runs the browser headless on a page and returns what it
// printed on stdout.
func chromium(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir=" + filepath.Join(dir, "profile")}, args...)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

// checkScreenshot compares the picture by structure: its size, that it is
// not blank, and where the colours of the marks are: the watermark's
// orange line above the rows of the lanes' blue (rows in) and green (rows
// out) marks, the red of late rows, the purple of timers.
func checkScreenshot(t *testing.T, name string, img image.Image) {
	t.Helper()
	bnd := img.Bounds()
	if bnd.Dx() != 1200 || bnd.Dy() != 800 {
		t.Fatalf("screenshot is %dx%d, want 1200x800", bnd.Dx(), bnd.Dy())
	}
	near := func(c color.Color, hex uint32) bool {
		r, g, b, _ := c.RGBA()
		d := func(a uint32, w uint32) int { return int(a>>8) - int(w) }
		dr, dg, db := d(r, hex>>16&0xff), d(g, hex>>8&0xff), d(b, hex&0xff)
		return dr*dr+dg*dg+db*db < 40*40
	}
	colours := map[string]uint32{"watermark": 0xdd6b20, "in": 0x2b6cb0, "late": 0xe53e3e, "timer": 0x805ad5, "out": 0x2f855a}
	firstRow := map[string]int{}
	count := map[string]int{}
	blank := 0
	for y := bnd.Min.Y; y < bnd.Max.Y; y++ {
		for x := bnd.Min.X; x < bnd.Max.X; x++ {
			c := img.At(x, y)
			if r, g, b, _ := c.RGBA(); r>>8 > 250 && g>>8 > 250 && b>>8 > 250 {
				blank++
			}
			for k, hex := range colours {
				if near(c, hex) {
					if count[k] == 0 {
						firstRow[k] = y
					}
					count[k]++
				}
			}
		}
	}
	if blank > bnd.Dx()*bnd.Dy()*98/100 {
		t.Errorf("%s: the screenshot is blank (%d white pixels)", name, blank)
	}
	for k := range colours {
		if count[k] < 10 {
			t.Errorf("%s: the screenshot shows no %s marks (colour #%06x)", name, k, colours[k])
		}
	}
	if firstRow["watermark"] >= firstRow["in"] {
		t.Errorf("%s: the watermark (first at row %d) is not above the lanes (rows in first at row %d)", name, firstRow["watermark"], firstRow["in"])
	}
	t.Logf("%s: %d×%d, marks %v, first rows %v", name, bnd.Dx(), bnd.Dy(), count, firstRow)
}
