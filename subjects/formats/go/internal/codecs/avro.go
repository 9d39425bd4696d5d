package codecs

// Avro through hamba/avro/v2, as raw binary datums against schema/avro/<dataset>.avsc (read at
// run time): no object-container header or sync marker, which would add a random 16 bytes per
// file and measure framing rather than encoding. Arrays are written as one block without the
// optional byte-size header, as the reference vectors (and Avro's Java writer) have them.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/hamba/avro/v2"

	"wirebench/formats-go/internal/dataset"
)

type avroCodec struct{}

func (avroCodec) ID() string      { return "avro" }
func (avroCodec) Library() string { return moduleLibrary("github.com/hamba/avro/v2") }

// maxArrayElements bounds how many elements one decoded array may claim. hamba/avro's default is
// the largest heap allocation, so a forged block count of 2^40 would reserve terabytes; the
// largest list here has 1000 elements.
const maxArrayElements = 1 << 14

var avroAPI = avro.Config{
	TagKey:                 nameTag,
	BlockLength:            math.MaxInt32, // one block per array
	DisableBlockSizeHeader: true,
	MaxSliceAllocSize:      maxArrayElements,
}.Freeze()

// avroSchemas parses the three .avsc files once: a program would keep them, so parsing is not
// part of what the harness times.
var avroSchemas = sync.OnceValues(func() (map[dataset.Kind]avro.Schema, error) {
	dir, err := dataset.SchemaDir()
	if err != nil {
		return nil, err
	}
	schemas := make(map[dataset.Kind]avro.Schema)
	for _, k := range dataset.Kinds {
		path := filepath.Join(dir, "avro", k.ID()+".avsc")
		text, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		// A cache of its own per file: the named types (wirebench.formats.User ...) stay apart.
		schema, err := avro.ParseBytesWithCache(text, "", &avro.SchemaCache{})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		schemas[k] = schema
	}
	return schemas, nil
})

func (c avroCodec) Encode(d dataset.Dataset) ([]byte, error) {
	schemas, err := avroSchemas()
	if err != nil {
		return nil, encodeError(c.ID(), d, err)
	}
	b, err := avroAPI.Marshal(schemas[d.Kind], d.Root())
	if err != nil {
		return nil, encodeError(c.ID(), d, err)
	}
	return b, nil
}

// Decode reads one datum and requires it to end exactly at the end of the input. avro.Unmarshal
// would not do: it treats running out of input where a block header should follow (an empty
// input, a datum one byte short) as success and returns a partial value, and it ignores trailing
// bytes, so a longer input would decode from its prefix.
func (c avroCodec) Decode(b []byte, k dataset.Kind) (dataset.Dataset, error) {
	schemas, err := avroSchemas()
	if err != nil {
		return dataset.Dataset{}, decodeError(c.ID(), k, err)
	}
	root := k.NewRoot()
	r := avro.NewReader(nil, 0, avro.WithReaderConfig(avroAPI)).Reset(b)
	r.ReadVal(schemas[k], root)
	if r.Error != nil {
		return dataset.Dataset{}, decodeError(c.ID(), k, r.Error)
	}
	// Peek at the end of the input sets io.EOF; anything else means bytes are left over.
	r.Peek()
	if !errors.Is(r.Error, io.EOF) {
		return dataset.Dataset{}, decodeError(c.ID(), k, errors.New("trailing bytes after the datum"))
	}
	return dataset.FromRoot(k, root), nil
}
