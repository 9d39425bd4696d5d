package codecs

// BSON through the MongoDB Go driver's bson package (v2). A BSON file is one document, so the list
// datasets are wrapped as {"items": [...]}; users is a document already. int32 fields become BSON
// int32, int64 int64, float64 double: the number types of the reference vectors.

import (
	"go.mongodb.org/mongo-driver/v2/bson"

	"wirebench/formats-go/internal/dataset"
)

type bsonCodec struct{}

func (bsonCodec) ID() string      { return "bson" }
func (bsonCodec) Library() string { return moduleLibrary("go.mongodb.org/mongo-driver/v2") }

func (c bsonCodec) Encode(d dataset.Dataset) ([]byte, error) {
	var doc any
	switch d.Kind {
	case dataset.Users:
		doc = d.Users
	case dataset.Numeric:
		doc = items[[]dataset.NumericObject]{d.Numeric}
	default:
		doc = items[[]dataset.DummyObject]{d.Dummy}
	}
	b, err := bson.Marshal(doc)
	if err != nil {
		return nil, encodeError(c.ID(), d, err)
	}
	return b, nil
}

func (c bsonCodec) Decode(b []byte, k dataset.Kind) (dataset.Dataset, error) {
	var err error
	var out dataset.Dataset
	switch k {
	case dataset.Users:
		var doc dataset.UsersDocument
		err = bson.Unmarshal(b, &doc)
		out = dataset.Dataset{Kind: k, Users: &doc}
	case dataset.Numeric:
		var list items[[]dataset.NumericObject]
		err = bson.Unmarshal(b, &list)
		out = dataset.Dataset{Kind: k, Numeric: list.Items}
	default:
		var list items[[]dataset.DummyObject]
		err = bson.Unmarshal(b, &list)
		out = dataset.Dataset{Kind: k, Dummy: list.Items}
	}
	if err != nil {
		return dataset.Dataset{}, decodeError(c.ID(), k, err)
	}
	return out, nil
}
