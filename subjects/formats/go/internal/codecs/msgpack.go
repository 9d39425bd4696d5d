package codecs

// MessagePack through vmihailenco/msgpack/v5, with structs as maps keyed by field name (the
// library's default, and the named encoding of the reference vectors), field names from the json
// tags, and integers in their smallest encoding (UseCompactInts, as rmp-serde writes them).
//
// Pinned to v5.3.6: v5.4.0 and v5.4.1 preallocate a slice of whatever length a forged array
// header claims (a 5-byte input asks for gigabytes; vmihailenco/msgpack#401, fix not released).
// v5.3.6 grows slices 10 000 elements at a time. The bad-input test fails on the newer releases.

import (
	"bytes"

	"github.com/vmihailenco/msgpack/v5"

	"wirebench/formats-go/internal/dataset"
)

type msgpackCodec struct{}

func (msgpackCodec) ID() string      { return "msgpack" }
func (msgpackCodec) Library() string { return moduleLibrary("github.com/vmihailenco/msgpack/v5") }

// nameTag is the struct tag holding the field names; see package dataset.
const nameTag = "json"

// Encode does what msgpack.Marshal does (a pooled encoder into a new buffer), configured.
func (c msgpackCodec) Encode(d dataset.Dataset) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.GetEncoder()
	enc.Reset(&buf) // Reset clears the options, so set them after it
	enc.SetCustomStructTag(nameTag)
	enc.UseCompactInts(true)
	err := enc.Encode(d.Root())
	msgpack.PutEncoder(enc)
	if err != nil {
		return nil, encodeError(c.ID(), d, err)
	}
	return buf.Bytes(), nil
}

// Decode does what msgpack.Unmarshal does, configured. Like rmp-serde's from_slice it stops after
// one value and ignores trailing bytes.
func (c msgpackCodec) Decode(b []byte, k dataset.Kind) (dataset.Dataset, error) {
	root := k.NewRoot()
	dec := msgpack.GetDecoder()
	dec.Reset(bytes.NewReader(b))
	dec.SetCustomStructTag(nameTag)
	err := dec.Decode(root)
	msgpack.PutDecoder(dec)
	if err != nil {
		return dataset.Dataset{}, decodeError(c.ID(), k, err)
	}
	return dataset.FromRoot(k, root), nil
}
