package faker_test

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/runtime/faker"
)

const now = 1743076800000 // 2025-03-27 12:00:00 UTC

func gen() *faker.Gen { return faker.NewGen(1, 2, func() int64 { return now }) }

// Each expression's values match a pattern, draw after draw.
func TestExpr_values(t *testing.T) {
	tests := []struct {
		expr string
		want string // a regular expression the whole value matches
	}{
		{"-", `-`},
		{"#{regexify '(GET|POST|PUT|PATCH){1}'} x", `(GET|POST|PUT|PATCH) x`},
		{`#{regexify '(/search\.html|cart\.html){1}'}`, `(/search\.html|cart\.html)`},
		{`#{regexify '(Deja\ Brew|Lawn\ \&\ Order){1}'}`, `(Deja Brew|Lawn & Order)`},
		{`#{regexify '(America\/Los_Angeles|Europe\/Rome){1}'}`, `(America/Los_Angeles|Europe/Rome)`},
		{"#{regexify '[a-c]{2,4}x?'}", `[a-c]{2,4}x?`},
		{"#{numerify 'ab-###'}", `ab-\d{3}`},
		{"#{letterify '??-#'}", `[a-z]{2}-#`},
		{"#{bothify '??-##','true'}", `[A-Z]{2}-\d{2}`},
		{"#{number.numberBetween '1','100'}", `[1-9]\d?`},
		{"#{number.numberBetween '5','5'}", `5`},
		{"#{Number.randomDouble '2','1','150'}", `\d{1,3}\.\d{1,2}`},
		{"#{number.digits '4'}", `\d{4}`},
		{"#{number.randomNumber '3','true'}", `[1-9]\d\d`},
		{"#{date.past '15','5','SECONDS'}", `2025-03-27 11:59:(4[5-9]|5[0-5])\.\d{1,3}`},
		{"#{date.past '15','SECONDS'}", `2025-03-27 11:59:(4[5-9]|5\d)\.\d{1,3}`},
		{"#{date.future '2','1','HOURS'}", `2025-03-27 13:\d\d:\d\d\.\d{1,3}`},
		{"#{date.past '30','days'}", `2025-(02|03)-\d\d \d\d:\d\d:\d\d\.\d{1,3}`},
		{"#{date.between '2020-01-01 00:00:00','2020-01-02 00:00:00'}", `2020-01-01 .*`},
		{"#{date.birthday '1','2'}", `(2023|2024)-\d\d-\d\d 00:00:00\.0`},
		{"#{Options.option 'RECEIVED','SHIPPED'}", `RECEIVED|SHIPPED`},
		{"#{bool.bool}", `true|false`},
		{"#{Internet.publicIpV4Address}", `\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}`},
		{"#{Internet.uuid}", `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`},
		{"#{Internet.UUID}", `[0-9a-f]{8}-.*`},
		{"#{Name.firstName} #{Name.lastName}", `\S+ \S+`},
		{"#{Name.full_name}", `\S+ \S+`},
		{"#{Address.fullAddress}", `.+, .+, [A-Z]{2} \d{5}`},
		{"#{Currency.code}", `[A-Z]{3}`},
		{"#{harry_potter.characters}", `.+`},
		{"#{dr_who.the_doctors}", `\w+ Doctor`},
		{"#{Lorem.characters '5'}", `[a-z0-9]{5}`},
		{"text #{ Name.firstName } more", `text \S+ more`},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			e, err := faker.Parse(tt.expr)
			if err != nil {
				t.Fatal(err)
			}
			re := regexp.MustCompile("^(?:" + tt.want + ")$")
			g := gen()
			for range 200 {
				v := string(e.Append(nil, g))
				if !re.MatchString(v) {
					t.Fatalf("%q does not match %s", v, tt.want)
				}
			}
		})
	}
}

// Every alternative of a regexify is about as likely as another, although
// RE2 factors Europe/Rome|Europe/London into Europe/(?:Rome|London).
func TestRegexify_uniform(t *testing.T) {
	e, err := faker.Parse(`#{regexify '(America\/Los_Angeles|Europe\/Rome|Europe\/London|Australia\/Sydney){1}'}`)
	if err != nil {
		t.Fatal(err)
	}
	g := gen()
	count := map[string]int{}
	for range 8000 {
		count[string(e.Append(nil, g))]++
	}
	if len(count) != 4 {
		t.Fatalf("values %v", count)
	}
	for v, n := range count {
		if n < 1700 || n > 2300 {
			t.Errorf("%s came %d times of 8000, want about 2000", v, n)
		}
	}
}

