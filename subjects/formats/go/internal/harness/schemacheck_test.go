package harness

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// CheckRow checks a parsed output line against the parts of the measurement JSON Schema the
// harness's lines use: required keys, no unknown top-level keys, the declared types of the
// properties present, the status enum, and metrics that are numbers (non-negative integers where
// declared). Go's standard library has no JSON Schema validator; this reads the real schema file,
// so a change there is seen here.
func CheckRow(schema map[string]any, row map[string]any) []string {
	var problems []string
	props := schema["properties"].(map[string]any)
	defs := schema["$defs"].(map[string]any)
	for _, key := range schema["required"].([]any) {
		if _, ok := row[key.(string)]; !ok {
			problems = append(problems, fmt.Sprintf("missing %q", key))
		}
	}
	for key, value := range row {
		prop, ok := props[key].(map[string]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("%q is not in the schema", key))
			continue
		}
		if ref, isRef := prop["$ref"].(string); isRef {
			prop, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		}
		if !hasType(prop, value) {
			problems = append(problems, fmt.Sprintf("%q = %v does not have the type %v", key, value, prop["type"]))
		}
	}
	status := defs["Status"].(map[string]any)["enum"].([]any)
	if !slices.Contains(status, row["status"]) {
		problems = append(problems, fmt.Sprintf("status %v is not one of %v", row["status"], status))
	}
	metricProps := defs["Metrics"].(map[string]any)["properties"].(map[string]any)
	metrics, _ := row["metrics"].(map[string]any)
	for key, value := range metrics {
		if prop, ok := metricProps[key].(map[string]any); ok {
			if !hasType(prop, value) {
				problems = append(problems, fmt.Sprintf("metrics.%s = %v does not have the type %v", key, value, prop["type"]))
			}
		} else if _, ok := value.(float64); !ok { // additionalProperties: a number
			problems = append(problems, fmt.Sprintf("metrics.%s = %v is not a number", key, value))
		}
	}
	return problems
}

// hasType: the value (as encoding/json parses it) has one of the property's declared JSON types.
func hasType(prop map[string]any, value any) bool {
	types, _ := prop["type"].([]any)
	if single, isString := prop["type"].(string); isString {
		types = []any{single}
	}
	for _, t := range types {
		switch v := value.(type) {
		case nil:
			if t == "null" {
				return true
			}
		case string:
			if t == "string" {
				return true
			}
		case bool:
			if t == "boolean" {
				return true
			}
		case map[string]any:
			if t == "object" {
				return true
			}
		case float64:
			if t == "number" || (t == "integer" && v == math.Trunc(v) && (prop["minimum"] == nil || v >= prop["minimum"].(float64))) {
				return true
			}
		}
	}
	return false
}
