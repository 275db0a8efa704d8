package expr

import (
	"math"
	"math/big"
	"sync"
)

// Elementary functions rounded correctly: each is computed with some 150
// bits of precision (math/big) and rounded once to the nearest double.
// Java's Math (which Flink calls) is within one unit in the last place of
// the exact value and nearly always the correctly rounded double itself;
// Go's math package, built for speed, differs from it in the last digit
// more often (TAN(1): Go 1.557407724654902, Java and the exact value
// 1.5574077246549023). Special values (NaN, infinities, zeros) follow
// Java's rules, which Go's functions share.

// exactPrec is the working precision, in bits.
const exactPrec = 160

func newF() *big.Float { return new(big.Float).SetPrec(exactPrec) }

// pis caches π at the precisions asked for (argument reduction of a large
// x needs as many more bits as x has before its point).
var (
	piMu sync.Mutex
	pis  = map[uint]*big.Float{}
)

// bigPi returns π to prec bits, by Machin's formula π = 16·atan(1/5) -
// 4·atan(1/239).
func bigPi(prec uint) *big.Float {
	piMu.Lock()
	defer piMu.Unlock()
	if p, ok := pis[prec]; ok {
		return p
	}
	a := atanInv(5, prec+10)
	b := atanInv(239, prec+10)
	a.Mul(a, big.NewFloat(16))
	b.Mul(b, big.NewFloat(4))
	p := new(big.Float).SetPrec(prec).Sub(a, b)
	pis[prec] = p
	return p
}

// atanInv is atan(1/n) by its series: Σ (-1)^k / ((2k+1) n^(2k+1)).
func atanInv(n int64, prec uint) *big.Float {
	sum := new(big.Float).SetPrec(prec)
	nn := new(big.Float).SetPrec(prec).SetInt64(n * n)
	pow := new(big.Float).SetPrec(prec).Quo(big.NewFloat(1), new(big.Float).SetPrec(prec).SetInt64(n))
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -int(prec)-4)
	for k := int64(0); ; k++ {
		term := new(big.Float).SetPrec(prec).Quo(pow, new(big.Float).SetPrec(prec).SetInt64(2*k+1))
		if k%2 == 0 {
			sum.Add(sum, term)
		} else {
			sum.Sub(sum, term)
		}
		if term.Cmp(eps) < 0 {
			return sum
		}
		pow.Quo(pow, nn)
	}
}

// reduceHalfPi returns r and k with x = k·π/2 + r, |r| <= π/4.
func reduceHalfPi(x float64) (*big.Float, int64) {
	_, e := math.Frexp(x)
	prec := uint(exactPrec + max(e, 0) + 20)
	bx := new(big.Float).SetPrec(prec).SetFloat64(x)
	halfPi := new(big.Float).SetPrec(prec).Quo(bigPi(prec), big.NewFloat(2))
	q := new(big.Float).SetPrec(prec).Quo(bx, halfPi)
	// k = round(q)
	if q.Sign() >= 0 {
		q.Add(q, big.NewFloat(0.5))
	} else {
		q.Sub(q, big.NewFloat(0.5))
	}
	ki, _ := q.Int(nil)
	kf := new(big.Float).SetPrec(prec).SetInt(ki)
	r := new(big.Float).SetPrec(prec).Sub(bx, new(big.Float).SetPrec(prec).Mul(kf, halfPi))
	k := new(big.Int).Mod(ki, big.NewInt(4)).Int64()
	return newF().Set(r), k
}

// sinCosSeries returns sin(r) and cos(r) by their Taylor series, for a
// small r.
func sinCosSeries(r *big.Float) (*big.Float, *big.Float) {
	sin, cos := newF(), newF().SetInt64(1)
	term := newF().Set(r) // r^n / n!
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -exactPrec-8)
	for n := int64(1); ; n++ {
		if n%2 == 1 {
			if (n/2)%2 == 0 {
				sin.Add(sin, term)
			} else {
				sin.Sub(sin, term)
			}
		} else {
			if (n/2)%2 == 1 {
				cos.Sub(cos, term)
			} else {
				cos.Add(cos, term)
			}
		}
		if n > 2 && new(big.Float).Abs(term).Cmp(eps) < 0 {
			return sin, cos
		}
		term.Mul(term, r)
		term.Quo(term, newF().SetInt64(n+1))
	}
}

// sinCos returns sin(x) and cos(x) to the working precision.
func sinCos(x float64) (*big.Float, *big.Float) {
	r, k := reduceHalfPi(x)
	s, c := sinCosSeries(r)
	switch k {
	case 1:
		s, c = c, s.Neg(s)
	case 2:
		s, c = s.Neg(s), c.Neg(c)
	case 3:
		s, c = c.Neg(c), s
	}
	return s, c
}

func round(f *big.Float) float64 { v, _ := f.Float64(); return v }

func exactSin(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return math.Sin(x)
	}
	s, _ := sinCos(x)
	return round(s)
}

func exactCos(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return math.NaN()
	}
	_, c := sinCos(x)
	return round(c)
}

func exactTan(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return math.Tan(x)
	}
	s, c := sinCos(x)
	return round(s.Quo(s, c))
}

