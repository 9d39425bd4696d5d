package dataset

import "reflect"

// The dataset types, with the field names of datasets.json. The `json` tag is THE name tag: the
// CBOR, MessagePack and Avro codecs are configured to read it. encoding/xml cannot read another
// library's tag, and the BSON driver reads one only through its streaming decoder (not the
// bson.Unmarshal fast path), so `xml` and `bson` repeat the same names; a test holds all three
// to datasets.json.

// User is one user of the "Ways to optimize web applications" serialization test.
type User struct {
	ID       int64    `json:"id" xml:"id" bson:"id"`
	Name     string   `json:"name" xml:"name" bson:"name"`
	Email    string   `json:"email" xml:"email" bson:"email"`
	Age      int32    `json:"age" xml:"age" bson:"age"`
	IsActive bool     `json:"is_active" xml:"is_active" bson:"is_active"`
	Tags     []string `json:"tags" xml:"tags" bson:"tags"`
}

// Metadata describes the user list it travels with.
type Metadata struct {
	Version    string `json:"version" xml:"version" bson:"version"`
	CreatedAt  string `json:"created_at" xml:"created_at" bson:"created_at"`
	TotalCount int64  `json:"total_count" xml:"total_count" bson:"total_count"`
}

// UsersDocument is the root of the users dataset.
type UsersDocument struct {
	Users    []User   `json:"users" xml:"users" bson:"users"`
	Metadata Metadata `json:"metadata" xml:"metadata" bson:"metadata"`
}

// NumericObject is one element of the numeric dataset: mostly numbers.
type NumericObject struct {
	ID          string       `json:"id" xml:"id" bson:"id"`
	Index       int64        `json:"index" xml:"index" bson:"index"`
	Numbr       float64      `json:"numbr" xml:"numbr" bson:"numbr"`
	Coordinates []Coordinate `json:"coordinates" xml:"coordinates" bson:"coordinates"`
}

// Coordinate is a point in time and space; Timestamp is in milliseconds since the Unix epoch.
type Coordinate struct {
	Timestamp int64   `json:"timestamp" xml:"timestamp" bson:"timestamp"`
	Latitude  float64 `json:"latitude" xml:"latitude" bson:"latitude"`
	Longitude float64 `json:"longitude" xml:"longitude" bson:"longitude"`
}

// DummyObject is one element of the dummy dataset: mostly strings, shaped like a json-generator record.
type DummyObject struct {
	ID            string        `json:"_id" xml:"_id" bson:"_id"`
	Index         int64         `json:"index" xml:"index" bson:"index"`
	GUID          string        `json:"guid" xml:"guid" bson:"guid"`
	IsActive      bool          `json:"isActive" xml:"isActive" bson:"isActive"`
	Balance       string        `json:"balance" xml:"balance" bson:"balance"`
	Picture       string        `json:"picture" xml:"picture" bson:"picture"`
	Age           int32         `json:"age" xml:"age" bson:"age"`
	EyeColor      string        `json:"eyeColor" xml:"eyeColor" bson:"eyeColor"`
	Name          string        `json:"name" xml:"name" bson:"name"`
	Gender        string        `json:"gender" xml:"gender" bson:"gender"`
	Company       string        `json:"company" xml:"company" bson:"company"`
	Email         string        `json:"email" xml:"email" bson:"email"`
	Phone         string        `json:"phone" xml:"phone" bson:"phone"`
	Address       string        `json:"address" xml:"address" bson:"address"`
	About         string        `json:"about" xml:"about" bson:"about"`
	Registered    string        `json:"registered" xml:"registered" bson:"registered"`
	Latitude      float64       `json:"latitude" xml:"latitude" bson:"latitude"`
	Longitude     float64       `json:"longitude" xml:"longitude" bson:"longitude"`
	Tags          []string      `json:"tags" xml:"tags" bson:"tags"`
	Friends       []DummyFriend `json:"friends" xml:"friends" bson:"friends"`
	Greeting      string        `json:"greeting" xml:"greeting" bson:"greeting"`
	FavoriteFruit string        `json:"favoriteFruit" xml:"favoriteFruit" bson:"favoriteFruit"`
}

// DummyFriend is one of a DummyObject's friends.
type DummyFriend struct {
	ID   int64  `json:"id" xml:"id" bson:"id"`
	Name string `json:"name" xml:"name" bson:"name"`
}

// Kind says which dataset; its ID is the one used in file names, flags and measurements.
type Kind int

const (
	Users Kind = iota
	Numeric
	Dummy
)

// Kinds lists every dataset in the order the harness measures them.
var Kinds = []Kind{Users, Numeric, Dummy}

// ID is the dataset id: users, numeric or dummy.
func (k Kind) ID() string {
	switch k {
	case Users:
		return "users"
	case Numeric:
		return "numeric"
	case Dummy:
		return "dummy"
	}
	return "unknown"
}

// KindFromID looks a dataset up by its id.
func KindFromID(id string) (Kind, bool) {
	for _, k := range Kinds {
		if k.ID() == id {
			return k, true
		}
	}
	return 0, false
}

// NewRoot returns a pointer to an empty root of this dataset (*UsersDocument, *[]NumericObject or
// *[]DummyObject), for a library to decode into; FromRoot turns it into a Dataset.
func (k Kind) NewRoot() any {
	switch k {
	case Users:
		return new(UsersDocument)
	case Numeric:
		return new([]NumericObject)
	default:
		return new([]DummyObject)
	}
}

// Dataset is a generated or decoded dataset: exactly one of the three roots is set, per Kind.
type Dataset struct {
	Kind    Kind
	Users   *UsersDocument
	Numeric []NumericObject
	Dummy   []DummyObject
}

// FromRoot wraps a root that NewRoot allocated (and a library filled).
func FromRoot(k Kind, root any) Dataset {
	switch r := root.(type) {
	case *UsersDocument:
		return Dataset{Kind: k, Users: r}
	case *[]NumericObject:
		return Dataset{Kind: k, Numeric: *r}
	case *[]DummyObject:
		return Dataset{Kind: k, Dummy: *r}
	}
	panic("dataset.FromRoot: not a root from Kind.NewRoot")
}

// Root is the value a format encodes: the document itself (*UsersDocument) or the list.
func (d Dataset) Root() any {
	switch d.Kind {
	case Users:
		return d.Users
	case Numeric:
		return d.Numeric
	default:
		return d.Dummy
	}
}

// Objects is the number of top-level objects (users, or list elements).
func (d Dataset) Objects() int {
	switch d.Kind {
	case Users:
		if d.Users == nil {
			return 0
		}
		return len(d.Users.Users)
	case Numeric:
		return len(d.Numeric)
	default:
		return len(d.Dummy)
	}
}

// Equal compares every value: same kind, same fields, floats by value.
func Equal(a, b Dataset) bool {
	return a.Kind == b.Kind && reflect.DeepEqual(a.Root(), b.Root())
}
