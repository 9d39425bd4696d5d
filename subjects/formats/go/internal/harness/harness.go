// Package harness is the measurement: verify every (dataset, format) pair, then time encode and
// decode per repeat and write one measurement line each.
//
// A time is the median over Samples samples of the per-operation time; each sample runs the
// operation in a batch sized (once per measurement, by doubling) so that it lasts at least
// MinSample, which keeps the clock's resolution and overhead out of the result. Repeats are the
// outer loop, so slow drift of the machine spreads over all formats instead of landing on
// whichever ran last.
package harness

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/klauspost/compress/zstd"

	"wirebench/formats-go/internal/codecs"
	"wirebench/formats-go/internal/dataset"
)

const (
	// GzipLevel of size_gzip_bytes: gzip's default.
	GzipLevel = 6
	// ZstdLevel of size_zstd_bytes: the zstd CLI's default (klauspost's SpeedDefault).
	ZstdLevel = 3
	// maxBatch: a batch never grows past this many operations, even if the clock stands still.
	maxBatch = 1 << 24
)

// Options of one run.
type Options struct {
	RunID     string
	Repeats   int
	Datasets  []dataset.Kind
	Codecs    []codecs.Codec
	Samples   int
	MinSample time.Duration
	Warmup    time.Duration
}

// Clock is where time comes from; tests substitute one that advances a fixed step per reading.
type Clock interface {
	Now() time.Time
}

// SystemClock reads the monotonic clock.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

// subject is a verified pair, ready to time.
type subject struct {
	codec   codecs.Codec
	data    dataset.Dataset
	encoded []byte
	gzip    uint64
	zstd    uint64
}

// Run measures everything opts selects, writing each line to out as soon as it exists so an
// interrupted run keeps what it measured. It returns how many pairs failed verification.
func Run(opts Options, spec *dataset.Spec, clock Clock, out io.Writer) (failed int, err error) {
	var subjects []subject
	for _, k := range opts.Datasets {
		data := spec.Generate(k)
		for _, c := range opts.Codecs {
			s, verr := verify(c, data)
			if verr != nil {
				failed++
				message := verr.Error()
				row := measurement(opts, c, data, 0, "failed", &message, Metrics{})
				if err := writeLine(out, row); err != nil {
					return failed, err
				}
				continue
			}
			subjects = append(subjects, s)
		}
	}
	for repeat := 1; repeat <= opts.Repeats; repeat++ {
		for _, s := range subjects {
			row := measurement(opts, s.codec, s.data, repeat, "ok", nil, measure(opts, clock, s))
			if err := writeLine(out, row); err != nil {
				return failed, err
			}
		}
	}
	return failed, nil
}

// verify: the encoding decodes to a value equal to the input, before anything is timed.
func verify(c codecs.Codec, data dataset.Dataset) (subject, error) {
	encoded, err := c.Encode(data)
	if err != nil {
		return subject{}, err
	}
	decoded, err := c.Decode(encoded, data.Kind)
	if err != nil {
		return subject{}, err
	}
	if !dataset.Equal(decoded, data) {
		return subject{}, fmt.Errorf("%s: decoded %s differs from the input", c.ID(), data.Kind.ID())
	}
	gz, err := gzipLen(encoded)
	if err != nil {
		return subject{}, err
	}
	return subject{codec: c, data: data, encoded: encoded, gzip: gz, zstd: zstdLen(encoded)}, nil
}

func gzipLen(b []byte) (uint64, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, GzipLevel)
	if err != nil {
		return 0, err
	}
	if _, err := w.Write(b); err != nil {
		return 0, fmt.Errorf("gzip: %w", err)
	}
	if err := w.Close(); err != nil {
		return 0, fmt.Errorf("gzip: %w", err)
	}
	return uint64(buf.Len()), nil
}

// zstdEncoder: no checksum, like the reference's zstd::bulk::compress (the CLI adds 4 bytes of one).
var zstdEncoder = func() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(ZstdLevel)),
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false))
	if err != nil {
		panic("zstd options: " + err.Error()) // constant options: a programming mistake
	}
	return enc
}()

