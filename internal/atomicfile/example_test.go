package atomicfile_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/ratesim/ratesim/internal/atomicfile"
)

// This example writes a small CSV file whole: a reader of results.csv
// sees either no file or both lines.
func ExampleWrite() {
	dir, err := os.MkdirTemp("", "atomicfile")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "results.csv")
	err = atomicfile.Write(context.Background(), path, func(w io.Writer) error {
		_, err := fmt.Fprint(w, "load,mean_delay_s\n0.5,0.25\n")
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// load,mean_delay_s
	// 0.5,0.25
}

// This example streams rows into a file over a long run, and discards
// them if the run fails: Abort is deferred and does nothing after Commit.
func ExampleCreate() {
	dir, err := os.MkdirTemp("", "atomicfile")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	f, err := atomicfile.Create(context.Background(), filepath.Join(dir, "jobs.csv"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Abort()
	fmt.Fprintln(f, "arrival_s,delay_s")
	for i := range 3 {
		fmt.Fprintf(f, "%d,0\n", i)
	}
	if err := f.Commit(); err != nil {
		log.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	fmt.Println(len(ents), ents[0].Name())
	// Output: 1 jobs.csv
}
