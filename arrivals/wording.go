package arrivals

import (
	"strconv"
	"strings"
	"unicode"
)

// Messages that suggest an option (sort the trace, skip bad lines, read
// counts) name it by its [TraceOptions] field; a caller with other words
// for the options, such as a command line's flags, renders the same
// message with its own [OptionNamer] ([TraceError.Phrase]).

// An OptionNamer names a TraceOptions setting in a caller's words: field
// is a TraceOptions field name ("Sort", "SkipBad", "MaxBad", "Format",
// "Interval", "TimeFormat", "TimeCol") and value the suggested value, or ""
// to name the option alone.
type OptionNamer func(field, value string) string

// FieldNamer is the package's own [OptionNamer]: the field name, and
// field="value" with a value.
func FieldNamer(field, value string) string {
	if value == "" {
		return field
	}
	return field + "=" + strconv.Quote(value)
}

// FlagNamer is the [OptionNamer] of a command line whose flags are the
// fields in kebab case (TimeFormat is --time-format, as ratesim's), with
// the value shell-quoted when it needs it ("--time-col 'time of day'").
func FlagNamer(field, value string) string {
	var b strings.Builder
	b.WriteString("--")
	for i, r := range field {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	if value == "" {
		return b.String()
	}
	if strings.Trim(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") != "" {
		value = "'" + strings.ReplaceAll(value, "'", `'\''`) + "'"
	}
	return b.String() + " " + value
}

const (
	refMark = "\x1e" // brackets an option reference in a message template
	refSep  = "\x1f" // separates its field from its value
)

// optRef returns a reference to option field (with a suggested value, or
// "") for a message template.
func optRef(field, value string) string { return refMark + field + refSep + value + refMark }

// render returns the template tmpl with each option reference named by n.
func render(tmpl string, n OptionNamer) string {
	if !strings.Contains(tmpl, refMark) {
		return tmpl
	}
	parts := strings.Split(tmpl, refMark)
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 0 {
			b.WriteString(p)
			continue
		}
		field, value, _ := strings.Cut(p, refSep)
		b.WriteString(n(field, value))
	}
	return b.String()
}

// newHint returns a hint whose text is the template tmpl.
func newHint(cause error, option, value, tmpl string) *Hint {
	return &Hint{Cause: cause, Option: option, Value: value, Text: render(tmpl, FieldNamer), say: tmpl}
}

// setMsg sets the message of e to the template tmpl.
func (e *TraceError) setMsg(tmpl string) {
	e.say, e.Msg = tmpl, render(tmpl, FieldNamer)
}

// msgTemplate returns e's message template.
func (e *TraceError) msgTemplate() string {
	if e.say != "" {
		return e.say
	}
	return e.Msg
}

// Phrase returns e's message (as [TraceError.Error]) with the options it
// suggests named by n: ratesim's command line names them as its flags
// ("use --sort to sort the trace"); an error about an option's value
// ([TraceError.Option]) starts with that option named by n ("--time-col:
// arrivals: ...").
func (e *TraceError) Phrase(n OptionNamer) string {
	s := "arrivals: " + e.File
	if e.Option != "" {
		s = n(e.Option, "") + ": " + s
	}
	if e.Line > 0 {
		s += ":" + strconv.Itoa(e.Line)
	}
	s += ": " + render(e.msgTemplate(), n)
	if e.Hint != nil {
		s += "; " + e.Hint.Phrase(n)
	}
	return s
}

// Phrase returns the hint's text with the option it suggests named by n.
func (h *Hint) Phrase(n OptionNamer) string {
	if h.say == "" {
		return h.Text
	}
	return render(h.say, n)
}
