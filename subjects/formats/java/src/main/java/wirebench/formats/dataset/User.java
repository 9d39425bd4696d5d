package wirebench.formats.dataset;

import java.util.List;
import java.util.Objects;

/** One user of the "Ways to optimize web applications" serialization test. */
public final class User {
    public long id;
    public String name;
    public String email;
    public int age;
    public boolean is_active;
    public List<String> tags;

    public User() {}

    public User(long id, String name, String email, int age, boolean isActive, List<String> tags) {
        this.id = id;
        this.name = name;
        this.email = email;
        this.age = age;
        this.is_active = isActive;
        this.tags = tags;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof User u
                && id == u.id
                && Objects.equals(name, u.name)
                && Objects.equals(email, u.email)
                && age == u.age
                && is_active == u.is_active
                && Objects.equals(tags, u.tags);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, name, email, age, is_active, tags);
    }

    @Override
    public String toString() {
        return "User{id=" + id + ", name=" + name + ", email=" + email + ", age=" + age
                + ", is_active=" + is_active + ", tags=" + tags + "}";
    }
}
