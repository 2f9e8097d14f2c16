package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// The output rules every command follows (README, "Outputs"):
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
// "*.png"), so that writing the outputs would replace an input.
func checkDirNotInput(flag, dir string, patterns []string, inputs ...string) error {
	for _, pattern := range patterns {
		matches, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, m := range matches {
			if err := checkNotInput(flag, m, inputs...); err != nil {
				return flagError(flag, dir, fmt.Sprintf("a folder whose outputs do not replace an input (%s is the input %s)", m, inputName(m, inputs)))
			}
		}
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
