package codecs

// JSON through encoding/json: compact, fields in declaration order.

import (
	"encoding/json"

	"wirebench/formats-go/internal/dataset"
)

type jsonCodec struct{}

func (jsonCodec) ID() string      { return "json" }
func (jsonCodec) Library() string { return stdLibrary("encoding/json") }

func (c jsonCodec) Encode(d dataset.Dataset) ([]byte, error) {
	b, err := json.Marshal(d.Root())
	if err != nil {
		return nil, encodeError(c.ID(), d, err)
	}
	return b, nil
}

func (c jsonCodec) Decode(b []byte, k dataset.Kind) (dataset.Dataset, error) {
	root := k.NewRoot()
	if err := json.Unmarshal(b, root); err != nil {
		return dataset.Dataset{}, decodeError(c.ID(), k, err)
	}
	return dataset.FromRoot(k, root), nil
}
