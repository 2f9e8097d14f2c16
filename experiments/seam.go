package experiments

// The helpers below serve the studies of other packages (limiterstudy,
// clientstudy) with the words and numbers of the split study's outputs;
// their bodies live beside the split study's code.

// TextNumber writes x for the text of a figure (titles, legends,
// captions) in the notation of the plots package's axes: the shortest
// decimal from 10^-6 up to 10^4, SI prefixes from 10^4 on (20k, 1M),
// e-notation beyond.
func TextNumber(x float64) string { return textNumber(x) }
