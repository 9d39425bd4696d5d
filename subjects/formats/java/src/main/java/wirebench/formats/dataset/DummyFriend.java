package wirebench.formats.dataset;

import java.util.Objects;

/** A friend of a {@link DummyObject}. */
public final class DummyFriend {
    public long id;
    public String name;

    public DummyFriend() {}

    public DummyFriend(long id, String name) {
        this.id = id;
        this.name = name;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DummyFriend f && id == f.id && Objects.equals(name, f.name);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, name);
    }

    @Override
    public String toString() {
        return "DummyFriend{id=" + id + ", name=" + name + "}";
    }
}