func zstdLen(b []byte) uint64 {
	return uint64(len(zstdEncoder.EncodeAll(b, nil)))
}

// measure warms up, then times encode and decode.
func measure(opts Options, clock Clock, s subject) Metrics {
	// Results were verified already: here they only have to be computed (the codecs package
	// keeps each in a sink), so errors are not checked.
	encode, decode := codecs.Timed(s.codec, s.data, s.encoded)
	for start := clock.Now(); clock.Now().Sub(start) < opts.Warmup; {
		_ = encode()
		_ = decode()
	}
	serialize := perOp(opts, clock, encode)
	deserialize := perOp(opts, clock, decode)
	size, gz, zs := uint64(len(s.encoded)), s.gzip, s.zstd
	return Metrics{
		SerializeNs: &serialize.ns, DeserializeNs: &deserialize.ns,
		SizeBytes: &size, SizeGzipBytes: &gz, SizeZstdBytes: &zs,
		SerializeAllocs: &serialize.allocs, SerializeAllocBytes: &serialize.allocBytes,
		DeserializeAllocs: &deserialize.allocs, DeserializeAllocBytes: &deserialize.allocBytes,
	}
}

type opStats struct {
	ns                 float64
	allocs, allocBytes uint64
}

// perOp sizes the batch, then takes the samples. Allocations are the runtime.MemStats deltas over
// all samples divided by the number of operations, truncated as testing's -benchmem does; reading
// MemStats stops the world, so it happens outside the timed batches.
func perOp(opts Options, clock Clock, op func() error) opStats {
	batch := uint64(1)
	for batch < maxBatch && runBatch(clock, batch, op) < opts.MinSample {
		batch *= 2
	}
	samples := make([]float64, opts.Samples)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range samples {
		samples[i] = float64(runBatch(clock, batch, op).Nanoseconds()) / float64(batch)
	}
	runtime.ReadMemStats(&after)
	ops := batch * uint64(opts.Samples)
	return opStats{
		ns:         median(samples),
		allocs:     (after.Mallocs - before.Mallocs) / ops,
		allocBytes: (after.TotalAlloc - before.TotalAlloc) / ops,
	}
}

func runBatch(clock Clock, batch uint64, op func() error) time.Duration {
	start := clock.Now()
	for range batch {
		_ = op()
	}
	return clock.Now().Sub(start)
}

// median of a non-empty list (the mean of the middle two for an even length).
func median(values []float64) float64 {
	values = slices.Clone(values)
	slices.Sort(values)
	mid := len(values) / 2
	if len(values)%2 == 1 {
		return values[mid]
	}
	return (values[mid-1] + values[mid]) / 2
}

func measurement(opts Options, c codecs.Codec, data dataset.Dataset, repeat int, status string, err *string, m Metrics) Measurement {
	return Measurement{
		SchemaVersion: SchemaVersion,
		RunID:         opts.RunID,
		Suite:         Suite,
		Scenario:      Scenario(data.Kind.ID(), c.ID()),
		Subject:       Subject,
		Lang:          Lang,
		Format:        c.ID(),
		Params: Params{
			Dataset:     data.Kind.ID(),
			Objects:     data.Objects(),
			Samples:     opts.Samples,
			Library:     c.Library(),
			MinSampleMs: opts.MinSample.Milliseconds(),
			WarmupMs:    opts.Warmup.Milliseconds(),
			GzipLevel:   GzipLevel,
			ZstdLevel:   ZstdLevel,
		},
		Repeat:  repeat,
		Status:  status,
		Error:   err,
		Metrics: m,
	}
}

// writeLine writes one JSON line in one Write, so nothing of it waits in a buffer.
func writeLine(out io.Writer, row Measurement) error {
	line, err := json.Marshal(row)
	if err != nil {
		return err
	}
	_, err = out.Write(append(line, '\n'))
	return err
}
