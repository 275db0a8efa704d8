// Package playground is `ptfsh serve`: a page in the browser where a class
// writes functions and scripts, runs them, steps streams, predicts what a
// step emits, sees the timeline, and opens the lessons and labs with
// their exercises, without installing anything but the ptfsh binary.
//
// # The server
//
// Server listens on a loopback address only and answers only requests
// that carry its token (a random one unless Options.Token says), in the
// URL of the page (?token=...) or, for the page's calls, in the
// X-Ptfsh-Token header; a request whose Host is not a loopback name is
// refused too, so that another site cannot reach it through the browser.
// The page is one HTML document with its style and script inline: it
// fetches nothing from the network, and its Content-Security-Policy says
// so.
//
// # Tabs
//
// Each browser tab gets a session of its own (POST /api/tab): a shell
// made by Options.NewShell (the command builds it with the same limits as
// the interactive shell: the eval timeout, the rows per call, the memory
// guard) and a workspace folder where the tab's files live. A lesson or a
// lab opened in a tab is copied into its workspace, beside links to the
// examples' data, so that its relative paths read as in examples/. Tabs
// unused for an hour are closed.
//
// # Calls
//
//	GET  /                the page
//	POST /api/tab         a new tab: its id and starting files
//	GET  /api/catalog     the lessons and labs, with their exercises
//	POST /api/open        opens a lesson or lab in a tab (a fresh session)
//	POST /api/run         runs a script of the tab's files; the answer streams
//	POST /api/exec        runs statements (a stream's step, SHOW STATE); streams
//	POST /api/stop        cancels the tab's running statement
//	POST /api/test        runs an exercise over the tab's files (ptfsh test)
//	POST /api/inspect     the tab's streams, the running query's state and timers
//
// A streaming answer is JSON lines: {"out": text} for results as they
// come, {"err": text} for notes and errors, {"timeline": svg} after each
// query that calls a PTF, and a last {"done": true}.
package playground
