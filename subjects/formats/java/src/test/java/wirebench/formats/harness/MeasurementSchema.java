package wirebench.formats.harness;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The parts of schemas/measurement.schema.json a measurement line can break: required keys, no
 * unknown top-level keys, the type of every property a line sets, the status values, and
 * metrics that are all numbers (the schema's additionalProperties).
 */
public final class MeasurementSchema {
    private MeasurementSchema() {}

    public static void check(JsonNode schema, JsonNode row) {
        JsonNode properties = schema.path("properties");
        schema.path("required").forEach(name -> assertTrue(row.has(name.asText()), row + ": no " + name));
        row.fieldNames().forEachRemaining(name -> assertTrue(properties.has(name), row + ": unknown key " + name));
        row.properties().forEach(entry -> {
            JsonNode type = properties.path(entry.getKey()).path("type");
            if (!type.isMissingNode()) {
                assertTrue(hasType(type, entry.getValue()), row + ": " + entry.getKey() + " is not " + type);
            }
        });
        JsonNode statuses = schema.path("$defs").path("Status").path("enum");
        assertTrue(statuses.toString().contains('"' + row.path("status").asText() + '"'), row + ": status");
        assertTrue(row.path("repeat").asInt() >= 0, row + ": repeat");
        JsonNode metrics = schema.path("$defs").path("Metrics").path("properties");
        row.path("metrics").properties().forEach(entry -> {
            assertTrue(entry.getValue().isNumber(), row + ": metric " + entry.getKey() + " is not a number");
            JsonNode type = metrics.path(entry.getKey()).path("type");
            if (!type.isMissingNode()) {
                assertTrue(hasType(type, entry.getValue()), row + ": metric " + entry.getKey() + " is not " + type);
            }
        });
    }

    private static boolean hasType(JsonNode type, JsonNode value) {
        if (type.isArray()) {
            for (JsonNode t : type) {
                if (hasType(t, value)) {
                    return true;
                }
            }
            return false;
        }
        return switch (type.asText()) {
            case "string" -> value.isTextual();
            case "integer" -> value.isIntegralNumber();
            case "number" -> value.isNumber();
            case "object" -> value.isObject();
            case "boolean" -> value.isBoolean();
            case "null" -> value.isNull();
            default -> true;
        };
    }
}
