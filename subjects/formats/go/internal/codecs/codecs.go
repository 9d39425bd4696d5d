// Package codecs holds the formats: one file per format behind the small Codec interface, and the
// one table (All) that registers them. Adding a format: write <id>.go implementing Codec, add one
// line to All; the CLI, the harness and every codec test (vectors, round trip, bad input) pick it
// up from the table.
package codecs

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"wirebench/formats-go/internal/dataset"
)

// All is every format, in the order the harness measures them.
var All = []Codec{
	jsonCodec{},
	xmlCodec{},
	protobufCodec{},
	msgpackCodec{},
	avroCodec{},
	bsonCodec{},
	cborCodec{},
}

// ByID looks a codec up by its id.
func ByID(id string) (Codec, bool) {
	for _, c := range All {
		if c.ID() == id {
			return c, true
		}
	}
	return nil, false
}

// Codec is one serialization format as one library implements it.
//
// Contract: Decode(Encode(d), d.Kind) returns a value equal to d, and Encode of equal values gives
// equal bytes; Decode of any bytes returns a value or an error, without panicking, without
// running unbounded and without allocating more than a small multiple of the input (the
// bad-input test holds every codec to that). Implementations are stateless apart from
// configuration built once, and safe for concurrent use.
type Codec interface {
	// ID is the format id used in flags, file names and measurements ("msgpack").
	ID() string
	// Library is "<module>@<version>" of the library doing the work, read from the binary's
	// build information (go.mod / go.sum), so it cannot drift from what was linked.
	Library() string
	Encode(d dataset.Dataset) ([]byte, error)
	Decode(b []byte, k dataset.Kind) (dataset.Dataset, error)
}

// Native is implemented by a codec whose library encodes types of its own (protobuf's generated
// message structs) instead of the dataset structs. Encode and Decode convert to and from those
// types; the harness converts once before timing and times EncodeNative and DecodeNative alone,
// because a program built on the generated types never pays that conversion, and it must not be
// measured as the format's cost. DecodeNative still produces fully typed structs.
type Native interface {
	Codec
	ToNative(d dataset.Dataset) any
	EncodeNative(v any) ([]byte, error)
	DecodeNative(b []byte, k dataset.Kind) (any, error)
}

// Error is a codec failure, naming the format, the operation and the dataset.
type Error struct {
	Format  string
	Op      string // "encode" or "decode as"
	Dataset string
	Err     error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: cannot %s %s: %v", e.Format, e.Op, e.Dataset, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

func encodeError(format string, d dataset.Dataset, err error) error {
	return &Error{Format: format, Op: "encode", Dataset: d.Kind.ID(), Err: err}
}

func decodeError(format string, k dataset.Kind, err error) error {
	return &Error{Format: format, Op: "decode as", Dataset: k.ID(), Err: err}
}

// items is the {"items": [...]} document a list dataset becomes where the top level must be a
// record (a BSON document, an XML element).
type items[T any] struct {
	Items T `json:"items" xml:"items" bson:"items"`
}

// Sinks keep timed results reachable, so the work that produced them cannot be optimised away.
var (
	sinkBytes   []byte
	sinkDataset dataset.Dataset
	sinkNative  any
)

// Timed returns the two operations the harness times for one verified (codec, dataset) pair: one
// encode of d, and one decode of the given encoding into typed structs. For a Native codec they
// work on its own types (converted once, here).
func Timed(c Codec, d dataset.Dataset, encoded []byte) (encode, decode func() error) {
	if n, ok := c.(Native); ok {
		native := n.ToNative(d)
		encode = func() (err error) { sinkBytes, err = n.EncodeNative(native); return err }
		decode = func() (err error) { sinkNative, err = n.DecodeNative(encoded, d.Kind); return err }
		return encode, decode
	}
	encode = func() (err error) { sinkBytes, err = c.Encode(d); return err }
	decode = func() (err error) { sinkDataset, err = c.Decode(encoded, d.Kind); return err }
	return encode, decode
}

// moduleLibrary is "<module>@<version>" of a dependency linked into this binary.
func moduleLibrary(path string) string {
	if version, ok := moduleVersions()[path]; ok {
		return path + "@" + version
	}
	return path + "@unknown"
}

// moduleVersions maps module paths to versions: from the build information linked into the
// binary, or, in a test binary (which carries none: golang/go#33976), from the go.mod above the
// working directory, which `go test` sets to the package's directory.
var moduleVersions = sync.OnceValue(func() map[string]string {
	versions := make(map[string]string)
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Replace != nil {
				dep = dep.Replace
			}
			versions[dep.Path] = dep.Version
		}
	}
	if len(versions) > 0 {
		return versions
	}
	dir, err := os.Getwd()
	for err == nil {
		if text, readErr := os.ReadFile(filepath.Join(dir, "go.mod")); readErr == nil {
			// Lines "path vX.Y.Z" (a require block) or "require path vX.Y.Z".
			for _, line := range strings.Split(string(text), "\n") {
				line = strings.TrimSpace(line)
				if strings.HasPrefix(line, "//") {
					continue
				}
				fields := strings.Fields(strings.TrimPrefix(line, "require "))
				if len(fields) >= 2 && strings.HasPrefix(fields[1], "v") {
					versions[fields[0]] = fields[1]
				}
			}
			break
		}
		if filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	return versions
})

// stdLibrary is "<package>@<Go version>" for a standard-library package.
func stdLibrary(pkg string) string {
	return pkg + "@" + runtime.Version()
}