// bigAtan is atan(x) for any finite x, by halving the argument and the
// Taylor series.
func bigAtan(x *big.Float) *big.Float {
	one := newF().SetInt64(1)
	a := newF().Abs(x)
	invert := a.Cmp(one) > 0
	if invert {
		a.Quo(one, a)
	}
	// atan(a) = 2·atan(a / (1 + sqrt(1 + a²))), three times.
	for range 3 {
		s := newF().Mul(a, a)
		s.Add(s, one)
		s.Sqrt(s)
		s.Add(s, one)
		a.Quo(a, s)
	}
	sum := newF()
	a2 := newF().Mul(a, a)
	pow := newF().Set(a)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -exactPrec-8)
	for k := int64(0); ; k++ {
		term := newF().Quo(pow, newF().SetInt64(2*k+1))
		if k%2 == 0 {
			sum.Add(sum, term)
		} else {
			sum.Sub(sum, term)
		}
		if term.Cmp(eps) < 0 {
			break
		}
		pow.Mul(pow, a2)
	}
	sum.Mul(sum, newF().SetInt64(8))
	if invert {
		halfPi := newF().Quo(bigPi(exactPrec), newF().SetInt64(2))
		sum.Sub(halfPi, sum)
	}
	if x.Sign() < 0 {
		sum.Neg(sum)
	}
	return sum
}

func exactAtan(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return math.Atan(x)
	}
	return round(bigAtan(newF().SetFloat64(x)))
}

// bigAsin is asin(x) for |x| < 1: atan(x / sqrt(1 - x²)).
func bigAsin(x float64) *big.Float {
	bx := newF().SetFloat64(x)
	d := newF().Mul(bx, bx)
	d.Sub(newF().SetInt64(1), d)
	d.Sqrt(d)
	return bigAtan(d.Quo(bx, d))
}

func exactAsin(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.Abs(x) >= 1 {
		return math.Asin(x)
	}
	return round(bigAsin(x))
}

func exactAcos(x float64) float64 {
	if math.IsNaN(x) || math.Abs(x) >= 1 {
		return math.Acos(x)
	}
	halfPi := newF().Quo(bigPi(exactPrec), newF().SetInt64(2))
	return round(halfPi.Sub(halfPi, bigAsin(x)))
}

func exactAtan2(y, x float64) float64 {
	if y == 0 || x == 0 || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Atan2(y, x)
	}
	q := newF().Quo(newF().SetFloat64(y), newF().SetFloat64(x))
	a := bigAtan(q)
	if x < 0 {
		pi := bigPi(exactPrec)
		if y > 0 {
			a.Add(a, pi)
		} else {
			a.Sub(a, pi)
		}
	}
	return round(a)
}

// bigExp is e^x for a finite x: e^r · 2^k with x = k·ln 2 + r.
func bigExp(x float64) *big.Float {
	ln2 := bigLn2()
	bx := newF().SetFloat64(x)
	q := newF().Quo(bx, ln2)
	k, _ := q.Int64()
	r := newF().Sub(bx, newF().Mul(newF().SetInt64(k), ln2))
	sum, term := newF().SetInt64(1), newF().SetInt64(1)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -exactPrec-8)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, newF().SetInt64(n))
		sum.Add(sum, term)
		if newF().Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	return sum.SetMantExp(sum, int(k))
}

var (
	ln2Once sync.Once
	ln2     *big.Float
)

// bigLn2 is ln 2 = 2·atanh(1/3) = 2·Σ 1 / ((2k+1) 3^(2k+1)).
func bigLn2() *big.Float {
	ln2Once.Do(func() {
		sum := newF()
		pow := newF().Quo(newF().SetInt64(1), newF().SetInt64(3))
		nine := newF().SetInt64(9)
		eps := new(big.Float).SetMantExp(big.NewFloat(1), -exactPrec-8)
		for k := int64(0); ; k++ {
			term := newF().Quo(pow, newF().SetInt64(2*k+1))
			sum.Add(sum, term)
			if term.Cmp(eps) < 0 {
				break
			}
			pow.Quo(pow, nine)
		}
		ln2 = sum.Mul(sum, newF().SetInt64(2))
	})
	return ln2
}

// hyperbolic computes sinh, cosh or tanh from e^x and e^-x.
func hyperbolic(x float64, which byte) float64 {
	switch {
	case math.IsNaN(x), x == 0 && which != 'c':
		return x
	case math.Abs(x) > 800:
		switch which {
		case 's':
			return math.Copysign(math.Inf(1), x)
		case 'c':
			return math.Inf(1)
		}
		return math.Copysign(1, x)
	}
	ep, en := bigExp(x), bigExp(-x)
	switch which {
	case 's':
		d := newF().Sub(ep, en)
		return round(d.Quo(d, newF().SetInt64(2)))
	case 'c':
		d := newF().Add(ep, en)
		return round(d.Quo(d, newF().SetInt64(2)))
	}
	num := newF().Sub(ep, en)
	return round(num.Quo(num, newF().Add(ep, en)))
}

func exactSinh(x float64) float64 { return hyperbolic(x, 's') }
func exactCosh(x float64) float64 { return hyperbolic(x, 'c') }
func exactTanh(x float64) float64 { return hyperbolic(x, 't') }
