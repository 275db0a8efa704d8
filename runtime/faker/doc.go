// Package faker reads and runs the expressions of the faker connector:
// flink-faker's column expressions, which are Java Faker's (Data Faker's)
// expression language.
//
// # Expressions
//
// An expression is text with directives in it:
//
//	#{regexify '(GET|POST){1}'} #{Name.firstName} and more text
//	#{date.past '15','5','SECONDS'}
//	#{number.numberBetween '1','100'}
//
// Text outside #{...} is copied as it is. A directive names a provider and
// a method (Name.firstName, Internet.publicIpV4Address) or a method of the
// faker itself (regexify, numerify, letterify, bothify), followed by
// arguments in single quotes, separated by commas. Names are matched as
// Java Faker matches them: without regard to case and to underscores, so
// Name.full_name is Name.fullName and harry_potter.characters is
// HarryPotter.characters. An argument cannot hold a single quote (Java
// Faker's cannot either); in SQL each quote of the expression is written
// twice: '#{number.numberBetween ”1”,”100”}'.
//
// Parse checks the whole expression: unknown providers or methods, wrong
// numbers of arguments, arguments that are not numbers where numbers are
// needed and regular expressions that do not compile are errors with the
// offset in the expression.
//
// # Values
//
// Run appends the expression's text to a byte slice; the faker connector
// converts it to the column's type as flink-faker does (a TIMESTAMP from
// 'yyyy-MM-dd HH:mm:ss[.fff]', a number as written, ...). An expression
// that is one directive of a number or a time can also give the value
// without going through text (Expr.Time, Expr.Int), which is how a faker
// table reaches its speed.
//
// date.past, date.future and date.birthday are relative to the
// processing-time clock of the Gen when the value is made (the wall clock,
// or SET 'ptfsh.processing-time').
//
// # Randomness
//
// A Gen draws from one seeded PCG stream: the same seed gives the same
// values, row after row. The word lists of names, cities, products and the
// like come from github.com/brianvoe/gofakeit; the lists of the "fun"
// providers (harry_potter, dr_who, superhero, RickAndMorty, Space,
// HitchhikersGuideToTheGalaxy) are short lists of this package, so their
// values are not Java Faker's.
package faker
