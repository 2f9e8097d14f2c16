// Package report owns ratesim's reproduction of R. Guérin, "When Two is
// Worse Than One" (2019): it runs the experiments behind each claim of the
// note (and a few beyond it), draws their figures and writes a Markdown
// report in which every table and figure names the ratesim command that
// regenerates it. ratesim paper is its command.
//
// The report is a pure function of the ratesim version, the seed and the
// mode (full or quick): it carries no date or host, and the figures' SVG
// and PNG bytes depend only on the data. It is written whole or not at
// all: every file is first written into a staging folder beside the
// output, and moved into place only when all of them are done.
//
// [When Two is Worse Than One]: https://arxiv.org/abs/1906.02189
package report
