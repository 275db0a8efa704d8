package script

import "testing"

func TestDecodeVLQ(t *testing.T) {
	tests := []struct {
		in   string
		want int
		rest string
	}{
		{"A", 0, ""}, {"C", 1, ""}, {"D", -1, ""}, {"gB", 16, ""}, {"2HA", 123, "A"}, {"/////D", -67108863, ""},
	}
	for _, tc := range tests {
		v, rest, err := decodeVLQ(tc.in)
		if err != nil || v != tc.want || rest != tc.rest {
			t.Errorf("decodeVLQ(%q) = %d, %q, %v; want %d, %q", tc.in, v, rest, err, tc.want, tc.rest)
		}
	}
	for _, bad := range []string{"", "g", "!"} {
		if _, _, err := decodeVLQ(bad); err == nil {
			t.Errorf("decodeVLQ(%q) did not fail", bad)
		}
	}
}

func TestSourceMap_original(t *testing.T) {
	// Generated line 1 maps column 0 to a.js line 0, column 0 and column 1
	// to a.js line 0, UTF-16 column 3 (after "é🎉" of the source line
	// "é🎉xy"); line 2 has no segment; line 3 maps column 2 to b.js line 1,
	// column 1 (all 0-based, as in the format).
	data := []byte(`{"version":3,"sources":["a.js","b.js"],"sourcesContent":["é🎉xy\n","p\nqr\n"],"mappings":"AAAA,CAAG;;ECCF"}`)
	m, err := parseSourceMap(data, func(s string) string { return "dir/" + s })
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line, col int
		file      string
		l, c      int
		ok        bool
	}{
		{1, 1, "dir/a.js", 1, 1, true},
		{1, 2, "dir/a.js", 1, 3, true}, // UTF-16 column 3 is after "é🎉": rune column 2, 1-based 3
		{1, 9, "dir/a.js", 1, 3, true},
		{2, 1, "", 0, 0, false},
		{3, 1, "dir/b.js", 2, 2, true}, // before the first segment: the first segment
		{3, 3, "dir/b.js", 2, 2, true},
		{9, 1, "", 0, 0, false},
	}
	for _, tc := range tests {
		f, l, c, ok := m.original(tc.line, tc.col)
		if f != tc.file || l != tc.l || c != tc.c || ok != tc.ok {
			t.Errorf("original(%d, %d) = %s:%d:%d %v; want %s:%d:%d %v", tc.line, tc.col, f, l, c, ok, tc.file, tc.l, tc.c, tc.ok)
		}
	}
}
