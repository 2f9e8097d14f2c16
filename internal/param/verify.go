package param

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// Hostile are the values [Verify] gives every parameter: the boundaries a
// hostile user tries.
var Hostile = []string{"0", "-1", "1", "9223372036854775807", "1e308", "1e-300", "NaN", "inf", "-inf", "1ns", "1.5ns", "1/3", "", "text", "true"}

// Verify checks that the flags a command offers and the YAML keys of a
// table are one declaration. flags returns a fresh flag set of the command
// (nil: one bound from the table alone). For each parameter, the flag must
// exist with the declared default; and for its default and each of the
// [Hostile] values, the flag and the YAML key must either both take it,
// holding the same value, or both refuse it with the same want. It
// returns every disagreement found, joined, or nil: the test every table
// and command passes.
func Verify(t *Table, flags func() *pflag.FlagSet) error {
	if flags == nil {
		flags = func() *pflag.FlagSet {
			fs := pflag.NewFlagSet(t.name, pflag.ContinueOnError)
			t.Bind(fs, reflect.New(t.typ).Interface())
			return fs
		}
	}
	var errs []error
	for i := range t.params {
		p := &t.params[i]
		fl := flags().Lookup(p.FlagName())
		if fl == nil {
			errs = append(errs, fmt.Errorf("%s: no flag --%s for the key %s", t.name, p.FlagName(), p.Key))
			continue
		}
		def := reflect.New(t.typ)
		t.Defaults(def.Interface())
		if want := format(p, def.Elem().FieldByIndex(t.field[p.Key])); fl.DefValue != want {
			errs = append(errs, fmt.Errorf("%s: --%s's default is %q, the key %s's %q", t.name, p.FlagName(), fl.DefValue, p.Key, want))
		}
		for _, v := range append([]string{p.Default}, Hostile...) {
			if err := agree(t, p, flags(), v); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// format writes a field's value as its flag shows it.
func format(p *Param, f reflect.Value) string {
	return (&flagValue{p: p, f: f}).String()
}

// agree sets p to text through the flag of fs and through its YAML key
// and compares the outcomes.
func agree(t *Table, p *Param, fs *pflag.FlagSet, text string) error {
	fs.SetOutput(discard{})
	ferr := fs.Set(p.FlagName(), text)
	b := reflect.New(t.typ)
	t.Defaults(b.Interface())
	var doc yaml.Node
	src := p.Key + ": " + strconv.Quote(text) + "\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		return fmt.Errorf("%s: %s: %v", t.name, src, err)
	}
	yerr := t.Decode("spec.yaml", &doc, b.Interface())
	var fe, ye *Error
	errors.As(ferr, &fe)
	errors.As(yerr, &ye)
	switch {
	case (ferr == nil) != (yerr == nil), ferr != nil && (fe == nil || ye == nil || fe.Want != ye.Want):
		return fmt.Errorf("%s: %q for %s: the flag says %v; the YAML key %v", t.name, text, p.Key, ferr, yerr)
	case ferr == nil:
		if got, want := fs.Lookup(p.FlagName()).Value.String(), format(p, b.Elem().FieldByIndex(t.field[p.Key])); got != want {
			return fmt.Errorf("%s: %q for %s: the flag holds %s, the YAML key %s", t.name, text, p.Key, got, want)
		}
	}
	return nil
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
