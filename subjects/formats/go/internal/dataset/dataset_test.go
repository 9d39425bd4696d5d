package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func spec(t *testing.T) *Spec {
	t.Helper()
	s, err := LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSplitMix64MatchesTheCheckValuesInTheSpec(t *testing.T) {
	check := spec(t).Generator.Check
	if len(check.NextHex) == 0 {
		t.Fatal("datasets.json has no generator.check.next_hex")
	}
	r := SplitMix64{State: check.Seed}
	for i, want := range check.NextHex {
		if got := fmt.Sprintf("%016x", r.Next()); got != want {
			t.Errorf("next() #%d = %s, want %s", i+1, got, want)
		}
	}
}

func TestHelpers(t *testing.T) {
	for cents, want := range map[int64]string{123456: "$1,234.56", 100000: "$1,000.00", 399999: "$3,999.99", 5: "$0.05", 123456789: "$1,234,567.89"} {
		if got := dollars(cents); got != want {
			t.Errorf("dollars(%d) = %s, want %s", cents, got, want)
		}
	}
	r := SplitMix64{State: 1}
	if got := paragraph(&r, []string{"ab"}, 5); got != "Ab ab." {
		t.Errorf("paragraph = %q", got)
	}
	if got := paragraph(&r, []string{"ab"}, 6); got != "Ab ab ab." {
		t.Errorf("paragraph = %q", got)
	}
	r = SplitMix64{State: 7}
	for range 1000 {
		if v := r.int(-12, 12); v < -12 || v > 12 {
			t.Fatalf("int(-12, 12) = %d", v)
		}
	}
	if g := r.guid(); len(g) != 36 || strings.Count(g, "-") != 4 {
		t.Errorf("guid = %q", g)
	}
}

func TestGenerationIsDeterministicAndFollowsTheCounts(t *testing.T) {
	s := spec(t)
	for _, k := range Kinds {
		d := s.Generate(k)
		if !Equal(d, s.Generate(k)) {
			t.Errorf("%s: two generations differ", k.ID())
		}
		if d.Objects() != s.Datasets[k.ID()].Count || d.Kind != k {
			t.Errorf("%s: %d objects of kind %s", k.ID(), d.Objects(), d.Kind.ID())
		}
		// A prefix holds the same objects, as the bad-input corpus's 3-object bases assume.
		small := s.GenerateN(k, 2)
		switch k {
		case Users:
			if !reflect.DeepEqual(small.Users.Users, d.Users.Users[:2]) {
				t.Errorf("users: prefix differs")
			}
		case Numeric:
			if !reflect.DeepEqual(small.Numeric, d.Numeric[:2]) {
				t.Errorf("numeric: prefix differs")
			}
		case Dummy:
			if !reflect.DeepEqual(small.Dummy, d.Dummy[:2]) {
				t.Errorf("dummy: prefix differs")
			}
		}
	}
	for _, o := range s.Generate(Dummy).Dummy {
		if len(o.About) < 500 || len(o.About) >= 520 {
			t.Errorf("about has %d bytes", len(o.About))
		}
	}
}

// The generated datasets equal the values of vectors/<dataset>.json (the Rust reference), compared
// as parsed JSON values: object keys as sets, numbers by value (Rust writes 89.0 where Go writes 89).
func TestGeneratedDatasetsEqualTheReferenceJSON(t *testing.T) {
	dir, err := VectorsDir()
	if err != nil {
		t.Fatal(err)
	}
	s := spec(t)
	for _, k := range Kinds {
		want, err := os.ReadFile(filepath.Join(dir, k.ID()+".json"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(s.Generate(k).Root())
		if err != nil {
			t.Fatal(err)
		}
		if diff := diffJSON(k.ID(), parse(t, got), parse(t, want)); diff != "" {
			t.Errorf("generated %s differs from vectors/%s.json: %s", k.ID(), k.ID(), diff)
		}
	}
}

func parse(t *testing.T, text []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// diffJSON describes the first difference between two parsed JSON values, or returns "".
func diffJSON(path string, got, want any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: %v, want %v", path, got, want)
		}
		for key, wv := range w {
			if diff := diffJSON(path+"."+key, g[key], wv); diff != "" {
				return diff
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: length or type differs", path)
		}
		for i := range w {
			if diff := diffJSON(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); diff != "" {
				return diff
			}
		}
	case json.Number:
		g, ok := got.(json.Number)
		if !ok {
			return fmt.Sprintf("%s: %v, want the number %v", path, got, w)
		}
		if isInteger(g) && isInteger(w) {
			if g != w {
				return fmt.Sprintf("%s: %s, want %s", path, g, w)
			}
			return ""
		}
		gf, err1 := strconv.ParseFloat(string(g), 64)
		wf, err2 := strconv.ParseFloat(string(w), 64)
		if err1 != nil || err2 != nil || gf != wf {
			return fmt.Sprintf("%s: %s, want %s", path, g, w)
		}
	default:
		if got != want {
			return fmt.Sprintf("%s: %v, want %v", path, got, want)
		}
	}
	return ""
}

func isInteger(n json.Number) bool { return !strings.ContainsAny(string(n), ".eE") }

// Holds the Go types to datasets.json: each type's fields in order, by each name tag the codecs
// read (json for most, xml and bson where the library cannot read json's), with matching kinds.
func TestTypesMatchTheSpec(t *testing.T) {
	s := spec(t)
	goTypes := map[string]reflect.Type{
		"UsersDocument": reflect.TypeFor[UsersDocument](),
		"User":          reflect.TypeFor[User](),
		"Metadata":      reflect.TypeFor[Metadata](),
		"NumericObject": reflect.TypeFor[NumericObject](),
		"Coordinate":    reflect.TypeFor[Coordinate](),
		"DummyObject":   reflect.TypeFor[DummyObject](),
		"DummyFriend":   reflect.TypeFor[DummyFriend](),
	}
	if len(goTypes) != len(s.Types) {
		t.Fatalf("datasets.json has %d types, Go has %d", len(s.Types), len(goTypes))
	}
	scalars := map[string]reflect.Kind{"i32": reflect.Int32, "i64": reflect.Int64, "f64": reflect.Float64, "bool": reflect.Bool, "string": reflect.String}
	var kindOf func(spec string) string
	kindOf = func(spec string) string {
		if inner, ok := strings.CutPrefix(spec, "["); ok {
			elem, _, _ := strings.Cut(strings.TrimSuffix(inner, "]"), "; ")
			return "[]" + kindOf(elem)
		}
		if k, ok := scalars[spec]; ok {
			return k.String()
		}
		return goTypes[spec].String()
	}
	for name, ts := range s.Types {
		gt, ok := goTypes[name]
		if !ok {
			t.Errorf("no Go type for %s", name)
			continue
		}
		if gt.NumField() != len(ts.Fields) {
			t.Errorf("%s: %d fields, datasets.json has %d", name, gt.NumField(), len(ts.Fields))
			continue
		}
		for i, f := range ts.Fields {
			field := gt.Field(i)
			for _, tag := range []string{"json", "xml", "bson"} {
				if got := field.Tag.Get(tag); got != f.Name {
					t.Errorf("%s.%s: %s tag %q, want %q", name, field.Name, tag, got, f.Name)
				}
			}
			want := kindOf(f.Type)
			got := field.Type.String()
			if field.Type.Kind() != reflect.Slice && field.Type.Kind() != reflect.Struct {
				got = field.Type.Kind().String()
			} else if field.Type.Kind() == reflect.Slice && field.Type.Elem().Kind() != reflect.Struct {
				got = "[]" + field.Type.Elem().Kind().String()
			}
			if got != want {
				t.Errorf("%s.%s: Go type %s, datasets.json says %s (%s)", name, f.Name, got, f.Type, want)
			}
		}
	}
	for _, k := range Kinds {
		root := s.Datasets[k.ID()].Root
		got := reflect.TypeOf(k.NewRoot()).Elem().String()
		if want := kindOf(strings.Replace(root, "; count", "", 1)); got != want && "dataset."+root != got {
			t.Errorf("%s: root %s, datasets.json says %s", k.ID(), got, root)
		}
	}
}
