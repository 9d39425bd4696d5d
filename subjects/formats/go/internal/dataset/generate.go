package dataset

import (
	"fmt"
	"strconv"
	"strings"
)

// Generate builds the dataset with the seed and count of datasets.json.
func (s *Spec) Generate(k Kind) Dataset {
	return s.GenerateN(k, s.Datasets[k.ID()].Count)
}

// GenerateN builds the first n objects of the dataset (the same objects Generate starts with;
// users also gets total_count = n).
func (s *Spec) GenerateN(k Kind, n int) Dataset {
	g := generator{rng: SplitMix64{State: s.Datasets[k.ID()].Seed}, w: &s.Words}
	switch k {
	case Users:
		doc := &UsersDocument{Users: make([]User, n)}
		for i := range doc.Users {
			doc.Users[i] = g.user(i)
		}
		doc.Metadata = Metadata{Version: "1.0", CreatedAt: "2025-01-01T00:00:00Z", TotalCount: int64(n)}
		return Dataset{Kind: k, Users: doc}
	case Numeric:
		items := make([]NumericObject, n)
		for i := range items {
			items[i] = g.numeric(i)
		}
		return Dataset{Kind: k, Numeric: items}
	default:
		items := make([]DummyObject, n)
		for i := range items {
			items[i] = g.dummy(i)
		}
		return Dataset{Kind: k, Dummy: items}
	}
}

// SplitMix64 is the generator exactly as datasets.json spells it out; State starts at the seed.
type SplitMix64 struct {
	State uint64
}

