package codecs

// Protocol Buffers through google.golang.org/protobuf, with the message structs protoc-gen-go
// generates from schema/datasets.proto (package pb, committed). proto3: a field equal to its
// default (0, "", false) is not written. List datasets are NumericList / DummyList
// (`repeated ... items = 1`).
//
// The generated structs are not the dataset structs, so this codec is Native: the harness times
// proto.Marshal and proto.Unmarshal on the generated types (what a program that uses them does),
// and the conversions below run only to verify and to test.

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"wirebench/formats-go/internal/codecs/pb"
	"wirebench/formats-go/internal/dataset"
)

type protobufCodec struct{}

func (protobufCodec) ID() string      { return "protobuf" }
func (protobufCodec) Library() string { return moduleLibrary("google.golang.org/protobuf") }

func (c protobufCodec) Encode(d dataset.Dataset) ([]byte, error) {
	b, err := c.EncodeNative(c.ToNative(d))
	if err != nil {
		return nil, encodeError(c.ID(), d, err)
	}
	return b, nil
}

func (c protobufCodec) Decode(b []byte, k dataset.Kind) (dataset.Dataset, error) {
	m, err := c.DecodeNative(b, k)
	if err != nil {
		return dataset.Dataset{}, err
	}
	return fromProto(k, m), nil
}

func (protobufCodec) EncodeNative(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("protobuf: %T is not a message", v)
	}
	return proto.Marshal(m)
}

func (c protobufCodec) DecodeNative(b []byte, k dataset.Kind) (any, error) {
	var m proto.Message
	switch k {
	case dataset.Users:
		m = new(pb.UsersDocument)
	case dataset.Numeric:
		m = new(pb.NumericList)
	default:
		m = new(pb.DummyList)
	}
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, decodeError(c.ID(), k, err)
	}
	return m, nil
}

// ToNative copies a dataset into the generated message types (strings are shared, not copied).
func (protobufCodec) ToNative(d dataset.Dataset) any {
	switch d.Kind {
	case dataset.Users:
		users := make([]pb.User, len(d.Users.Users))
		doc := &pb.UsersDocument{Users: make([]*pb.User, len(users))}
		for i, u := range d.Users.Users {
			users[i] = pb.User{Id: u.ID, Name: u.Name, Email: u.Email, Age: u.Age, IsActive: u.IsActive, Tags: u.Tags}
			doc.Users[i] = &users[i]
		}
		m := d.Users.Metadata
		doc.Metadata = &pb.Metadata{Version: m.Version, CreatedAt: m.CreatedAt, TotalCount: m.TotalCount}
		return doc
	case dataset.Numeric:
		list := &pb.NumericList{Items: make([]*pb.NumericObject, len(d.Numeric))}
		for i, o := range d.Numeric {
			coords := make([]*pb.Coordinate, len(o.Coordinates))
			for j, c := range o.Coordinates {
				coords[j] = &pb.Coordinate{Timestamp: c.Timestamp, Latitude: c.Latitude, Longitude: c.Longitude}
			}
			list.Items[i] = &pb.NumericObject{Id: o.ID, Index: o.Index, Numbr: o.Numbr, Coordinates: coords}
		}
		return list
	default:
		list := &pb.DummyList{Items: make([]*pb.DummyObject, len(d.Dummy))}
		for i, o := range d.Dummy {
			friends := make([]*pb.DummyFriend, len(o.Friends))
			for j, f := range o.Friends {
				friends[j] = &pb.DummyFriend{Id: f.ID, Name: f.Name}
			}
			list.Items[i] = &pb.DummyObject{
				Id: o.ID, Index: o.Index, Guid: o.GUID, IsActive: o.IsActive, Balance: o.Balance,
				Picture: o.Picture, Age: o.Age, EyeColor: o.EyeColor, Name: o.Name, Gender: o.Gender,
				Company: o.Company, Email: o.Email, Phone: o.Phone, Address: o.Address, About: o.About,
				Registered: o.Registered, Latitude: o.Latitude, Longitude: o.Longitude, Tags: o.Tags,
				Friends: friends, Greeting: o.Greeting, FavoriteFruit: o.FavoriteFruit,
			}
		}
		return list
	}
}

// fromProto copies decoded messages back into the dataset types. Absent messages and repeated
// fields (proto3 cannot tell them from empty ones) become zero values and empty lists.
func fromProto(k dataset.Kind, m any) dataset.Dataset {
	strs := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	switch k {
	case dataset.Users:
		doc := m.(*pb.UsersDocument)
		out := &dataset.UsersDocument{Users: make([]dataset.User, len(doc.GetUsers()))}
		for i, u := range doc.GetUsers() {
			out.Users[i] = dataset.User{ID: u.GetId(), Name: u.GetName(), Email: u.GetEmail(), Age: u.GetAge(),
				IsActive: u.GetIsActive(), Tags: strs(u.GetTags())}
		}
		md := doc.GetMetadata()
		out.Metadata = dataset.Metadata{Version: md.GetVersion(), CreatedAt: md.GetCreatedAt(), TotalCount: md.GetTotalCount()}
		return dataset.Dataset{Kind: k, Users: out}
	case dataset.Numeric:
		list := m.(*pb.NumericList)
		out := make([]dataset.NumericObject, len(list.GetItems()))
		for i, o := range list.GetItems() {
			coords := make([]dataset.Coordinate, len(o.GetCoordinates()))
			for j, c := range o.GetCoordinates() {
				coords[j] = dataset.Coordinate{Timestamp: c.GetTimestamp(), Latitude: c.GetLatitude(), Longitude: c.GetLongitude()}
			}
			out[i] = dataset.NumericObject{ID: o.GetId(), Index: o.GetIndex(), Numbr: o.GetNumbr(), Coordinates: coords}
		}
		return dataset.Dataset{Kind: k, Numeric: out}
	default:
		list := m.(*pb.DummyList)
		out := make([]dataset.DummyObject, len(list.GetItems()))
		for i, o := range list.GetItems() {
			friends := make([]dataset.DummyFriend, len(o.GetFriends()))
			for j, f := range o.GetFriends() {
				friends[j] = dataset.DummyFriend{ID: f.GetId(), Name: f.GetName()}
			}
			out[i] = dataset.DummyObject{
				ID: o.GetId(), Index: o.GetIndex(), GUID: o.GetGuid(), IsActive: o.GetIsActive(),
				Balance: o.GetBalance(), Picture: o.GetPicture(), Age: o.GetAge(), EyeColor: o.GetEyeColor(),
				Name: o.GetName(), Gender: o.GetGender(), Company: o.GetCompany(), Email: o.GetEmail(),
				Phone: o.GetPhone(), Address: o.GetAddress(), About: o.GetAbout(), Registered: o.GetRegistered(),
				Latitude: o.GetLatitude(), Longitude: o.GetLongitude(), Tags: strs(o.GetTags()),
				Friends: friends, Greeting: o.GetGreeting(), FavoriteFruit: o.GetFavoriteFruit(),
			}
		}
		return dataset.Dataset{Kind: k, Dummy: out}
	}
}