// The same seed and stream give the same values; another stream others.
func TestGen_seeded(t *testing.T) {
	e, _ := faker.Parse("#{Name.fullName} #{number.numberBetween '0','1000000'}")
	a, b := gen(), gen()
	c := faker.NewGen(1, 3, func() int64 { return now })
	same := 0
	for range 100 {
		x, y, z := string(e.Append(nil, a)), string(e.Append(nil, b)), string(e.Append(nil, c))
		if x != y {
			t.Fatalf("%q != %q under one seed", x, y)
		}
		if x == z {
			same++
		}
	}
	if same > 2 {
		t.Errorf("%d of 100 values equal in two streams", same)
	}
}

// A time or number directive alone gives its value without text.
func TestExpr_typed(t *testing.T) {
	e, _ := faker.Parse("#{date.past '10','SECONDS'}")
	f, ok := e.Time()
	if !ok {
		t.Fatal("date.past is not a time")
	}
	if v := f(gen()); v >= now || v < now-10000 {
		t.Errorf("date.past gave %d", v)
	}
	e, _ = faker.Parse("#{number.numberBetween '3','4'}")
	n, ok := e.Int()
	if !ok || n(gen()) != 3 {
		t.Error("numberBetween '3','4' is not 3")
	}
	for _, s := range []string{"x #{number.digit}", "#{Name.firstName}"} {
		e, _ = faker.Parse(s)
		if _, ok := e.Int(); ok {
			t.Errorf("%q is an int", s)
		}
	}
}

// Bad expressions are errors that say where and what to do.
func TestParse_errors(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"#{Foo.bar}", `at offset 2: unknown provider "Foo"; ptfsh has: Address,`},
		{"#{Name.fist}", `at offset 2: unknown method "fist" of Name; it has: firstName, fullName,`},
		{"#{frobnicate}", `at offset 2: unknown directive "frobnicate"`},
		{"#{number.numberBetween '1'}", `at offset 2: number.numberBetween: takes 2 arguments, not 1`},
		{"#{number.numberBetween '1','x'}", `at offset 28: number.numberBetween: argument 2 needs a whole number, not 'x'`},
		{"#{number.numberBetween '9','1'}", `needs the minimum (9) at most the maximum (1)`},
		{"#{date.past '15','WEEKS'}", `at offset 18: date.past: the unit 'WEEKS' is not one of DAYS,`},
		{"#{date.past '5','15','SECONDS'}", `needs 0 <= minimum <= atMost`},
		{"#{regexify '(a'}", `at offset 12: regexify: the regular expression "(a" does not compile`},
		{"#{regexify '[^\\x00-\\x{10FFFF}]'}", `matches no character`},
		{"#{Name.firstName", `at offset 0: directive Name.firstName is not closed`},
		{"#{Options.option 'A','B')}", `at offset 24: directive Options.option: an argument is written in single quotes`},
		{"#{regexify 'a}", `an argument's quote is not closed`},
		{"#{}", `a directive #{...} needs a name`},
		{"#{regexify '((a{1000}){1000}){100}'}", `regexify: the regular expression`},
		{"#{Options.option}", `takes the options to pick from`},
	}
	for _, tt := range tests {
		_, err := faker.Parse(tt.expr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want %q", tt.expr, err, tt.want)
		}
	}
}

// FuzzParse: Parse never panics, errors point into the expression, and an
// expression that parses runs.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"#{regexify '(a|b){1,3}[x-z]*'}", "#{date.past '15','5','SECONDS'}", "a #{Name.firstName} b",
		"#{number.numberBetween '1','100'}", "#{Options.option 'a','b'}", "#{bothify '??##'}", `#{regexify '\ \&.+'}`, "#{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := faker.Parse(s)
		if err != nil {
			var pe *faker.Error
			if !asError(err, &pe) || pe.Offset < 0 || pe.Offset > len(s) {
				t.Fatalf("error %v is not an *Error within the expression", err)
			}
			return
		}
		g := gen()
		for range 3 {
			v := e.Append(nil, g)
			if len(v) > 1<<22 {
				t.Fatalf("a value of %d bytes", len(v))
			}
		}
		if utf8.ValidString(s) && e.String() != s {
			t.Fatalf("String() = %q", e.String())
		}
	})
}

func asError(err error, pe **faker.Error) bool {
	e, ok := err.(*faker.Error)
	*pe = e
	return ok
}