// Next returns the next 64-bit value (all arithmetic wraps, as Go's uint64 does).
func (r *SplitMix64) Next() uint64 {
	r.State += 0x9E3779B97F4A7C15
	z := r.State
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// below(n) = next() mod n. The modulo bias is part of the spec: every language reproduces it.
func (r *SplitMix64) below(n uint64) uint64 { return r.Next() % n }

// int(lo, hi): an integer in [lo, hi].
func (r *SplitMix64) int(lo, hi int64) int64 { return lo + int64(r.below(uint64(hi-lo+1))) }

// fixed(lo, hi, scale): ONE float64 division of two exact integers, so every language rounds alike.
func (r *SplitMix64) fixed(lo, hi, scale int64) float64 {
	return float64(r.int(lo, hi)) / float64(scale)
}

func (r *SplitMix64) bool() bool { return r.below(2) == 1 }

func (r *SplitMix64) pick(list []string) string { return list[r.below(uint64(len(list)))] }

func (r *SplitMix64) hex64() string { return fmt.Sprintf("%016x", r.Next()) }

// objectID: 24 hex digits from two draws.
func (r *SplitMix64) objectID() string {
	first := r.hex64()
	return first + r.hex64()[:8]
}

// guid: 32 hex digits from two draws, grouped 8-4-4-4-12.
func (r *SplitMix64) guid() string {
	first := r.hex64()
	h := first + r.hex64()
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

type generator struct {
	rng SplitMix64
	w   *Words
}

// Every statement below draws in the order datasets.json lists the lets and fields; Go evaluates
// the operands of one expression left to right, which is the order within a rule.

func (g *generator) user(i int) User {
	r, w := &g.rng, g.w
	first := r.pick(w.FirstNames)
	last := r.pick(w.LastNames)
	id := int64(i) + 1
	u := User{ID: id, Name: first + " " + last}
	u.Email = strings.ToLower(first) + "." + strings.ToLower(last) + strconv.FormatInt(id, 10) + "@" + r.pick(w.EmailDomains)
	u.Age = int32(r.int(18, 80))
	u.IsActive = r.bool()
	u.Tags = make([]string, 3)
	for k := range u.Tags {
		u.Tags[k] = r.pick(w.UserTags)
	}
	return u
}

func (g *generator) numeric(i int) NumericObject {
	r := &g.rng
	o := NumericObject{ID: r.objectID(), Index: int64(i)}
	o.Numbr = r.fixed(-1_000_000_000, 1_000_000_000, 1000)
	o.Coordinates = make([]Coordinate, 10)
	for k := range o.Coordinates {
		c := &o.Coordinates[k]
		c.Timestamp = 1_700_000_000_000 + r.int(0, 31_535_999_999)
		c.Latitude = r.fixed(-90_000_000, 90_000_000, 1_000_000)
		c.Longitude = r.fixed(-180_000_000, 180_000_000, 1_000_000)
	}
	return o
}

func (g *generator) dummy(i int) DummyObject {
	r, w := &g.rng, g.w
	first := r.pick(w.FirstNames)
	last := r.pick(w.LastNames)
	company := r.pick(w.Companies)
	var d DummyObject
	d.ID = r.objectID()
	d.Index = int64(i)
	d.GUID = r.guid()
	d.IsActive = r.bool()
	d.Balance = dollars(r.int(100_000, 399_999))
	d.Picture = "http://placehold.it/32x32"
	d.Age = int32(r.int(20, 40))
	d.EyeColor = r.pick(w.EyeColors)
	d.Name = first + " " + last
	d.Gender = r.pick(w.Genders)
	d.Company = company
	d.Email = strings.ToLower(first) + "." + strings.ToLower(last) + "@" + strings.ToLower(company) + ".com"
	area := r.int(200, 999)
	exchange := r.int(200, 999)
	line := r.int(0, 9999)
	d.Phone = fmt.Sprintf("+1 (%d) %d-%04d", area, exchange, line)
	number := r.int(100, 9999)
	street := r.pick(w.StreetNames)
	streetType := r.pick(w.StreetTypes)
	city := r.pick(w.Cities)
	state := r.pick(w.States)
	zip := r.int(0, 99_999)
	d.Address = fmt.Sprintf("%d %s %s, %s, %s, %05d", number, street, streetType, city, state, zip)
	d.About = paragraph(r, w.Lorem, 500)
	y, mo, day := r.int(2014, 2023), r.int(1, 12), r.int(1, 28)
	h, mi, s := r.int(0, 23), r.int(0, 59), r.int(0, 59)
	tz := r.int(-12, 12)
	sign, abs := '+', tz
	if tz < 0 {
		sign, abs = '-', -tz
	}
	d.Registered = fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d %c%02d:00", y, mo, day, h, mi, s, sign, abs)
	d.Latitude = r.fixed(-90_000_000, 90_000_000, 1_000_000)
	d.Longitude = r.fixed(-180_000_000, 180_000_000, 1_000_000)
	d.Tags = make([]string, 7)
	for k := range d.Tags {
		d.Tags[k] = r.pick(w.Lorem)
	}
	d.Friends = make([]DummyFriend, 3)
	for k := range d.Friends {
		friendFirst := r.pick(w.FirstNames)
		d.Friends[k] = DummyFriend{ID: int64(k), Name: friendFirst + " " + r.pick(w.LastNames)}
	}
	d.Greeting = "Hello, " + first + "! You have " + strconv.FormatInt(r.int(1, 10), 10) + " unread messages."
	d.FavoriteFruit = r.pick(w.Fruits)
	return d
}

// dollars(cents) = "$1,234.56".
func dollars(cents int64) string {
	digits := strconv.FormatInt(cents/100, 10)
	var b strings.Builder
	b.WriteByte('$')
	for n := range len(digits) {
		if n > 0 && (len(digits)-n)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(digits[n])
	}
	fmt.Fprintf(&b, ".%02d", cents%100)
	return b.String()
}

// paragraph(list, minLen): words until at least minLen bytes, first letter upper-cased, full stop.
func paragraph(r *SplitMix64, list []string, minLen int) string {
	var b strings.Builder
	for b.Len() < minLen {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(r.pick(list))
	}
	s := b.String()
	return strings.ToUpper(s[:1]) + s[1:] + "."
}
