package script

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// The tagged-JSON encoding of state values (version stateVersion), which
// ptfsh wrote before the binary one: still read (DecodeState), and the
// text SHOW STATE and the trace show either encoding as (DescribeState).

// encodeNode writes a node tree as tagged JSON.
func encodeNode(b *bytes.Buffer, n node) error {
	switch x := n.(type) {
	case nil:
		b.WriteString("null")
	case undefNode:
		b.WriteString(`{"$u":1}`)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e21 {
			b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
		} else {
			b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case numNode:
		f := float64(x)
		s := "NaN"
		switch {
		case math.IsInf(f, 1):
			s = "Infinity"
		case math.IsInf(f, -1):
			s = "-Infinity"
		case f == 0:
			s = "-0"
		}
		b.WriteString(`{"$n":"` + s + `"}`)
	case string:
		writeJSONString(b, x)
	case bigNode:
		b.WriteString(`{"$b":"` + x.v.String() + `"}`)
	case dateNode:
		if !x.valid {
			b.WriteString(`{"$d":null}`)
		} else {
			b.WriteString(`{"$d":` + strconv.FormatFloat(x.ms, 'f', -1, 64) + `}`)
		}
	case bytesNode:
		b.WriteString(`{"$y":"` + base64.StdEncoding.EncodeToString(x) + `"}`)
	case kindNode:
		b.WriteString(`{"$k":"` + types.RowKind(x).String() + `"}`)
	case arrNode:
		return encodeList(b, x)
	case setNode:
		b.WriteString(`{"$s":`)
		if err := encodeList(b, x); err != nil {
			return err
		}
		b.WriteByte('}')
	case mapNode:
		b.WriteString(`{"$m":[`)
		for i := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeList(b, []node{x.keys[i], x.vals[i]}); err != nil {
				return err
			}
		}
		b.WriteString("]}")
	case rowNode:
		t, err := json.Marshal(x.typ)
		if err != nil {
			return err
		}
		b.WriteString(`{"$r":{"k":` + strconv.Itoa(int(x.kind)) + `,"t":`)
		writeJSONString(b, string(t))
		b.WriteString(`,"v":`)
		if err := encodeList(b, x.vals); err != nil {
			return err
		}
		b.WriteString("}}")
	case objNode:
		escape := false
		for _, k := range x.keys {
			if strings.HasPrefix(k, "$") {
				escape = true
			}
		}
		if escape {
			b.WriteString(`{"$o":`)
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, k)
			b.WriteByte(':')
			if err := encodeNode(b, x.vals[i]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		if escape {
			b.WriteByte('}')
		}
	default:
		return fmt.Errorf("script: unknown state node %T", n)
	}
	return nil
}

func encodeList(b *bytes.Buffer, ns []node) error {
	b.WriteByte('[')
	for i, c := range ns {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := encodeNode(b, c); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s)
	b.Write(enc)
}

// decodeNode reads tagged JSON written by encodeNode.
func decodeNode(data []byte) (node, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	n, err := readNode(d)
	if err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return n, nil
}

func readNode(d *json.Decoder) (node, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil, bool, string:
		return t, nil
	case json.Number:
		return strconv.ParseFloat(string(t), 64)
	case json.Delim:
		if t == '[' {
			var list arrNode
			for d.More() {
				c, err := readNode(d)
				if err != nil {
					return nil, err
				}
				list = append(list, c)
			}
			_, err := d.Token()
			return list, err
		}
		return readObject(d)
	}
	return nil, fmt.Errorf("unexpected %v", tok)
}

// readObject reads an object after its '{': a tagged value when its
// first key starts with "$", else a plain object.
func readObject(d *json.Decoder) (node, error) {
	if !d.More() {
		_, err := d.Token() // '}'
		return objNode{}, err
	}
	kt, err := d.Token()
	if err != nil {
		return nil, err
	}
	k, _ := kt.(string)
	if strings.HasPrefix(k, "$") {
		n, err := readTagged(d, k)
		if err != nil {
			return nil, err
		}
		if tok, err := d.Token(); err != nil || tok != json.Delim('}') {
			return nil, fmt.Errorf("bad %s value", k)
		}
		return n, nil
	}
	c, err := readNode(d)
	if err != nil {
		return nil, err
	}
	return readFields(d, objNode{keys: []string{k}, vals: []node{c}})
}

// readFields reads the remaining fields of a plain object and its '}'.
func readFields(d *json.Decoder, obj objNode) (node, error) {
	for d.More() {
		kt, err := d.Token()
		if err != nil {
			return nil, err
		}
		k, _ := kt.(string)
		c, err := readNode(d)
		if err != nil {
			return nil, err
		}
		obj.keys, obj.vals = append(obj.keys, k), append(obj.vals, c)
	}
	_, err := d.Token()
	return obj, err
}

func readTagged(d *json.Decoder, tag string) (node, error) {
	if tag == "$o" { // a plain object whose keys may start with "$"
		if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
			return nil, errors.New("bad $o value")
		}
		return readFields(d, objNode{})
	}
	c, err := readNode(d)
	if err != nil {
		return nil, err
	}
	bad := fmt.Errorf("bad %s value", tag)
	switch tag {
	case "$u":
		return undefNode{}, nil
	case "$n":
		switch c {
		case "NaN":
			return numNode(math.NaN()), nil
		case "Infinity":
			return numNode(math.Inf(1)), nil
		case "-Infinity":
			return numNode(math.Inf(-1)), nil
		case "-0":
			return numNode(math.Copysign(0, -1)), nil
		}
	case "$b":
		if s, ok := c.(string); ok {
			if b, ok := new(big.Int).SetString(s, 10); ok {
				return bigNode{b}, nil
			}
		}
	case "$d":
		if c == nil {
			return dateNode{}, nil
		}
		if f, ok := c.(float64); ok {
			return dateNode{ms: f, valid: true}, nil
		}
	case "$y":
		if s, ok := c.(string); ok {
			b, err := base64.StdEncoding.DecodeString(s)
			if err == nil {
				return bytesNode(b), nil
			}
		}
	case "$k":
		if s, ok := c.(string); ok {
			if k, ok := types.ParseRowKind(s); ok {
				return kindNode(k), nil
			}
		}
	case "$s":
		if l, ok := c.(arrNode); ok {
			return setNode(l), nil
		}
	case "$m":
		if l, ok := c.(arrNode); ok {
			var m mapNode
			for _, p := range l {
				pair, ok := p.(arrNode)
				if !ok || len(pair) != 2 {
					return nil, bad
				}
				m.keys, m.vals = append(m.keys, pair[0]), append(m.vals, pair[1])
			}
			return m, nil
		}
	case "$r":
		return readRow(c)
	}
	return nil, bad
}

func readRow(c node) (node, error) {
	o, ok := c.(objNode)
	if !ok {
		return nil, errors.New("bad $r value")
	}
	var r rowNode
	for i, k := range o.keys {
		switch k {
		case "k":
			f, _ := o.vals[i].(float64)
			r.kind = types.RowKind(f)
		case "t":
			// The type is encoding/json's encoding of [types.Type], in a string.
			s, _ := o.vals[i].(string)
			if err := json.Unmarshal([]byte(s), &r.typ); err != nil {
				return nil, fmt.Errorf("bad row type: %w", err)
			}
		case "v":
			l, _ := o.vals[i].(arrNode)
			r.vals = l
		}
	}
	return r, nil
}
