// Package param declares each parameter of a study once, as ns-3's
// AddAttribute and gonum's Parameter{Name} do: its YAML key, its flag, its
// unit, its default, the grammar of its values, the check of a value with
// the message that says what fits, which models read it and whether it can
// be a sweep axis. Flags, YAML keys, sweep axes, --help text, the JSON echo
// of the parameters and their errors are derived from that one declaration,
// so a flag and the YAML key of the same parameter cannot disagree.
//
// A study keeps its parameters as a struct whose fields carry yaml tags
// (the keys) and declares a [Table] over it:
//
//	type Params struct {
//		Rate  string `yaml:"rate"`
//		Nodes int    `yaml:"nodes"`
//	}
//
//	var Table = param.Register(param.New("drl", "designs", Params{},
//		param.Param{Key: "rate", Kind: param.Rat, Unit: "tokens/s", Default: "10",
//			Usage: "limit rate R per key", Check: param.Positive},
//		param.Param{Key: "nodes", Kind: param.Int, Default: "4",
//			Usage: "N: nodes of the fleet", Check: param.AtLeast(1)},
//	))
//
// [Table.Defaults] sets a struct to the declared defaults, [Table.Bind]
// registers one flag per parameter on a pflag.FlagSet (the flag's name is
// the key in kebab case unless [Param.Flag] says otherwise), [Table.Decode]
// reads a YAML mapping into the same struct through the same parser and
// check, [Table.Set] sets one parameter from text (a sweep axis), and
// [Table.Echo] gives the values in declaration order for a JSON echo.
// Every error is an [*Error] naming the parameter as its source spells it:
// "--sync-period 1.5ns: want ..." for a flag, "spec.yaml:7: sync_period
// 1.5ns: want ..." for a YAML key.
//
// [Verify] is the test every table passes: for each parameter and a set of
// hostile values (0, -1, the largest int64, 1e308, 1e-300, NaN, inf, 1ns,
// empty, text), the flag and the YAML key accept the same values, store
// the same field values and refuse the others with the same message.
package param
