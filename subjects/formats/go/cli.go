package main

// The command line: the bench command, its flags and defaults. The --format and --dataset values
// come from the codec table and the dataset list.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"wirebench/formats-go/internal/codecs"
	"wirebench/formats-go/internal/dataset"
	"wirebench/formats-go/internal/harness"
)

// all selects every dataset or format.
const all = "all"

var errHelp = errors.New("help requested")

func formatIDs() []string {
	ids := make([]string, 0, len(codecs.All)+1)
	for _, c := range codecs.All {
		ids = append(ids, c.ID())
	}
	return append(ids, all)
}

func datasetIDs() []string {
	ids := make([]string, 0, len(dataset.Kinds)+1)
	for _, k := range dataset.Kinds {
		ids = append(ids, k.ID())
	}
	return append(ids, all)
}

func usage() string {
	return `formats-go: serialization formats in Go, measured in-process.

usage: formats-go bench --repeats R --run-id ID [flags]

Verifies, then times encode and decode of every selected (dataset, format) pair; prints one JSON
measurement per line on stdout.

  --repeats R          repeats of every measurement (required, >= 1)
  --run-id ID          id of the run, copied into every line (required)
  --dataset D          ` + strings.Join(datasetIDs(), " | ") + ` (default all)
  --format F           ` + strings.Join(formatIDs(), " | ") + ` (default all)
  --samples N          samples per measurement; the time is their median (default 15, 1..100000)
  --min-sample-ms M    shortest sample in ms: operations are batched to reach it (default 1, 1..60000)
  --warmup-ms W        warm-up before each measurement in ms (default 200, 0..600000)
`
}

// parseArgs turns the arguments after the program name into options, or returns an error whose
// message fits one line (or errHelp).
func parseArgs(args []string) (harness.Options, error) {
	if len(args) == 0 {
		return harness.Options{}, errors.New("a command is required: bench (see --help)")
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		return harness.Options{}, errHelp
	case "bench":
	default:
		return harness.Options{}, fmt.Errorf("unknown command %q: the command is bench (see --help)", args[0])
	}

	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, by the caller, on one line
	repeats := fs.Int("repeats", 0, "")
	runID := fs.String("run-id", "", "")
	datasetID := fs.String("dataset", all, "")
	formatID := fs.String("format", all, "")
	samples := fs.Int("samples", 15, "")
	minSampleMs := fs.Int("min-sample-ms", 1, "")
	warmupMs := fs.Int("warmup-ms", 200, "")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return harness.Options{}, errHelp
		}
		return harness.Options{}, err
	}
	if fs.NArg() > 0 {
		return harness.Options{}, fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	switch {
	case *repeats < 1:
		return harness.Options{}, errors.New("--repeats is required and must be at least 1")
	case *runID == "":
		return harness.Options{}, errors.New("--run-id is required")
	case *samples < 1 || *samples > 100_000:
		return harness.Options{}, fmt.Errorf("--samples %d is out of range 1..100000", *samples)
	case *minSampleMs < 1 || *minSampleMs > 60_000:
		return harness.Options{}, fmt.Errorf("--min-sample-ms %d is out of range 1..60000", *minSampleMs)
	case *warmupMs < 0 || *warmupMs > 600_000:
		return harness.Options{}, fmt.Errorf("--warmup-ms %d is out of range 0..600000", *warmupMs)
	}

	opts := harness.Options{
		RunID:     *runID,
		Repeats:   *repeats,
		Samples:   *samples,
		MinSample: time.Duration(*minSampleMs) * time.Millisecond,
		Warmup:    time.Duration(*warmupMs) * time.Millisecond,
	}
	if *datasetID == all {
		opts.Datasets = dataset.Kinds
	} else if k, ok := dataset.KindFromID(*datasetID); ok {
		opts.Datasets = []dataset.Kind{k}
	} else {
		return harness.Options{}, fmt.Errorf("invalid value %q for --dataset [possible values: %s]", *datasetID, strings.Join(datasetIDs(), ", "))
	}
	if *formatID == all {
		opts.Codecs = codecs.All
	} else if c, ok := codecs.ByID(*formatID); ok {
		opts.Codecs = []codecs.Codec{c}
	} else {
		return harness.Options{}, fmt.Errorf("invalid value %q for --format [possible values: %s]", *formatID, strings.Join(formatIDs(), ", "))
	}
	return opts, nil
}
