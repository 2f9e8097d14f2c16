package experiments

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/ratesim/ratesim/engine"
)

// JobsHeader is the header line of the per-job CSV: the job number
// (0-based, in arrival order), its arrival instant in seconds from the
// origin, the sub-bucket it was dispatched to (0-based), and its delay in
// seconds in the one-bucket and in the split system.
const JobsHeader = "job,arrival_s,sub_bucket,delay_one_s,delay_split_s"

// jobRow is a job whose row is not written yet.
type jobRow struct {
	at         engine.Time
	sub        int
	one, split float64
	have       uint8 // bit 0: one known, bit 1: split known
}

// jobWriter writes per-job rows in job order although delays become known
// out of order (a job that waits is served after later jobs that do not).
// Rows wait in a ring buffer, so memory is O(jobs waiting), not O(jobs).
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

func (jw *jobWriter) arrived(id int64, at engine.Time, sub int) {
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
	jw.ring[(jw.head+jw.n)%len(jw.ring)] = jobRow{at: at, sub: sub}
	jw.n++
}

func (jw *jobWriter) served(id int64, one bool, d float64) error {
	i := int(id - jw.base)
	if i < 0 || i >= jw.n {
		panic(fmt.Sprintf("experiments: delay for job %d outside the pending rows [%d, %d)", id, jw.base, jw.base+int64(jw.n)))
	}
	r := &jw.ring[(jw.head+i)%len(jw.ring)]
	if one {
		r.one, r.have = d, r.have|1
	} else {
		r.split, r.have = d, r.have|2
	}
	for jw.n > 0 && jw.ring[jw.head].have == 3 {
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
	b = strconv.AppendFloat(b, float64(r.at), 'g', -1, 64)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.sub), 10)
	b = append(b, ',')
	b = strconv.AppendFloat(b, r.one, 'g', -1, 64)
	b = append(b, ',')
	b = strconv.AppendFloat(b, r.split, 'g', -1, 64)
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
