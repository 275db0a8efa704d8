package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileJS_importLinks: an import is checked by its real path, its
// symbolic links resolved: a link to a file outside the function's
// folder, a linked folder that leads out, a link to a dotfile or to a file
// without an extension are refused (as a code import, a text import and a
// JSON import), whatever the link's own name; a link that stays inside the
// folder is followed. Nothing outside is read: the error names the import
// and the rule, never the secret's text.
func TestHostileJS_importLinks(t *testing.T) {
	const secret = "TOP-SECRET-42"
	importer := func(spec, attrs string) string {
		return `import x from "` + spec + `"` + attrs + `;
export default { output: "STRING", eval(ctx) { ctx.collect(String(x.v ?? x)); } };
`
	}
	tests := []struct {
		name  string
		links map[string]string // link name -> target, in the function's folder
		src   string
		want  string // the error, or the row for a link that stays inside
	}{
		{name: "text_outside", links: map[string]string{"notes.txt": "../outside/secret.txt"},
			src:  importer("./notes.txt", ` with { type: "text" }`),
			want: `cannot import "./notes.txt": it leads outside the function's folder through a symbolic link`},
		{name: "json_outside", links: map[string]string{"conf.json": "../outside/secret.json"},
			src:  importer("./conf.json", ` with { type: "json" }`),
			want: `cannot import "./conf.json": it leads outside the function's folder through a symbolic link`},
		{name: "code_outside", links: map[string]string{"lib.js": "../outside/lib.js"},
			src:  importer("./lib.js", ""),
			want: `cannot import "./lib.js": it leads outside the function's folder through a symbolic link`},
		{name: "code_completed", links: map[string]string{"lib.js": "../outside/lib.js"},
			src:  importer("./lib", ""),
			want: `it leads outside the function's folder through a symbolic link`},
		{name: "linked_folder", links: map[string]string{"vendor": "../outside"},
			src:  importer("./vendor/secret.txt", ` with { type: "text" }`),
			want: `cannot import "./vendor/secret.txt": it leads outside the function's folder through a symbolic link`},
		{name: "absolute_link", links: map[string]string{"abs.txt": "ABS/outside/secret.txt"},
			src:  importer("./abs.txt", ` with { type: "text" }`),
			want: `cannot import "./abs.txt": it leads outside the function's folder through a symbolic link`},
		{name: "link_to_dotfile", links: map[string]string{"env.txt": ".env"},
			src:  importer("./env.txt", ` with { type: "text" }`),
			want: `cannot import "./env.txt": files and folders whose names start with a dot are never imported (it is ".env" through a symbolic link)`},
		{name: "link_to_no_extension", links: map[string]string{"key.txt": "keyfile"},
			src:  importer("./key.txt", ` with { type: "text" }`),
			want: `cannot import "./key.txt": a "text" import reads only data files`},
		{name: "link_inside", links: map[string]string{"same.txt": "data/plain.txt"},
			src:  importer("./same.txt", ` with { type: "text" }`),
			want: "+I[inside]\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostileSession(t)
			fn := filepath.Join(h.dir, "fn")
			outside := filepath.Join(h.dir, "outside")
			files := map[string]string{
				"outside/secret.txt":  secret,
				"outside/secret.json": `{"v": "` + secret + `"}`,
				"outside/lib.js":      `export default "` + secret + `";`,
				"fn/.env":             secret,
				"fn/keyfile":          secret,
				"fn/data/plain.txt":   "inside",
				"fn/f.js":             tc.src,
			}
			for name, content := range files {
				p := filepath.Join(h.dir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for name, target := range tc.links {
				target = strings.Replace(target, "ABS/outside", outside, 1)
				if err := os.Symlink(target, filepath.Join(fn, name)); err != nil {
					t.Fatal(err)
				}
			}
			out, err := h.exec(context.Background(), "CREATE FUNCTION f AS 'fn/f.js'; SELECT * FROM f();")
			if strings.HasPrefix(tc.want, "+I") {
				if err != nil || out != tc.want {
					t.Fatalf("got %q, %v; want %q", out, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %q", err, tc.want)
			}
			if strings.Contains(out+err.Error(), secret) {
				t.Errorf("the secret was read: %q %v", out, err)
			}
		})
	}
}
