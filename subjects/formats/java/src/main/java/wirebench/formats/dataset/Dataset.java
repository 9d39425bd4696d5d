package wirebench.formats.dataset;

import java.util.List;

/**
 * A generated or decoded dataset: its root value, typed. Two datasets are equal when their
 * values are (field by field, doubles by their bits).
 */
public sealed interface Dataset permits Dataset.Users, Dataset.Numeric, Dataset.Dummy {

    DatasetKind kind();

    /** The root value as the formats see it: a {@link UsersDocument} or a list of objects. */
    Object root();

    /** Number of top-level objects (users, or list elements). */
    int objects();

    record Users(UsersDocument document) implements Dataset {
        @Override
        public DatasetKind kind() {
            return DatasetKind.USERS;
        }

        @Override
        public Object root() {
            return document;
        }

        @Override
        public int objects() {
            return document.users == null ? 0 : document.users.size();
        }
    }

    record Numeric(List<NumericObject> items) implements Dataset {
        @Override
        public DatasetKind kind() {
            return DatasetKind.NUMERIC;
        }

        @Override
        public Object root() {
            return items;
        }

        @Override
        public int objects() {
            return items.size();
        }
    }

    record Dummy(List<DummyObject> items) implements Dataset {
        @Override
        public DatasetKind kind() {
            return DatasetKind.DUMMY;
        }

        @Override
        public Object root() {
            return items;
        }

        @Override
        public int objects() {
            return items.size();
        }
    }

    /**
     * Wraps a decoded root value. The caller guarantees the value's type matches the kind (a
     * codec decodes each kind into its own type), so the casts cannot fail.
     */
    @SuppressWarnings("unchecked")
    static Dataset of(DatasetKind kind, Object root) {
        return switch (kind) {
            case USERS -> new Users((UsersDocument) root);
            case NUMERIC -> new Numeric((List<NumericObject>) root);
            case DUMMY -> new Dummy((List<DummyObject>) root);
        };
    }
}
