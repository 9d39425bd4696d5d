package codecs

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"testing"
	"time"

	"wirebench/formats-go/internal/dataset"
)

// Limits for one decode of one bad input. The inputs are at most a few KB (forged lengths claim
// up to 2^64) and the largest legitimate decode here allocates about 1 MB, so a decoder that
// trusts a forged length shows up far above the cap.
const (
	// Generous for a loaded 2-core machine; a real hang never finishes.
	decodeTimeLimit = 20 * time.Second
	// Bytes allocated by one decode (runtime.MemStats.TotalAlloc delta: every allocation, freed
	// or not, as -benchmem counts).
	allocationCapBytes = 16 << 20
	// Goroutine stack limit while the corpus runs (Go's default is 1 GB): recursion that deep
	// on 100 000-level inputs is unbounded memory too. Exceeding it aborts the test binary.
	stackLimitBytes = 64 << 20
)

// Every file of vectors/bad/ through every decoder, as every dataset. Each decode runs in its own
// goroutine and must return a value or an error within the time limit, without a panic (caught
// here and reported as a failure, never turned into an error inside a codec) and within the
// allocation cap. No input needs to be skipped with the pinned library versions (see msgpack.go
// for the one version that would not pass).
func TestNoDecoderPanicsHangsOrOverAllocatesOnBadInput(t *testing.T) {
	dir, err := dataset.VectorsDir()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "bad"))
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	defer debug.SetMaxStack(debug.SetMaxStack(stackLimitBytes))

	var failures []string
	decodes, largest, largestCase := 0, uint64(0), ""
	for _, name := range names {
		input, err := os.ReadFile(filepath.Join(dir, "bad", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range All {
			for _, k := range dataset.Kinds {
				decodes++
				label := fmt.Sprintf("bad/%s → %s as %s", name, c.ID(), k.ID())
				allocated, failure := decodeBounded(c, k, input)
				if failure != "" {
					failures = append(failures, label+": "+failure)
					if failure == timedOut {
						// The goroutine cannot be stopped and would skew every later figure.
						t.Fatalf("%d decodes misbehaved:\n%s", len(failures), joinLines(failures))
					}
					continue
				}
				if allocated > largest {
					largest, largestCase = allocated, label
				}
				if allocated > allocationCapBytes {
					failures = append(failures, fmt.Sprintf("%s: allocated %d bytes (cap %d)", label, allocated, allocationCapBytes))
				}
			}
		}
	}
	t.Logf("%d decodes of %d files; the most allocated by one: %d bytes (%s)", decodes, len(names), largest, largestCase)
	if decodes < 1000 {
		t.Errorf("corpus too small: %d decodes", decodes)
	}
	if len(failures) > 0 {
		t.Errorf("%d of %d decodes misbehaved:\n%s", len(failures), decodes, joinLines(failures))
	}
}

const timedOut = "still running after the time limit"

// decodeBounded runs one decode in its own goroutine and returns the bytes it allocated, or why
// it failed (a panic or the time limit). Whether it returned a value or an error does not matter.
func decodeBounded(c Codec, k dataset.Kind, input []byte) (allocated uint64, failure string) {
	done := make(chan string, 1)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- fmt.Sprintf("panicked: %v", p)
			}
		}()
		_, _ = c.Decode(input, k)
		done <- ""
	}()
	select {
	case failure = <-done:
	case <-time.After(decodeTimeLimit):
		return 0, timedOut
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, failure
}

func joinLines(lines []string) string {
	out := ""
	for _, l := range lines {
		out += l + "\n"
	}
	return out
}
