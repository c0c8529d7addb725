// Package jsonenc writes Go values as indented JSON the way encoding/json
// does, except that a NaN or infinite number is written as the string
// "NaN", "Infinity" or "-Infinity" (docs/cli.md): the JSON results of qrc
// solve and of the library's Report.
package jsonenc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/qrc-lang/qrc/point"
)

// Write writes v as indented JSON. A NaN or infinite number, which
// JSON cannot represent, is written as the string "NaN", "Infinity" or
// "-Infinity" (docs/cli.md), so a result at a non-finite point is still
// printed rather than lost.
func Write(w io.Writer, v any) error {
	tree, err := jsonTree(reflect.ValueOf(v))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// jsonObject is a struct's fields in declaration order.
type jsonObject []jsonField

type jsonField struct {
	key string
	val any
}

// MarshalJSON writes the fields in order.
func (o jsonObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(f.key)
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(f.val); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

// jsonTree turns v into values encoding/json encodes the way it would
// encode v (struct fields by their json tags, in order, omitempty
// honoured; json.Marshalers called), except that non-finite floats become
// strings.
func jsonTree(v reflect.Value) (any, error) {
	if !v.IsValid() {
		return nil, nil
	}
	if v.Type().Implements(marshalerType) {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return nil, nil
		}
		b, err := v.Interface().(json.Marshaler).MarshalJSON()
		return json.RawMessage(b), err
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, nil
		}
		return jsonTree(v.Elem())
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if s := point.NonFiniteString(f); s != "" {
			return s, nil
		}
		return f, nil
	case reflect.Slice:
		if v.IsNil() {
			return nil, nil
		}
		fallthrough
	case reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			e, err := jsonTree(v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = e
		}
		return out, nil
	case reflect.Map:
		if v.IsNil() {
			return nil, nil
		}
		out := map[string]any{}
		it := v.MapRange()
		for it.Next() {
			e, err := jsonTree(it.Value())
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(it.Key().Interface())] = e
		}
		return out, nil
	case reflect.Struct:
		var obj jsonObject
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			fv := v.Field(i)
			if f.Anonymous && name == "" {
				// an embedded struct's fields are the outer object's, as
				// encoding/json has them
				e, err := jsonTree(fv)
				if err != nil {
					return nil, err
				}
				if inner, ok := e.(jsonObject); ok {
					obj = append(obj, inner...)
				}
				continue
			}
			if name == "" {
				name = f.Name
			}
			if strings.Contains(opts, "omitempty") && isEmpty(fv) {
				continue
			}
			e, err := jsonTree(fv)
			if err != nil {
				return nil, err
			}
			obj = append(obj, jsonField{name, e})
		}
		return obj, nil
	}
	return v.Interface(), nil
}

// isEmpty is encoding/json's test for omitempty.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
