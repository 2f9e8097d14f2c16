package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// outputAnnotation marks a flag that names an output path; its value says
// what the path is: a folder, a file, or a file where "-" means standard
// output. checkOutputFlags refuses "-" for the first two, so that no
// command creates a folder or file named "-".
const outputAnnotation = "ratesim_output"

const (
	outputFolder = "folder"
	outputFile   = "file"
	outputStdout = "file or -" // "-" writes to standard output
)

// markOutput marks the flag name of cmd as naming an output of the kind
// outputFolder, outputFile or outputStdout.
func markOutput(cmd *cobra.Command, name, kind string) {
	if err := cmd.Flags().SetAnnotation(name, outputAnnotation, []string{kind}); err != nil {
		panic(err) // a flag name misspelt in this package
	}
}

// checkOutputFlags refuses "-" in an output flag that cannot write to
// standard output. It runs before every command (the root's
// PersistentPreRunE).
func checkOutputFlags(cmd *cobra.Command, _ []string) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		kind := f.Annotations[outputAnnotation]
		if err != nil || len(kind) == 0 || kind[0] == outputStdout || strings.TrimSpace(f.Value.String()) != "-" {
			return
		}
		example := f.DefValue
		switch {
		case example != "":
		case kind[0] == outputFile:
			example = "out.png"
		default:
			example = "figs"
		}
		err = flagError(f.Name, "-", fmt.Sprintf("the name of a %s, e.g. --%s %s (standard output cannot hold a %s)", kind[0], f.Name, example, kind[0]))
	})
	return err
}

// deprecated says on standard error that a spelling still works but is
// no longer documented, and what replaces it.
func deprecated(cmd *cobra.Command, old, use string) {
	fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: warning: %s is deprecated: use %s\n", old, use)
}

// noteFigures says on w (standard error) which figures a command wrote,
// one path per line, as the sweep and limiters reports list theirs.
func noteFigures(w io.Writer, paths []string) {
	switch len(paths) {
	case 0:
	case 1:
		fmt.Fprintf(w, "ratesim: wrote %s\n", paths[0])
	default:
		fmt.Fprintf(w, "ratesim: wrote %d figures:\n", len(paths))
		for _, p := range paths {
			fmt.Fprintf(w, "  %s\n", p)
		}
	}
}
