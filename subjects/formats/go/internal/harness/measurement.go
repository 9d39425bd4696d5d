package harness

// One output line, in the shape of schemas/measurement.schema.json (version 1) and with the keys
// in the order the Rust harness prints them: the runner ingests these lines like its own.

const (
	SchemaVersion = 1
	Suite         = "formats"
	Subject       = "formats-go"
	Lang          = "go"
)

// Measurement is one measured (or failed) repeat of one (dataset, format) pair.
type Measurement struct {
	SchemaVersion int    `json:"schema_version"`
	RunID         string `json:"run_id"`
	Suite         string `json:"suite"`
	// Scenario is "<dataset>-<format>-go".
	Scenario string `json:"scenario"`
	Subject  string `json:"subject"`
	Lang     string `json:"lang"`
	Format   string `json:"format"`
	Params   Params `json:"params"`
	// Repeat is 1-based; 0 marks a failure found before any repeat ran (verification).
	Repeat int     `json:"repeat"`
	Status string  `json:"status"` // "ok" or "failed"
	Error  *string `json:"error"`
	// Metrics is empty ({}) on a failed row.
	Metrics Metrics `json:"metrics"`
}

// Params are the parameters a measurement ran with.
type Params struct {
	Dataset     string `json:"dataset"`
	Objects     int    `json:"objects"`
	Samples     int    `json:"samples"`
	Library     string `json:"library"` // "<module>@<version>" of the codec's library
	MinSampleMs int64  `json:"min_sample_ms"`
	WarmupMs    int64  `json:"warmup_ms"`
	GzipLevel   int    `json:"gzip_level"`
	ZstdLevel   int    `json:"zstd_level"`
}

// Metrics: times are medians over the samples of the time of one operation; allocation figures
// are per operation, averaged over every operation of the samples (as -benchmem reports them).
type Metrics struct {
	SerializeNs           *float64 `json:"serialize_ns,omitempty"`
	DeserializeNs         *float64 `json:"deserialize_ns,omitempty"`
	SizeBytes             *uint64  `json:"size_bytes,omitempty"`
	SizeGzipBytes         *uint64  `json:"size_gzip_bytes,omitempty"`
	SizeZstdBytes         *uint64  `json:"size_zstd_bytes,omitempty"`
	SerializeAllocs       *uint64  `json:"serialize_allocs,omitempty"`
	SerializeAllocBytes   *uint64  `json:"serialize_alloc_bytes,omitempty"`
	DeserializeAllocs     *uint64  `json:"deserialize_allocs,omitempty"`
	DeserializeAllocBytes *uint64  `json:"deserialize_alloc_bytes,omitempty"`
}

// Scenario is the scenario id of a dataset and format.
func Scenario(dataset, format string) string {
	return dataset + "-" + format + "-" + Lang
}
