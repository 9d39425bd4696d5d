// Package dataset owns the formats lab's datasets in Go: the types, the splitmix64 generator and
// the parsed schema/datasets.json that both follow. Nothing here knows about any format.
package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// SchemaDirEnv names a directory holding datasets.json (subjects/formats/schema); it overrides
// the search SchemaDir does.
const SchemaDirEnv = "FORMATS_SCHEMA_DIR"

// Spec is the part of schema/datasets.json the generator reads: seeds, counts and word lists.
// The types and rule texts are for people and for the test that holds the Go types to them.
type Spec struct {
	Generator struct {
		Check struct {
			Seed    uint64   `json:"seed"`
			NextHex []string `json:"next_hex"`
		} `json:"check"`
	} `json:"generator"`
	Datasets map[string]DatasetSpec `json:"datasets"`
	Types    map[string]TypeSpec    `json:"types"`
	Words    Words                  `json:"words"`
}

// DatasetSpec is one entry of "datasets".
type DatasetSpec struct {
	Root  string `json:"root"`
	Seed  uint64 `json:"seed"`
	Count int    `json:"count"`
}

// TypeSpec is one entry of "types": its fields in declaration (and draw) order.
type TypeSpec struct {
	Fields []struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"fields"`
}

// Words are the lists pick() draws from.
type Words struct {
	FirstNames   []string `json:"first_names"`
	LastNames    []string `json:"last_names"`
	EmailDomains []string `json:"email_domains"`
	UserTags     []string `json:"user_tags"`
	Companies    []string `json:"companies"`
	EyeColors    []string `json:"eye_colors"`
	Genders      []string `json:"genders"`
	Fruits       []string `json:"fruits"`
	StreetNames  []string `json:"street_names"`
	StreetTypes  []string `json:"street_types"`
	Cities       []string `json:"cities"`
	States       []string `json:"states"`
	Lorem        []string `json:"lorem"`
}

// SchemaDir finds subjects/formats/schema: $FORMATS_SCHEMA_DIR if set, else the first directory
// named schema holding datasets.json above the executable or above the working directory. The
// binary lives in go/bin/ and tests run in go/internal/<pkg>/, both below subjects/formats/, so
// reading the one datasets.json needs no copy of it in this module.
var SchemaDir = sync.OnceValues(func() (string, error) {
	if dir := os.Getenv(SchemaDirEnv); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "datasets.json")); err != nil {
			return "", fmt.Errorf("%s=%s: %w", SchemaDirEnv, dir, err)
		}
		return dir, nil
	}
	var starts []string
	if exe, err := os.Executable(); err == nil {
		if resolved, err := filepath.EvalSymlinks(exe); err == nil {
			exe = resolved
		}
		starts = append(starts, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	for _, start := range starts {
		for dir := start; ; dir = filepath.Dir(dir) {
			for _, candidate := range []string{
				filepath.Join(dir, "schema"),
				filepath.Join(dir, "subjects", "formats", "schema"),
			} {
				if _, err := os.Stat(filepath.Join(candidate, "datasets.json")); err == nil {
					return candidate, nil
				}
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	return "", errors.New("cannot find schema/datasets.json above the executable or the working directory: " +
		"run from the wirebench tree or set " + SchemaDirEnv + " to subjects/formats/schema")
})

// VectorsDir is subjects/formats/vectors, beside the schema directory.
func VectorsDir() (string, error) {
	dir, err := SchemaDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(dir), "vectors"), nil
}

// LoadSpec parses datasets.json once.
var LoadSpec = sync.OnceValues(func() (*Spec, error) {
	dir, err := SchemaDir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "datasets.json")
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var spec Spec
	if err := json.Unmarshal(text, &spec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, kind := range Kinds {
		if _, ok := spec.Datasets[kind.ID()]; !ok {
			return nil, fmt.Errorf("%s: no dataset %q", path, kind.ID())
		}
	}
	return &spec, nil
})
