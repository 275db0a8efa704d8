package script

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// ParseTypeForTest is a minimal parser of Flink type strings for the tests of
// this package; the wiring passes ptf.ParseType.
func ParseTypeForTest(s string) (types.Type, error) {
	p := &typeParser{toks: tokenizeType(s)}
	t, err := p.typ()
	if err != nil {
		return types.Type{}, err
	}
	if p.i < len(p.toks) {
		return types.Type{}, fmt.Errorf("unexpected %q", p.toks[p.i])
	}
	return t, nil
}

type typeParser struct {
	toks []string
	i    int
}

func tokenizeType(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := rune(s[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case strings.ContainsRune("<>(),", c):
			toks = append(toks, string(c))
			i++
		case c == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				j = len(s) - i - 1
			}
			toks = append(toks, s[i+1:i+1+j])
			i += j + 2
		default:
			j := i
			for j < len(s) && (unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j])) || s[j] == '_' || s[j] == '$') {
				j++
			}
			if j == i {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks
}

func (p *typeParser) next() string {
	if p.i >= len(p.toks) {
		return ""
	}
	p.i++
	return p.toks[p.i-1]
}

func (p *typeParser) peek() string {
	if p.i >= len(p.toks) {
		return ""
	}
	return p.toks[p.i]
}

func (p *typeParser) expect(s string) error {
	if got := p.next(); got != s {
		return fmt.Errorf("expected %q, got %q", s, got)
	}
	return nil
}

func (p *typeParser) params() ([]int, error) {
	if p.peek() != "(" {
		return nil, nil
	}
	p.next()
	var out []int
	for {
		n, err := strconv.Atoi(p.next())
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if p.peek() == "," {
			p.next()
			continue
		}
		return out, p.expect(")")
	}
}

func (p *typeParser) typ() (types.Type, error) {
	t, err := p.base()
	if err != nil {
		return t, err
	}
	if strings.EqualFold(p.peek(), "NOT") {
		p.next()
		if !strings.EqualFold(p.next(), "NULL") {
			return t, fmt.Errorf("expected NULL after NOT")
		}
		t.NotNull = true
	}
	return t, nil
}

func (p *typeParser) base() (types.Type, error) {
	w := strings.ToUpper(p.next())
	ps, err := p.params()
	if err != nil {
		return types.Type{}, err
	}
	param := func(i, def int) int {
		if i < len(ps) {
			return ps[i]
		}
		return def
	}
	switch w {
	case "BOOLEAN":
		return types.Type{Kind: types.KindBoolean}, nil
	case "TINYINT":
		return types.Type{Kind: types.KindTinyInt}, nil
	case "SMALLINT":
		return types.Type{Kind: types.KindSmallInt}, nil
	case "INT", "INTEGER":
		return types.Type{Kind: types.KindInt}, nil
	case "BIGINT":
		return types.Type{Kind: types.KindBigInt}, nil
	case "FLOAT":
		return types.Type{Kind: types.KindFloat}, nil
	case "DOUBLE":
		return types.Type{Kind: types.KindDouble}, nil
	case "DECIMAL":
		return types.Type{Kind: types.KindDecimal, Length: param(0, 10), Scale: param(1, 0)}, nil
	case "STRING":
		return types.TypeString, nil
	case "VARCHAR":
		return types.Type{Kind: types.KindVarChar, Length: param(0, 1)}, nil
	case "CHAR":
		return types.Type{Kind: types.KindChar, Length: param(0, 1)}, nil
	case "BYTES":
		return types.TypeBytes, nil
	case "DATE":
		return types.Type{Kind: types.KindDate}, nil
	case "TIME":
		return types.Type{Kind: types.KindTime, Length: param(0, 0)}, nil
	case "TIMESTAMP":
		return types.Type{Kind: types.KindTimestamp, Length: param(0, 6)}, nil
	case "TIMESTAMP_LTZ":
		return types.Type{Kind: types.KindTimestampLTZ, Length: param(0, 6)}, nil
	case "DESCRIPTOR":
		return types.TypeDescriptor, nil
	case "INTERVAL":
		from := strings.ToUpper(p.next())
		if strings.EqualFold(p.peek(), "TO") {
			p.next()
			p.next()
		}
		if from == "YEAR" || from == "MONTH" {
			return types.Type{Kind: types.KindIntervalYearMonth}, nil
		}
		return types.Type{Kind: types.KindIntervalDayTime}, nil
	case "ARRAY":
		if err := p.expect("<"); err != nil {
			return types.Type{}, err
		}
		el, err := p.typ()
		if err != nil {
			return types.Type{}, err
		}
		return types.ArrayOf(el), p.expect(">")
	case "MAP":
		if err := p.expect("<"); err != nil {
			return types.Type{}, err
		}
		k, err := p.typ()
		if err != nil {
			return types.Type{}, err
		}
		if err := p.expect(","); err != nil {
			return types.Type{}, err
		}
		v, err := p.typ()
		if err != nil {
			return types.Type{}, err
		}
		return types.MapOf(k, v), p.expect(">")
	case "ROW":
		if err := p.expect("<"); err != nil {
			return types.Type{}, err
		}
		var fields []types.Field
		for p.peek() != ">" {
			name := p.next()
			ft, err := p.typ()
			if err != nil {
				return types.Type{}, err
			}
			fields = append(fields, types.Field{Name: name, Type: ft})
			if p.peek() == "," {
				p.next()
			}
		}
		p.next()
		return types.NewRowType(fields...), nil
	}
	return types.Type{}, fmt.Errorf("unknown type %q", w)
}
