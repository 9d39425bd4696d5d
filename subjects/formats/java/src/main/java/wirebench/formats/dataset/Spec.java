package wirebench.formats.dataset;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The parts of {@code schema/datasets.json} the generator reads: seeds, counts and word lists.
 * The build copies the file into the jar ({@code pom.xml}, resources), so there is one source of
 * truth and the harness needs no files beside it.
 */
public final class Spec {
    /** Classpath location of {@code schema/datasets.json}. */
    public static final String RESOURCE = "/wirebench/formats/schema/datasets.json";

    /** Seed and object count of one dataset. */
    public record DatasetSpec(long seed, int count) {}

    private static final Spec INSTANCE = load();

    private final JsonNode root;
    private final Map<DatasetKind, DatasetSpec> datasets;
    private final Map<String, List<String>> words;

    private Spec(JsonNode root) {
        this.root = root;
        Map<DatasetKind, DatasetSpec> datasets = new HashMap<>();
        for (DatasetKind kind : DatasetKind.values()) {
            JsonNode node = required(root.path("datasets").path(kind.id()), "datasets." + kind.id());
            datasets.put(kind, new DatasetSpec(node.path("seed").asLong(), node.path("count").asInt()));
        }
        Map<String, List<String>> words = new HashMap<>();
        required(root.path("words"), "words").properties().forEach(entry -> {
            List<String> list = new ArrayList<>();
            entry.getValue().forEach(word -> list.add(word.asText()));
            words.put(entry.getKey(), Collections.unmodifiableList(list));
        });
        this.datasets = Collections.unmodifiableMap(datasets);
        this.words = Collections.unmodifiableMap(words);
    }

    /** The parsed file. It is part of the jar, so a failure here is a build defect, not an input error. */
    public static Spec get() {
        return INSTANCE;
    }

    public DatasetSpec dataset(DatasetKind kind) {
        return datasets.get(kind);
    }

    /** A word list of {@code words} by name ({@code first_names}, {@code lorem}, ...). */
    public List<String> words(String name) {
        List<String> list = words.get(name);
        if (list == null || list.isEmpty()) {
            throw new IllegalStateException("datasets.json has no word list '" + name + "'");
        }
        return list;
    }

    /** The whole document, for the tests that hold the Java types to it. */
    public JsonNode json() {
        return root;
    }

    private static Spec load() {
        try (InputStream in = Spec.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the classpath: build with mvn package");
            }
            return new Spec(new ObjectMapper().readTree(in));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    private static JsonNode required(JsonNode node, String path) {
        if (node.isMissingNode() || node.isNull()) {
            throw new IllegalStateException("datasets.json has no " + path);
        }
        return node;
    }
}
