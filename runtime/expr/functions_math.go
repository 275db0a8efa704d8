package expr

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"math"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// mathFunctions are the trigonometric functions and their relatives, each a
// DOUBLE rounded correctly (mathexact.go), as Java's Math nearly always
// is.
var mathFunctions = []Function{
	{Name: "SIN", Signature: "SIN(n)", Doc: "the sine of n radians", compile: doubleFunc(1, exactSin)},
	{Name: "COS", Signature: "COS(n)", Doc: "the cosine of n radians", compile: doubleFunc(1, exactCos)},
	{Name: "TAN", Signature: "TAN(n)", Doc: "the tangent of n radians", compile: doubleFunc(1, exactTan)},
	{Name: "COT", Signature: "COT(n)", Doc: "the cotangent of n radians, 1 / TAN(n)", compile: doubleFunc(1, func(x float64) float64 { return 1 / exactTan(x) })},
	{Name: "ASIN", Signature: "ASIN(n)", Doc: "the arc sine, in radians (NaN outside -1 to 1)", compile: doubleFunc(1, exactAsin)},
	{Name: "ACOS", Signature: "ACOS(n)", Doc: "the arc cosine, in radians (NaN outside -1 to 1)", compile: doubleFunc(1, exactAcos)},
	{Name: "ATAN", Signature: "ATAN(n)", Doc: "the arc tangent, in radians", compile: doubleFunc(1, exactAtan)},
	{Name: "ATAN2", Signature: "ATAN2(y, x)", Doc: "the angle of the point (x, y), in radians from -π to π (y and x integers or approximate numbers, not DECIMAL, as in Flink)", compile: func(c *call) (Expr, error) {
		for i, a := range c.args {
			if a.Type().Kind == types.KindDecimal {
				return nil, c.errorf("argument %d is %s: Flink's ATAN2 takes integers, FLOAT or DOUBLE; CAST it to DOUBLE", i+1, a.Type())
			}
		}
		return doubleFunc(2, exactAtan2)(c)
	}},
	{Name: "SINH", Signature: "SINH(n)", Doc: "the hyperbolic sine", compile: doubleFunc(1, exactSinh)},
	{Name: "COSH", Signature: "COSH(n)", Doc: "the hyperbolic cosine", compile: doubleFunc(1, exactCosh)},
	{Name: "TANH", Signature: "TANH(n)", Doc: "the hyperbolic tangent", compile: doubleFunc(1, exactTanh)},
	{Name: "DEGREES", Signature: "DEGREES(n)", Doc: "n radians in degrees", compile: doubleFunc(1, func(x float64) float64 { return x * (180 / math.Pi) })},
	{Name: "RADIANS", Signature: "RADIANS(n)", Doc: "n degrees in radians", compile: doubleFunc(1, func(x float64) float64 { return x * (math.Pi / 180) })},
	{Name: "E", Signature: "E()", Doc: "e, the base of natural logarithms, a DOUBLE", compile: func(c *call) (Expr, error) {
		if err := c.plainArity(0, 0); err != nil {
			return nil, err
		}
		return &Constant{v: math.E, t: types.TypeDouble.AsNotNull()}, nil
	}},
	{Name: "SHA224", Signature: "SHA224(s)", Doc: "the SHA-224 digest, 56 hex digits", compile: digest("SHA224")},
	{Name: "SHA384", Signature: "SHA384(s)", Doc: "the SHA-384 digest, 96 hex digits", compile: digest("SHA384")},
	{Name: "SHA512", Signature: "SHA512(s)", Doc: "the SHA-512 digest, 128 hex digits", compile: digest("SHA512")},
	{Name: "SHA2", Signature: "SHA2(s, bits)", Doc: "the SHA-2 digest of s with 224, 256, 384 or 512 bits, in hex", compile: compileSHA2},
	{Name: "OVERLAY", Signature: "OVERLAY(s PLACING r FROM start [FOR length])", Doc: "s with length characters (default: r's length) from start (1-based) replaced by r", compile: compileOverlay},
	{Name: "CARDINALITY", Signature: "CARDINALITY(collection)", Doc: "the number of elements of an ARRAY or a MULTISET, of entries of a MAP", compile: compileCardinality},
	{Name: "ELEMENT", Signature: "ELEMENT(array)", Doc: "the one element of an array; NULL when it is empty, an error when it has more", compile: compileElement},
}

