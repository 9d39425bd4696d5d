package wirebench.formats.dataset;

import java.util.List;
import java.util.Objects;

/** Root of the {@code users} dataset. */
public final class UsersDocument {
    public List<User> users;
    public Metadata metadata;

    public UsersDocument() {}

    public UsersDocument(List<User> users, Metadata metadata) {
        this.users = users;
        this.metadata = metadata;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UsersDocument d && Objects.equals(users, d.users) && Objects.equals(metadata, d.metadata);
    }

    @Override
    public int hashCode() {
        return Objects.hash(users, metadata);
    }

    @Override
    public String toString() {
        return "UsersDocument{users=" + users + ", metadata=" + metadata + "}";
    }
}
