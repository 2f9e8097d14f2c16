package experiments

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"sync/atomic"

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

// rawRow is a complete row on its way to the formatter: the waits are
// one/oneDen and split/splitDen nanoseconds.
type rawRow struct {
	id               int64
	at               engine.Time
	sub              int
	one, split       exact.Int128
	oneDen, splitDen int64
}

// rowBatch is the number of rows handed to the formatter at a time.
const rowBatch = 4096

// jobWriter writes per-job rows in job order although delays become known
// out of order (under LIFO or random order a job that waits is served
// after later ones). Rows wait in a ring buffer, so memory is O(jobs
// waiting); under FCFS every row is complete at its arrival and goes out
// at once. Complete rows are formatted and written by a goroutine of the
// writer's own, in batches of rowBatch, so that formatting runs beside
// the simulation; the output is the same bytes in the same order.
type jobWriter struct {
	ring  []jobRow
	base  int64 // job number of ring[head]
	head  int
	n     int
	batch []rawRow      // rows not yet handed to the formatter
	full  chan []rawRow // batches to format, in order
	free  chan []rawRow // batches formatted, for reuse
	done  chan error    // the formatter's result, once full is closed
	err   atomic.Pointer[error]
}

func newJobWriter(w io.Writer) *jobWriter {
	jw := &jobWriter{ring: make([]jobRow, 64), full: make(chan []rawRow, 2), free: make(chan []rawRow, 3), done: make(chan error, 1)}
	for range 2 {
		jw.free <- make([]rawRow, 0, rowBatch)
	}
	jw.batch = make([]rawRow, 0, rowBatch)
	go jw.format(w, jw.full)
	return jw
}

// format writes the header and then every batch received on full, until
// full is closed (full is passed in: close sets jw.full to nil); after a write error it only recycles batches.
func (jw *jobWriter) format(w io.Writer, full <-chan []rawRow) {
	bw := bufio.NewWriterSize(w, 1<<16)
	_, err := bw.WriteString(JobsHeader + "\n")
	line := make([]byte, 0, 128)
	for b := range full {
		for i := range b {
			if err != nil {
				break
			}
			line = appendRow(line[:0], &b[i])
			_, err = bw.Write(line)
		}
		if err != nil && jw.err.Load() == nil {
			jw.err.Store(&err)
		}
		jw.free <- b[:0]
	}
	if err == nil {
		err = bw.Flush()
	}
	jw.done <- err
}

// appendRow appends r's CSV line (see JobsHeader).
func appendRow(b []byte, r *rawRow) []byte {
	b = strconv.AppendInt(b, r.id, 10)
	b = append(b, ',')
	b, _ = r.at.AppendText(b)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.sub), 10)
	b = append(b, ',')
	b = appendWait(b, r.one, r.oneDen)
	b = append(b, ',')
	b = appendWait(b, r.split, r.splitDen)
	return append(b, '\n')
}

// appendWait appends w/den ns in seconds: the float64 nearest the exact
// value, shortest form.
func appendWait(b []byte, w exact.Int128, den int64) []byte {
	if w.Sign() == 0 {
		return append(b, '0')
	}
	const exactly = 1 << 53 // integers float64 holds exactly
	if w.IsInt64() && w.Int64() <= exactly && w.Int64() >= -exactly && den <= exactly/1_000_000_000 {
		// Both operands exact: one division rounds once.
		return strconv.AppendFloat(b, float64(w.Int64())/float64(den*1_000_000_000), 'g', -1, 64)
	}
	return strconv.AppendFloat(b, exact.Frac(w, den).QuoFloat64(1e9), 'g', -1, 64)
}

// emit queues a complete row, handing a full batch to the formatter. It
// returns the formatter's write error, if any.
func (jw *jobWriter) emit(r rawRow) error {
	jw.batch = append(jw.batch, r)
	if len(jw.batch) == rowBatch {
		jw.full <- jw.batch
		jw.batch = <-jw.free
		if e := jw.err.Load(); e != nil {
			return *e
		}
	}
	return nil
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
		h := &jw.ring[jw.head]
		err := jw.emit(rawRow{id: jw.base, at: h.at, sub: h.sub, one: h.one.Num(), oneDen: h.one.Den(), split: h.split.Num(), splitDen: h.split.Den()})
		if err != nil {
			return err
		}
		jw.head = (jw.head + 1) % len(jw.ring)
		jw.base++
		jw.n--
	}
	return nil
}

// complete queues the row of job id whose sub-bucket and waits (in units
// of 1/scale ns) are all known at its arrival, as on the FCFS fast path.
func (jw *jobWriter) complete(id int64, at engine.Time, sub int, one, split exact.Int128, scale int64) error {
	if jw.n != 0 {
		jw.arrived(id, at)
		jw.dispatched(id, sub)
		if err := jw.served(id, true, exact.Frac(one, scale)); err != nil {
			return err
		}
		return jw.served(id, false, exact.Frac(split, scale))
	}
	return jw.emit(rawRow{id: id, at: at, sub: sub, one: one, oneDen: scale, split: split, splitDen: scale})
}

// finish writes the rows left and waits for the formatter; every row must
// be complete.
func (jw *jobWriter) finish() error {
	if jw.n != 0 {
		panic(fmt.Sprintf("experiments: %d job rows incomplete after the run", jw.n))
	}
	return jw.close()
}

// close hands the last batch to the formatter, stops it and returns its
// error. It may be called more than once (a run that fails calls it to
// stop the formatter).
func (jw *jobWriter) close() error {
	if jw.full == nil {
		return nil
	}
	if len(jw.batch) > 0 {
		jw.full <- jw.batch
		jw.batch = nil
	}
	close(jw.full)
	jw.full = nil
	return <-jw.done
}
