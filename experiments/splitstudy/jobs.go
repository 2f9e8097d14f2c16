package splitstudy

import (
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
// in the split system. Times and delays are plain decimals (no exponent):
// the arrival exact to the nanosecond, a delay exact when it is a whole
// number of nanoseconds (always when every token period 1/r is, as with
// r = 1 or 0.5 tokens/s), otherwise the exact delay rounded once to
// float64, shortest form.
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
// full is closed (full is passed in: close sets jw.full to nil); after a
// write error it only recycles batches. Rows are appended to one buffer,
// written out whenever it holds more than flushAt bytes.
func (jw *jobWriter) format(w io.Writer, full <-chan []rawRow) {
	const flushAt = 1<<16 - 256 // a row is at most about 130 bytes
	buf := make([]byte, 0, 1<<16)
	buf = append(buf, JobsHeader+"\n"...)
	var err error
	for b := range full {
		for i := range b {
			if err != nil {
				break
			}
			buf = appendRow(buf, &b[i])
			if len(buf) > flushAt {
				_, err = w.Write(buf)
				buf = buf[:0]
			}
		}
		if err != nil && jw.err.Load() == nil {
			jw.err.Store(&err)
		}
		jw.free <- b[:0]
	}
	if err == nil && len(buf) > 0 {
		_, err = w.Write(buf)
	}
	jw.done <- err
}

// appendRow appends r's CSV line (see JobsHeader).
func appendRow(b []byte, r *rawRow) []byte {
	b = appendUint(b, uint64(r.id))
	b = append(b, ',')
	b, _ = r.at.AppendText(b)
	b = append(b, ',')
	b = appendUint(b, uint64(r.sub))
	b = append(b, ',')
	b = appendWait(b, r.one, r.oneDen)
	b = append(b, ',')
	b = appendWait(b, r.split, r.splitDen)
	return append(b, '\n')
}

// appendUint appends u in decimal, as strconv.AppendUint does, two digits
// at a time (job numbers and sub-buckets are never negative).
func appendUint(b []byte, u uint64) []byte {
	if u < 10 {
		return append(b, byte('0'+u))
	}
	var buf [20]byte
	i := len(buf)
	for u >= 100 {
		q := u / 100
		d := (u - q*100) * 2
		i -= 2
		buf[i], buf[i+1] = digitPairs[d], digitPairs[d+1]
		u = q
	}
	if u >= 10 {
		i -= 2
		buf[i], buf[i+1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		i--
		buf[i] = byte('0' + u)
	}
	return append(b, buf[i:]...)
}

// digitPairs is "00", "01", ... "99" end to end.
var digitPairs = func() (d [200]byte) {
	for i := range 100 {
		d[2*i], d[2*i+1] = byte('0'+i/10), byte('0'+i%10)
	}
	return d
}()

// appendWait appends w/den ns in seconds as a plain decimal (no
// exponent): exactly, as [engine.Time.AppendText] writes it, when w/den
// is a whole number of nanoseconds (always when the token periods are
// whole nanoseconds), and otherwise the float64 nearest the exact value
// in its shortest form. den is positive.
func appendWait(b []byte, w exact.Int128, den int64) []byte {
	if w.Sign() == 0 {
		return append(b, '0') // most jobs wait for nothing
	}
	if w.IsInt64() {
		v := w.Int64()
		if den == 1 {
			b, _ = engine.Time(v).AppendText(b)
			return b
		}
		if v%den == 0 {
			b, _ = engine.Time(v / den).AppendText(b)
			return b
		}
	} else if q, r := w.QuoRem(den); r == 0 && q.IsInt64() {
		b, _ = engine.Time(q.Int64()).AppendText(b)
		return b
	}
	const exactly = 1 << 53 // integers float64 holds exactly
	if w.IsInt64() && w.Int64() <= exactly && w.Int64() >= -exactly && den <= exactly/1_000_000_000 {
		// Both operands exact: one division rounds once.
		return strconv.AppendFloat(b, float64(w.Int64())/float64(den*1_000_000_000), 'f', -1, 64)
	}
	return strconv.AppendFloat(b, exact.Frac(w, den).QuoFloat64(1e9), 'f', -1, 64)
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
