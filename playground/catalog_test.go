package playground

import (
	"path/filepath"
	"testing"
)

// TestCatalog reads the examples' lessons and labs: their titles, scripts
// and exercises with the function each asks for.
func TestCatalog(t *testing.T) {
	ls, err := Catalog(filepath.Join("..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Lesson{}
	for _, l := range ls {
		byID[l.ID] = l
	}
	lab, ok := byID["labs/4-long-ride-alerts"]
	if !ok || lab.Script != "lab.sql" || len(lab.Exercises) != 2 {
		t.Fatalf("lab 4: %+v", lab)
	}
	ex := lab.Exercises[1]
	if ex.ID != "labs/4-long-ride-alerts/long_rides" || ex.Function != "long_rides.js" || ex.Hints != 3 || ex.Title != "Lab 4, exercise 1: long ride alerts" {
		t.Errorf("exercise: %+v", ex)
	}
	if l := byID["lessons/1-event-time"]; l.Title != "Lesson 1: event time and watermarks" {
		t.Errorf("lesson 1's title: %q", l.Title)
	}
	if _, ok := byID["labs/data"]; ok {
		t.Error("the labs' data folder is listed as a lab")
	}
	if ls, err := Catalog(""); err != nil || ls != nil {
		t.Errorf("no examples: %v %v", ls, err)
	}
}

// TestEditable: a tab keeps plain files of its own folder only.
func TestEditable(t *testing.T) {
	for name, want := range map[string]bool{"f.js": true, "script.sql": true, "data.csv": true, "t.ts": true,
		"": false, "../f.js": false, "a/f.js": false, `a\f.js`: false, "/etc/f.js": false, "f.sh": false, ".": false} {
		if got := editable(name); got != want {
			t.Errorf("editable(%q) = %v", name, got)
		}
	}
}
