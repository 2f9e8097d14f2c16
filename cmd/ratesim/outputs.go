package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ratesim/ratesim/internal/atomicfile"
)

// The output rules every command follows (docs/outputs.md, "Outputs"):
//
//   - An output never replaces an input. Before anything is written, each
//     output file, and each file an output folder would receive, is
//     compared with each input with os.SameFile, so that a symbolic or
//     hard link to an input is caught as well as the same name
//     (checkNotInput, checkDirNotInput).
//   - Files are written whole or not at all through internal/atomicfile,
//     which fsyncs them before the rename, gives a new file 0666 &^ umask,
//     and writes through a symbolic link to the file it points to.
//   - Writes to standard output are checked (Execute).

// checkNotInput refuses the output file path of --flag when it is one of
// inputs: the same file through its name, a symbolic link or a hard link.
// A path that does not exist yet is no input.
func checkNotInput(flag, path string, inputs ...string) error {
	out, err := os.Stat(path)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		if fi, err := os.Stat(in); err == nil && os.SameFile(out, fi) {
			return flagError(flag, path, fmt.Sprintf("a file other than the input %s, which it would replace", in))
		}
	}
	return nil
}

// checkDirNotInput refuses the output folder dir of --flag when one of
// inputs is a file in it whose name matches one of patterns (the names
// the command writes there, as in filepath.Match: "results.json",
// "*.png"), so that writing the outputs would replace an input. It then
// creates the folder and claims it for this run (atomicfile.Claim), so
// that a second run writing to it at the same time is refused at once
// naming the folder, rather than both leaving a mix; Execute releases it.
func checkDirNotInput(flag, dir string, patterns []string, inputs ...string) error {
	return checkDirNotInputAs(flag, dir, atomicfile.LockName, patterns, inputs...)
}

// checkDirNotInputAs is checkDirNotInput claiming the folder by the lock
// file lock (atomicfile.ClaimAs): a shard of a sweep claims its own.
func checkDirNotInputAs(flag, dir, lock string, patterns []string, inputs ...string) error {
	for _, pattern := range patterns {
		matches, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, m := range matches {
			if err := checkNotInput(flag, m, inputs...); err != nil {
				return flagError(flag, dir, fmt.Sprintf("a folder whose outputs do not replace an input (%s is the input %s)", m, inputName(m, inputs)))
			}
		}
	}
	if err := atomicfile.ClaimAs(dir, lock); errors.Is(err, atomicfile.ErrBusy) {
		return fmt.Errorf("--%s %w", flag, err)
	} else if err != nil {
		return flagError(flag, dir, fmt.Sprintf("a folder that can be created (%v)", err))
	}
	return nil
}

// inputName returns the input that path is.
func inputName(path string, inputs []string) string {
	out, _ := os.Stat(path)
	for _, in := range inputs {
		if fi, err := os.Stat(in); err == nil && out != nil && os.SameFile(out, fi) {
			return in
		}
	}
	return path
}

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
