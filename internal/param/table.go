package param

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// Table is the declarations of a study's parameters over the struct that
// holds their values.
type Table struct {
	name   string // the study: "drl", "clients"
	models string // what ReadBy names, plural: "designs", "limiters"
	typ    reflect.Type
	params []Param
	field  map[string][]int // key -> the field's index path
	byName map[string]int   // key and flag name -> index in params
}

// New declares the parameters of study name over the struct type of
// proto (a struct value or a pointer to one); models is what
// [Param.ReadBy] names, in the plural ("designs"). It panics, as
// regexp.MustCompile does, on a declaration that cannot work: a key with
// no field of that yaml tag, a field of the wrong Go type for the kind, a
// key or flag declared twice, or a default its own check refuses.
func New(name, models string, proto any, params ...Param) *Table {
	typ := reflect.TypeOf(proto)
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	t := &Table{name: name, models: models, typ: typ, params: params, field: map[string][]int{}, byName: map[string]int{}}
	tags := map[string][]int{}
	for _, f := range reflect.VisibleFields(typ) {
		if tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); tag != "" && tag != "-" && f.IsExported() {
			tags[tag] = f.Index
		}
	}
	zero := reflect.New(typ).Elem()
	for i := range t.params {
		p := &t.params[i]
		idx, ok := tags[p.Key]
		if !ok {
			panic(fmt.Sprintf("param: %s: key %q has no field with that yaml tag in %v", name, p.Key, typ))
		}
		f := zero.FieldByIndex(idx)
		if !slices.Contains(fieldKinds[p.Kind], f.Kind()) || f.Kind() == reflect.Slice && f.Type().Elem().Kind() != reflect.String {
			panic(fmt.Sprintf("param: %s: key %q is a %s, which a %v field cannot hold", name, p.Key, kindNames[p.Kind], f.Type()))
		}
		for _, n := range []string{p.Key, p.FlagName()} {
			if j, dup := t.byName[n]; dup && j != i {
				panic(fmt.Sprintf("param: %s: %q declared twice", name, n))
			}
			t.byName[n] = i
		}
		t.field[p.Key] = idx
		if p.Default != "" && p.Kind != List {
			if want := p.store(f, p.Default); want != "" {
				panic(fmt.Sprintf("param: %s: the default %q of %q is refused: want %s", name, p.Default, p.Key, want))
			}
		}
	}
	return t
}

var (
	mu     sync.Mutex
	tables []*Table
)

// Register records t among the tables [Tables] returns (for the tests and
// the documentation that cover every parameter) and returns it.
func Register(t *Table) *Table {
	mu.Lock()
	defer mu.Unlock()
	tables = append(tables, t)
	return t
}

// Tables returns the registered tables, in the order of registration.
func Tables() []*Table {
	mu.Lock()
	defer mu.Unlock()
	return slices.Clone(tables)
}

// Name returns the study the table declares the parameters of.
func (t *Table) Name() string { return t.name }

// Params returns the declarations, in order (a copy).
func (t *Table) Params() []Param { return slices.Clone(t.params) }

// Lookup returns the declaration of the parameter with this key or flag
// name, or nil.
func (t *Table) Lookup(name string) *Param {
	if i, ok := t.byName[name]; ok {
		return &t.params[i]
	}
	return nil
}

// New returns a pointer to a new struct of the table's type, set to the
// defaults.
func (t *Table) New() any {
	v := reflect.New(t.typ)
	t.Defaults(v.Interface())
	return v.Interface()
}

// target returns the struct dst points to, panicking on a wrong type.
func (t *Table) target(dst any) reflect.Value {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Type() != t.typ {
		panic(fmt.Sprintf("param: %s: want a *%v, got %T", t.name, t.typ, dst))
	}
	return v.Elem()
}

// Defaults sets each declared field of dst (a pointer to the table's
// struct) to its default; other fields are left alone.
func (t *Table) Defaults(dst any) {
	s := t.target(dst)
	for i := range t.params {
		p := &t.params[i]
		f := s.FieldByIndex(t.field[p.Key])
		f.SetZero()
		if p.Default != "" {
			if p.Kind == List {
				for _, e := range strings.Split(p.Default, ",") {
					p.store(f, e)
				}
				continue
			}
			p.store(f, p.Default)
		}
	}
}

// Set sets the parameter with this key or flag name in dst from text, as
// a sweep axis does; a List gets text as its only element. The error is
// an [*Error] without a source (see [AsFlag]), or says the name is not a
// parameter.
func (t *Table) Set(dst any, name, text string) error {
	p := t.Lookup(name)
	if p == nil {
		return fmt.Errorf("%s: no parameter %q: want one of %s", t.name, name, orList(t.keys(false)))
	}
	f := t.target(dst).FieldByIndex(t.field[p.Key])
	if p.Kind == List {
		f.SetZero()
	}
	if want := p.store(f, text); want != "" {
		return &Error{Key: p.Key, Flag: p.FlagName(), Value: text, Want: want}
	}
	return nil
}

// Sweepable returns the keys of the parameters that can be sweep axes.
func (t *Table) Sweepable() []string { return t.keys(true) }

func (t *Table) keys(sweep bool) []string {
	var ks []string
	for _, p := range t.params {
		if !sweep || p.Sweep {
			ks = append(ks, p.Key)
		}
	}
	return ks
}

