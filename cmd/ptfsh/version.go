package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is ptfsh's version, raised at each release.
const version = "0.1.0"

// versionLine is what ptfsh --version prints: the version, then what the
// Go build recorded of the binary (the module version of go install
// ...@version, or the commit it was built from and whether the work tree
// had changes), and the Go version and platform.
func versionLine() string {
	var parts []string
	info, ok := debug.ReadBuildInfo()
	if ok {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			parts = append(parts, "module "+v)
		}
		var rev, at string
		modified := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				at = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" {
			if len(rev) > 12 {
				rev = rev[:12]
			}
			c := "commit " + rev
			if at != "" {
				c += " " + at
			}
			if modified {
				c += ", modified"
			}
			parts = append(parts, c)
		}
	}
	line := "ptfsh " + version
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, "; ") + ")"
	}
	goVersion := runtime.Version()
	if ok && info.GoVersion != "" {
		goVersion = info.GoVersion
	}
	return fmt.Sprintf("%s %s %s/%s", line, goVersion, runtime.GOOS, runtime.GOARCH)
}
