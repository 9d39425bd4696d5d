package wirebench.formats.dataset;

import java.util.Arrays;
import java.util.Optional;

/** Which dataset; its id is the one used in file names, flags and measurements. */
public enum DatasetKind {
    USERS("users"),
    NUMERIC("numeric"),
    DUMMY("dummy");

    private final String id;

    DatasetKind(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** The number of objects {@code datasets.json} gives this dataset. */
    public int count() {
        return Spec.get().dataset(this).count();
    }

    public static Optional<DatasetKind> fromId(String id) {
        return Arrays.stream(values()).filter(kind -> kind.id.equals(id)).findFirst();
    }
}
