package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"wirebench/formats-go/internal/codecs"
	"wirebench/formats-go/internal/dataset"
)

// runMainEnv makes the test binary act as formats-go, so the tests run the real main (exit codes,
// stdout, stderr) without building a second binary.
const runMainEnv = "FORMATS_GO_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

func formatsGo(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); ok {
		return out.String(), errOut.String(), exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), 0
}

func TestFlagsAndDefaults(t *testing.T) {
	opts, err := parseArgs([]string{"bench", "--repeats", "3", "--run-id", "r1"})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Repeats != 3 || opts.RunID != "r1" || opts.Samples != 15 || opts.MinSample != time.Millisecond ||
		opts.Warmup != 200*time.Millisecond || len(opts.Datasets) != 3 || len(opts.Codecs) != len(codecs.All) {
		t.Errorf("defaults: %+v", opts)
	}
	opts, err = parseArgs([]string{"bench", "--repeats=1", "--run-id", "r", "--dataset", "dummy", "--format", "msgpack",
		"--samples", "5", "--min-sample-ms", "2", "--warmup-ms", "0"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(opts.Datasets, []dataset.Kind{dataset.Dummy}) || len(opts.Codecs) != 1 ||
		opts.Codecs[0].ID() != "msgpack" || opts.Samples != 5 || opts.MinSample != 2*time.Millisecond || opts.Warmup != 0 {
		t.Errorf("flags: %+v", opts)
	}
}

func TestBadFlagsFailOnOneLineWithExitCode2(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--repeats", "1", "--run-id", "r", "--format", "yaml"},
		{"bench", "--repeats", "1", "--run-id", "r", "--dataset", "people"},
		{"bench", "--repeats", "zero", "--run-id", "r"},
		{"bench", "--repeats", "0", "--run-id", "r"},
		{"bench", "--run-id", "r"},
		{"bench", "--repeats", "1"},
		{"bench", "--repeats", "1", "--run-id", "r", "--samples", "0"},
		{"bench", "--repeats", "1", "--run-id", "r", "--bogus"},
		{"bench", "--repeats", "1", "--run-id", "r", "extra"},
		{"frobnicate"},
		{},
	} {
		stdout, stderr, code := formatsGo(t, args...)
		if code != exitUsage {
			t.Errorf("%q: exit %d, want %d (stderr %q)", args, code, exitUsage, stderr)
		}
		if lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(stderr, "error: ") {
			t.Errorf("%q: stderr is not one \"error: \" line: %q", args, stderr)
		}
		if stdout != "" || strings.Contains(stderr, "goroutine") {
			t.Errorf("%q: stdout %q, stderr %q", args, stdout, stderr)
		}
	}
	_, stderr, _ := formatsGo(t, "bench", "--repeats", "1", "--run-id", "r", "--format", "yaml")
	if !strings.Contains(stderr, "[possible values: json, xml, protobuf, msgpack, avro, bson, cbor, all]") {
		t.Errorf("the error does not list the formats: %q", stderr)
	}
}

func TestHelpExitsZero(t *testing.T) {
	stdout, _, code := formatsGo(t, "--help")
	if code != 0 || !strings.Contains(stdout, "usage: formats-go bench") {
		t.Errorf("--help: exit %d, %q", code, stdout)
	}
}

// A short real run prints one measurement line per repeat with the fields the runner reads.
func TestBenchPrintsOneMeasurementPerLine(t *testing.T) {
	stdout, stderr, code := formatsGo(t, "bench", "--repeats", "2", "--run-id", "cli-test", "--dataset", "numeric",
		"--format", "cbor", "--samples", "3", "--warmup-ms", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), stdout)
	}
	for i, line := range lines {
		var row struct {
			SchemaVersion int    `json:"schema_version"`
			RunID         string `json:"run_id"`
			Suite         string `json:"suite"`
			Scenario      string `json:"scenario"`
			Subject       string `json:"subject"`
			Lang          string `json:"lang"`
			Format        string `json:"format"`
			Repeat        int    `json:"repeat"`
			Status        string `json:"status"`
			Error         *string
			Params        map[string]any     `json:"params"`
			Metrics       map[string]float64 `json:"metrics"`
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("line %d is not a measurement: %v\n%s", i+1, err, line)
		}
		if row.SchemaVersion != 1 || row.RunID != "cli-test" || row.Suite != "formats" || row.Scenario != "numeric-cbor-go" ||
			row.Subject != "formats-go" || row.Lang != "go" || row.Format != "cbor" || row.Repeat != i+1 ||
			row.Status != "ok" || row.Error != nil {
			t.Errorf("line %d: %s", i+1, line)
		}
		if lib, _ := row.Params["library"].(string); !strings.HasPrefix(lib, "github.com/fxamacker/cbor/v2@v") {
			t.Errorf("library = %q", lib)
		}
		for _, metric := range []string{"serialize_ns", "deserialize_ns", "size_bytes", "size_gzip_bytes",
			"size_zstd_bytes", "serialize_allocs", "serialize_alloc_bytes", "deserialize_allocs", "deserialize_alloc_bytes"} {
			if row.Metrics[metric] <= 0 {
				t.Errorf("line %d: %s = %v", i+1, metric, row.Metrics[metric])
			}
		}
	}
}