// Echo returns the values of dst's parameters in declaration order, as a
// JSON object of key: value (rates and durations as the text given).
func (t *Table) Echo(dst any) Values {
	s := t.target(dst)
	vs := make(Values, len(t.params))
	for i, p := range t.params {
		vs[i] = KV{p.Key, s.FieldByIndex(t.field[p.Key]).Interface()}
	}
	return vs
}

// KV is a parameter's key and value.
type KV struct {
	Key   string
	Value any
}

// Values are parameters in order; they marshal to a JSON object in that
// order.
type Values []KV

// MarshalJSON writes the values as one JSON object, in order.
func (vs Values) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('{')
	for i, kv := range vs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(kv.Key)
		v, err := json.Marshal(kv.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return []byte(b.String()), nil
}

// Unread returns an error for the first parameter given (given reports
// whether the user set a key) that none of the models run reads: a value
// that would change nothing is refused. fromFlag names it as its flag.
func (t *Table) Unread(given func(key string) bool, run []string, fromFlag bool) error {
	for _, p := range t.params {
		if p.ReadBy == nil || !given(p.Key) || slices.ContainsFunc(p.ReadBy, func(m string) bool { return slices.Contains(run, m) }) {
			continue
		}
		name := p.Key
		if fromFlag {
			name = "--" + p.FlagName()
		}
		return fmt.Errorf("%s applies to %s only, not to the %s run (%s): %w", name, strings.Join(p.ReadBy, ", "), t.models, strings.Join(run, ","), ErrParam)
	}
	return nil
}

// flagValue is a pflag.Value storing into one field through the one
// parser.
type flagValue struct {
	p       *Param
	f       reflect.Value
	changed bool
}

func (v *flagValue) String() string {
	if !v.f.IsValid() {
		return ""
	}
	if v.p.Kind == List {
		return "[" + strings.Join(v.f.Interface().([]string), ",") + "]"
	}
	return fmt.Sprint(v.f.Interface())
}

func (v *flagValue) Set(text string) error {
	if v.p.Kind == List && !v.changed {
		v.f.SetZero() // the first --flag replaces the default
	}
	v.changed = true
	if want := v.p.store(v.f, text); want != "" {
		return &Error{Key: v.p.Key, Flag: v.p.FlagName(), Value: text, Want: want, FromFlag: true}
	}
	return nil
}

func (v *flagValue) Type() string { return kindNames[v.p.Kind] }

// IsBoolFlag lets a Bool flag be given without a value.
func (v *flagValue) IsBoolFlag() bool { return v.p.Kind == Bool }

// Bind sets dst (a pointer to the table's struct) to the defaults and
// registers one flag per parameter on fs, each storing into its field
// through the same parser and check as [Table.Decode]. The flag's help is
// Usage; pflag adds the default.
func (t *Table) Bind(fs *pflag.FlagSet, dst any) {
	t.Defaults(dst)
	s := t.target(dst)
	for i := range t.params {
		p := &t.params[i]
		fl := fs.VarPF(&flagValue{p: p, f: s.FieldByIndex(t.field[p.Key])}, p.FlagName(), p.Short, p.Usage)
		if p.Kind == Bool {
			fl.NoOptDefVal = "true"
		}
	}
}

// Decode reads a YAML mapping into dst (a pointer to the table's struct),
// each value through the same parser and check as the flag: a scalar, or
// for a List a sequence of scalars. Keys not declared are refused with
// the keys that are; a key given twice is refused. Errors name file and
// the value's line. Fields of keys not in the mapping keep their values
// (call [Table.Defaults] first for a fresh struct).
func (t *Table) Decode(file string, node *yaml.Node, dst any) error {
	s := t.target(dst)
	if node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = node.Content[0]
	}
	if node.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: want a mapping of %s's parameters (key: value): %w", file, node.Line, t.name, ErrParam)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], node.Content[i+1]
		p := t.Lookup(k.Value)
		if p == nil || p.Key != k.Value {
			return fmt.Errorf("%s:%d: unknown key %q: want one of %s: %w", file, k.Line, k.Value, orList(t.keys(false)), ErrParam)
		}
		if seen[p.Key] {
			return fmt.Errorf("%s:%d: key %q given twice: %w", file, k.Line, k.Value, ErrParam)
		}
		seen[p.Key] = true
		f := s.FieldByIndex(t.field[p.Key])
		elems := []*yaml.Node{v}
		if p.Kind == List {
			f.SetZero()
			if v.Kind == yaml.SequenceNode {
				elems = v.Content
			}
		}
		for _, e := range elems {
			if e.Kind != yaml.ScalarNode || e.Tag != "" && e.Tag != "!!str" && e.Tag != "!!int" && e.Tag != "!!float" && e.Tag != "!!bool" && e.Tag != "!!null" {
				return &Error{Key: p.Key, Flag: p.FlagName(), Value: e.Tag, Want: "a single value (" + kindNames[p.Kind] + ")", File: file, Line: e.Line}
			}
			text := e.Value
			if e.Tag == "!!null" {
				text = "" // key: or key: ~ is the empty value
			}
			if want := p.store(f, text); want != "" {
				return &Error{Key: p.Key, Flag: p.FlagName(), Value: text, Want: want, File: file, Line: e.Line}
			}
		}
	}
	return nil
}