// sha2 returns the SHA-2 hash of a number of bits, or nil.
func sha2(bits int64) func([]byte) []byte {
	switch bits {
	case 224:
		return func(b []byte) []byte { s := sha256.Sum224(b); return s[:] }
	case 256:
		return func(b []byte) []byte { s := sha256.Sum256(b); return s[:] }
	case 384:
		return func(b []byte) []byte { s := sha512.Sum384(b); return s[:] }
	case 512:
		return func(b []byte) []byte { s := sha512.Sum512(b); return s[:] }
	}
	return nil
}

func compileSHA2(c *call) (Expr, error) {
	if err := c.plainArity(2, 2); err != nil {
		return nil, err
	}
	if err := c.wantString(0); err != nil {
		return nil, err
	}
	if err := c.wantInteger(1); err != nil {
		return nil, err
	}
	pos := c.f.Pos
	return strict(types.Type{Kind: types.KindVarChar, Length: 128}, false, c.args, func(v []any) (any, error) {
		h := sha2(v[1].(int64))
		if h == nil {
			return nil, sqlmini.Errorf(pos, "SHA2: Unsupported algorithm: %d bits; SHA2 takes 224, 256, 384 or 512", v[1])
		}
		return hex.EncodeToString(h([]byte(v[0].(string)))), nil
	}), nil
}

// compileOverlay is OVERLAY(s PLACING r FROM start [FOR length]), as Flink
// computes it: s unchanged when start is outside it; a length of 0 or less,
// or one that reaches the end, replaces to the end. Its type is
// VARCHAR(the lengths of s and r).
func compileOverlay(c *call) (Expr, error) {
	f := c.f
	if f.Placing == nil || f.From == nil || len(c.args) != 1 || f.Star || f.Distinct || f.Trim != "" {
		return nil, c.errorf("the syntax is %s", functionIndex["OVERLAY"].Signature)
	}
	args := c.args
	for _, e := range []*sqlmini.Expr{f.Placing, f.From, f.For} {
		if e == nil {
			continue
		}
		x, err := Compile(e, c.sc)
		if err != nil {
			return nil, err
		}
		args = append(args, x)
	}
	c.args = args
	for i := range 2 {
		if err := c.wantString(i); err != nil {
			return nil, err
		}
	}
	for i := 2; i < len(args); i++ {
		if err := c.wantInteger(i); err != nil {
			return nil, err
		}
	}
	t := types.TypeString
	if a, b := args[0].Type(), args[1].Type(); a.IsString() && b.IsString() && a.Length > 0 && b.Length > 0 && a.Length < types.MaxLength-b.Length {
		t = types.Type{Kind: types.KindVarChar, Length: a.Length + b.Length}
	}
	return strict(t, false, args, func(v []any) (any, error) {
		s, r := []rune(v[0].(string)), v[1].(string)
		start := v[2].(int64)
		n := int64(len([]rune(r)))
		if len(v) == 4 {
			n = v[3].(int64)
		}
		if start < 1 || start > int64(len(s)) {
			return string(s), nil
		}
		out := string(s[:start-1]) + r
		if end := start - 1 + n; n > 0 && end < int64(len(s)) {
			out += string(s[end:])
		}
		return out, nil
	}), nil
}

func compileElement(c *call) (Expr, error) {
	if err := c.plainArity(1, 1); err != nil {
		return nil, err
	}
	t := c.args[0].Type()
	if t.Kind != types.KindArray && !isNull(t) {
		return nil, c.errorf("argument 1 must be an array, not %s (%s)", t, functionIndex["ELEMENT"].Signature)
	}
	// Flink types it as the element, NOT NULL when the array and its
	// elements are, though an empty array gives NULL.
	et := types.Type{}
	if t.Elem != nil {
		et = *t.Elem
	}
	pos := c.f.Pos
	return strict(et, !et.NotNull, c.args, func(v []any) (any, error) {
		a, _ := v[0].([]any)
		switch len(a) {
		case 0:
			return nil, nil
		case 1:
			return a[0], nil
		}
		return nil, sqlmini.Errorf(pos, "ELEMENT: Array has more than one element (%d): ELEMENT takes an array of one element, or none", len(a))
	}), nil
}
