package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newManCmd returns the hidden "man DIR" command, which writes one man
// page per command (ratesim.1, ratesim-run.1, ...) into DIR with
// cobra/doc. Hidden because it serves packaging, not simulation.
func newManCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the man pages of ratesim and its commands into DIR (section 1)",
		Long: `Man writes one man page per command into DIR, created if missing:
ratesim.1, ratesim-run.1, ratesim-sweep.1, ... Read one with
man DIR/ratesim-run.1, or install them with
ratesim man /usr/local/share/man/man1.`,
		Hidden: true,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("man: want a folder for the man pages, e.g. ratesim man ./man (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if strings.TrimSpace(dir) == "-" {
				return fmt.Errorf("man -: want the name of a folder, e.g. ratesim man ./man (standard output cannot hold a folder)")
			}
			if err := os.MkdirAll(dir, 0o777); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true // the same pages for the same build
			manLongs(root)
			header := &doc.GenManHeader{Section: "1", Source: "ratesim " + root.Version, Manual: "ratesim manual"}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			n := 0
			countCommands(root, &n)
			fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: wrote %d man pages to %s\n", n, dir)
			return nil
		},
	}
}

// manLongs rewrites the long help of c and its subcommands for cobra/doc,
// which reads it as Markdown: an indented block (a table of limiters, the
// backoff strategies) becomes a code block, kept as written (as a no-fill
// block, rather than its first line run into the paragraph and the others
// indented), and elsewhere the characters Markdown would take for
// emphasis (α*(d), r_l) are escaped.
func manLongs(c *cobra.Command) {
	lines := strings.Split(c.Long, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  ") {
			lines[i] = "    " + l
			continue
		}
		lines[i] = strings.NewReplacer("*", `\*`, "_", `\_`).Replace(l)
	}
	c.Long = strings.Join(lines, "\n")
	for _, sub := range c.Commands() {
		manLongs(sub)
	}
}

// countCommands counts the commands GenManTree writes a page for.
func countCommands(c *cobra.Command, n *int) {
	if !c.IsAvailableCommand() && c.HasParent() || c.IsAdditionalHelpTopicCommand() {
		return
	}
	*n++
	for _, sub := range c.Commands() {
		countCommands(sub, n)
	}
}
