package wirebench.formats.dataset;

import java.util.Objects;

/** Describes the user list it travels with. */
public final class Metadata {
    public String version;
    public String created_at;
    public long total_count;

    public Metadata() {}

    public Metadata(String version, String createdAt, long totalCount) {
        this.version = version;
        this.created_at = createdAt;
        this.total_count = totalCount;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Metadata m
                && Objects.equals(version, m.version)
                && Objects.equals(created_at, m.created_at)
                && total_count == m.total_count;
    }

    @Override
    public int hashCode() {
        return Objects.hash(version, created_at, total_count);
    }

    @Override
    public String toString() {
        return "Metadata{version=" + version + ", created_at=" + created_at + ", total_count=" + total_count + "}";
    }
}
