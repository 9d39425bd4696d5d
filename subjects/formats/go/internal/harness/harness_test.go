package harness

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wirebench/formats-go/internal/codecs"
	"wirebench/formats-go/internal/dataset"
)

// stepClock: every reading is step later than the one before, so every batch takes exactly step.
type stepClock struct {
	now  time.Time
	step time.Duration
}

func (c *stepClock) Now() time.Time {
	c.now = c.now.Add(c.step)
	return c.now
}

func options(cs ...codecs.Codec) Options {
	return Options{RunID: "test-run", Repeats: 2, Datasets: []dataset.Kind{dataset.Numeric}, Codecs: cs,
		Samples: 3, MinSample: time.Millisecond, Warmup: 0}
}

func run(t *testing.T, opts Options) []map[string]any {
	t.Helper()
	spec, err := dataset.LoadSpec()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Run(opts, spec, &stepClock{now: time.Unix(0, 0), step: 2 * time.Millisecond}, &out); err != nil {
		t.Fatal(err)
	}
	var rows []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		rows = append(rows, row)
	}
	return rows
}

func TestAMockClockRunIsExact(t *testing.T) {
	jsonCodec, _ := codecs.ByID("json")
	rows := run(t, options(jsonCodec))
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	spec, _ := dataset.LoadSpec()
	size, _ := jsonCodec.Encode(spec.Generate(dataset.Numeric))
	for i, row := range rows {
		m := row["metrics"].(map[string]any)
		p := row["params"].(map[string]any)
		checks := map[string][2]any{
			"repeat":   {row["repeat"], float64(i + 1)},
			"scenario": {row["scenario"], "numeric-json-go"},
			"subject":  {row["subject"], "formats-go"},
			"lang":     {row["lang"], "go"},
			"status":   {row["status"], "ok"},
			"error":    {row["error"], nil},
			// A 2 ms batch already exceeds 1 ms, so batches hold one operation of 2 ms.
			"serialize_ns":   {m["serialize_ns"], 2e6},
			"deserialize_ns": {m["deserialize_ns"], 2e6},
			"size_bytes":     {m["size_bytes"], float64(len(size))},
			"objects":        {p["objects"], 100.0},
			"library":        {p["library"], jsonCodec.Library()},
		}
		for name, c := range checks {
			if c[0] != c[1] {
				t.Errorf("row %d: %s = %v, want %v", i, name, c[0], c[1])
			}
		}
		if gz := m["size_gzip_bytes"].(float64); gz <= 0 || gz >= float64(len(size)) {
			t.Errorf("size_gzip_bytes = %v", gz)
		}
		if allocs := m["deserialize_allocs"].(float64); allocs < 100 {
			t.Errorf("deserialize_allocs = %v: decoding 100 objects allocates at least their strings", allocs)
		}
	}
}

// broken encodes every dataset as an empty JSON list, so verification fails.
type broken struct{ codecs.Codec }

func (broken) ID() string      { return "broken" }
func (broken) Library() string { return "none@v0" }
func (broken) Encode(dataset.Dataset) ([]byte, error) {
	return []byte("[]"), nil
}

func TestAPairThatFailsVerificationIsReportedOnceAndNeverTimed(t *testing.T) {
	jsonCodec, _ := codecs.ByID("json")
	rows := run(t, options(broken{jsonCodec}))
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	row := rows[0]
	if row["status"] != "failed" || row["repeat"] != 0.0 || len(row["metrics"].(map[string]any)) != 0 {
		t.Errorf("failed row: %v", row)
	}
	if e, _ := row["error"].(string); !strings.Contains(e, "differs from the input") {
		t.Errorf("error = %v", row["error"])
	}
}

// Every row of a run over every codec (and a broken one) fits schemas/measurement.schema.json.
func TestEveryRowMatchesTheMeasurementSchema(t *testing.T) {
	jsonCodec, _ := codecs.ByID("json")
	opts := options(append(append([]codecs.Codec{}, codecs.All...), broken{jsonCodec})...)
	opts.Datasets, opts.Repeats = dataset.Kinds, 1
	rows := run(t, opts)
	if want := 3*len(codecs.All) + 3; len(rows) != want {
		t.Fatalf("%d rows, want %d", len(rows), want)
	}
	schema := measurementSchema(t)
	for _, row := range rows {
		for _, problem := range CheckRow(schema, row) {
			t.Errorf("%v: %s", row["scenario"], problem)
		}
	}
}

func measurementSchema(t *testing.T) map[string]any {
	t.Helper()
	dir, err := dataset.SchemaDir()
	if err != nil {
		t.Fatal(err)
	}
	// subjects/formats/schema → the repository's schemas/.
	path := filepath.Join(dir, "..", "..", "..", "schemas", "measurement.schema.json")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(text, &schema); err != nil {
		t.Fatal(err)
	}
	return schema
}

func TestMedian(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median = %v", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median = %v", m)
	}
}

func TestCheckRowFindsProblems(t *testing.T) {
	row := map[string]any{"schema_version": 1.0, "run_id": "r", "suite": "formats", "scenario": "s",
		"subject": "formats-go", "lang": 7.0, "repeat": -1.0, "status": "maybe", "colour": "red",
		"metrics": map[string]any{"size_bytes": 1.5, "serialize_allocs": "many"}}
	problems := CheckRow(measurementSchema(t), row)
	for _, want := range []string{`"lang"`, `"repeat"`, "status maybe", `"colour"`, "metrics.size_bytes", "metrics.serialize_allocs"} {
		if !strings.Contains(strings.Join(problems, "\n"), want) {
			t.Errorf("no problem reported about %s: %v", want, problems)
		}
	}
}
