package codecs

// CBOR through fxamacker/cbor/v2: structs as maps keyed by field name (from the json tags, which
// the library reads when a field has no cbor tag), definite lengths, and each float in the
// shortest of half, single and double precision that holds it exactly, as the reference vectors
// (ciborium) write them. Decoding keeps the library's limits (32 levels of nesting, 131 072
// array elements) and rejects trailing bytes.

import (
	"github.com/fxamacker/cbor/v2"

	"wirebench/formats-go/internal/dataset"
)

type cborCodec struct{}

func (cborCodec) ID() string      { return "cbor" }
func (cborCodec) Library() string { return moduleLibrary("github.com/fxamacker/cbor/v2") }

var cborEncMode = mustMode(cbor.EncOptions{ShortestFloat: cbor.ShortestFloat16}.EncMode())

var cborDecMode = mustMode(cbor.DecOptions{}.DecMode())

// mustMode: the options above are constants, so an error is a programming mistake.
func mustMode[M any](mode M, err error) M {
	if err != nil {
		panic("cbor options: " + err.Error())
	}
	return mode
}

func (c cborCodec) Encode(d dataset.Dataset) ([]byte, error) {
	b, err := cborEncMode.Marshal(d.Root())
	if err != nil {
		return nil, encodeError(c.ID(), d, err)
	}
	return b, nil
}

func (c cborCodec) Decode(b []byte, k dataset.Kind) (dataset.Dataset, error) {
	root := k.NewRoot()
	if err := cborDecMode.Unmarshal(b, root); err != nil {
		return dataset.Dataset{}, decodeError(c.ID(), k, err)
	}
	return dataset.FromRoot(k, root), nil
}
