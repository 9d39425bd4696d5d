package codecs

// XML through encoding/xml. The root element is named after the dataset (<users>, <numeric>,
// <dummy>); every field is a child element with the field's name, a list is its element
// repeated, and a list dataset's elements are <items> (the {"items": [...]} wrapping BSON uses).
// No declaration, no attributes, no whitespace: the layout of the reference vectors.

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"

	"wirebench/formats-go/internal/dataset"
)

type xmlCodec struct{}

func (xmlCodec) ID() string      { return "xml" }
func (xmlCodec) Library() string { return stdLibrary("encoding/xml") }

func (c xmlCodec) Encode(d dataset.Dataset) ([]byte, error) {
	var buf bytes.Buffer
	enc := xml.NewEncoder(&buf)
	root := xml.StartElement{Name: xml.Name{Local: d.Kind.ID()}}
	var err error
	switch d.Kind {
	case dataset.Users:
		err = enc.EncodeElement(d.Users, root)
	case dataset.Numeric:
		err = enc.EncodeElement(items[[]dataset.NumericObject]{d.Numeric}, root)
	default:
		err = enc.EncodeElement(items[[]dataset.DummyObject]{d.Dummy}, root)
	}
	if err == nil {
		err = enc.Close()
	}
	if err != nil {
		return nil, encodeError(c.ID(), d, err)
	}
	return buf.Bytes(), nil
}

func (c xmlCodec) Decode(b []byte, k dataset.Kind) (dataset.Dataset, error) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	// encoding/xml matches a struct to whatever the root element is called, so a <numeric>
	// document would decode as users when the shapes happen to fit: check the name first.
	start, err := rootElement(dec)
	if err == nil && start.Name.Local != k.ID() {
		err = fmt.Errorf("root element is <%s>, not <%s>", start.Name.Local, k.ID())
	}
	if err != nil {
		return dataset.Dataset{}, decodeError(c.ID(), k, err)
	}
	switch k {
	case dataset.Users:
		var doc dataset.UsersDocument
		if err := dec.DecodeElement(&doc, &start); err != nil {
			return dataset.Dataset{}, decodeError(c.ID(), k, err)
		}
		return dataset.Dataset{Kind: k, Users: &doc}, nil
	case dataset.Numeric:
		var list items[[]dataset.NumericObject]
		if err := dec.DecodeElement(&list, &start); err != nil {
			return dataset.Dataset{}, decodeError(c.ID(), k, err)
		}
		return dataset.Dataset{Kind: k, Numeric: list.Items}, nil
	default:
		var list items[[]dataset.DummyObject]
		if err := dec.DecodeElement(&list, &start); err != nil {
			return dataset.Dataset{}, decodeError(c.ID(), k, err)
		}
		return dataset.Dataset{Kind: k, Dummy: list.Items}, nil
	}
}

// rootElement reads up to the first start element, past a declaration, comments and a DOCTYPE.
func rootElement(dec *xml.Decoder) (xml.StartElement, error) {
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return xml.StartElement{}, fmt.Errorf("no root element")
		}
		if err != nil {
			return xml.StartElement{}, err
		}
		if start, ok := tok.(xml.StartElement); ok {
			return start, nil
		}
	}
}
