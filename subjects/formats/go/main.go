// Command formats-go is the Go subject of the formats lab: it verifies, then times encode and
// decode of every (dataset, format) pair and prints one JSON measurement per line.
package main

import (
	"fmt"
	"io"
	"os"

	"wirebench/formats-go/internal/dataset"
	"wirebench/formats-go/internal/harness"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // the run could not do its job
	exitUsage   = 2 // bad command line
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the pipeline: parse the command line, read datasets.json, measure.
func run(args []string, stdout, stderr io.Writer) int {
	opts, err := parseArgs(args)
	if err == errHelp {
		fmt.Fprint(stdout, usage())
		return exitOK
	}
	if err != nil {
		// One line: a runner's log shows the cause without a usage block.
		fmt.Fprintf(stderr, "error: %v\n", err)
		return exitUsage
	}
	spec, err := dataset.LoadSpec()
	if err != nil {
		fmt.Fprintf(stderr, "formats-go: %v\n", err)
		return exitFailure
	}
	failed, err := harness.Run(opts, spec, harness.SystemClock{}, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "formats-go: cannot write measurements to stdout: %v\n", err)
		return exitFailure
	}
	if failed > 0 {
		// The failures are in the output as status "failed" rows; say so where a person looks.
		fmt.Fprintf(stderr, "formats-go: %d (dataset, format) pairs failed verification: see the \"failed\" rows\n", failed)
	}
	return exitOK
}
