package experiments

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// JobsHeader is the header line of the per-job CSV: the job number
// (0-based, in arrival order), its arrival instant in seconds from the
// origin (exact: the nanoseconds written out), the sub-bucket it was
// dispatched to (0-based), and its delay in seconds in the one-bucket and
// in the split system (the exact delay rounded once to float64, shortest
// form).
const JobsHeader = "job,arrival_s,sub_bucket,delay_one_s,delay_split_s"

// jobRow is a job whose row is not written yet.
type jobRow struct {
	at         engine.Time
	sub        int
	one, split exact.Rat
	have       uint8 // bit 0: one known, bit 1: split known, bit 2: sub known
}

// jobWriter writes per-job rows in job order although delays become known
// out of order (under LIFO or random order a job that waits is served
// after later ones). Rows wait in a ring buffer, so memory is O(jobs
// waiting); under FCFS every row is complete at its arrival and is written
// at once.
type jobWriter struct {
	w    *bufio.Writer
	ring []jobRow
	base int64 // job number of ring[head]
	head int
	n    int
	line []byte
}

func newJobWriter(w io.Writer) *jobWriter {
	jw := &jobWriter{w: bufio.NewWriterSize(w, 1<<16), ring: make([]jobRow, 64)}
	jw.w.WriteString(JobsHeader + "\n")
	return jw
}

func (jw *jobWriter) row(id int64) *jobRow {
	i := int(id - jw.base)
	if i < 0 || i >= jw.n {
		panic(fmt.Sprintf("experiments: job %d outside the pending rows [%d, %d)", id, jw.base, jw.base+int64(jw.n)))
	}
	return &jw.ring[(jw.head+i)%len(jw.ring)]
}

func (jw *jobWriter) arrived(id int64, at engine.Time) {
	if jw.n == len(jw.ring) {
		ring := make([]jobRow, 2*len(jw.ring))
		for i := range jw.n {
			ring[i] = jw.ring[(jw.head+i)%len(jw.ring)]
		}
		jw.ring, jw.head = ring, 0
	}
	if jw.n == 0 {
		jw.base = id
	}
	jw.ring[(jw.head+jw.n)%len(jw.ring)] = jobRow{at: at}
	jw.n++
}

func (jw *jobWriter) dispatched(id int64, sub int) {
	r := jw.row(id)
	r.sub, r.have = sub, r.have|4
}

func (jw *jobWriter) served(id int64, one bool, w exact.Rat) error {
	r := jw.row(id)
	if one {
		r.one, r.have = w, r.have|1
	} else {
		r.split, r.have = w, r.have|2
	}
	for jw.n > 0 && jw.ring[jw.head].have == 7 {
		if err := jw.write(jw.base, &jw.ring[jw.head]); err != nil {
			return err
		}
		jw.head = (jw.head + 1) % len(jw.ring)
		jw.base++
		jw.n--
	}
	return nil
}

func (jw *jobWriter) write(id int64, r *jobRow) error {
	b := strconv.AppendInt(jw.line[:0], id, 10)
	b = append(b, ',')
	b = append(b, r.at.String()...)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.sub), 10)
	b = append(b, ',')
	b = strconv.AppendFloat(b, r.one.QuoFloat64(1e9), 'g', -1, 64)
	b = append(b, ',')
	b = strconv.AppendFloat(b, r.split.QuoFloat64(1e9), 'g', -1, 64)
	b = append(b, '\n')
	jw.line = b
	_, err := jw.w.Write(b)
	return err
}

func (jw *jobWriter) finish() error {
	if jw.n != 0 {
		panic(fmt.Sprintf("experiments: %d job rows incomplete after the run", jw.n))
	}
	return jw.w.Flush()
}
