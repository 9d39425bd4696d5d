package wirebench.formats.dataset;

import java.util.List;
import java.util.Objects;

/** One element of the {@code dummy} dataset: mostly strings, in the shape of a json-generator record. */
public final class DummyObject {
    public String _id;
    public long index;
    public String guid;
    public boolean isActive;
    public String balance;
    public String picture;
    public int age;
    public String eyeColor;
    public String name;
    public String gender;
    public String company;
    public String email;
    public String phone;
    public String address;
    public String about;
    public String registered;
    public double latitude;
    public double longitude;
    public List<String> tags;
    public List<DummyFriend> friends;
    public String greeting;
    public String favoriteFruit;

    public DummyObject() {}

    /** Doubles compare by their bits ({@link Double#compare}), so -0.0 and 0.0 differ. */
    @Override
    public boolean equals(Object o) {
        return o instanceof DummyObject d
                && Objects.equals(_id, d._id)
                && index == d.index
                && Objects.equals(guid, d.guid)
                && isActive == d.isActive
                && Objects.equals(balance, d.balance)
                && Objects.equals(picture, d.picture)
                && age == d.age
                && Objects.equals(eyeColor, d.eyeColor)
                && Objects.equals(name, d.name)
                && Objects.equals(gender, d.gender)
                && Objects.equals(company, d.company)
                && Objects.equals(email, d.email)
                && Objects.equals(phone, d.phone)
                && Objects.equals(address, d.address)
                && Objects.equals(about, d.about)
                && Objects.equals(registered, d.registered)
                && Double.compare(latitude, d.latitude) == 0
                && Double.compare(longitude, d.longitude) == 0
                && Objects.equals(tags, d.tags)
                && Objects.equals(friends, d.friends)
                && Objects.equals(greeting, d.greeting)
                && Objects.equals(favoriteFruit, d.favoriteFruit);
    }

    @Override
    public int hashCode() {
        return Objects.hash(_id, index, guid, isActive, balance, picture, age, eyeColor, name, gender, company,
                email, phone, address, about, registered, latitude, longitude, tags, friends, greeting,
                favoriteFruit);
    }

    @Override
    public String toString() {
        return "DummyObject{_id=" + _id + ", index=" + index + ", guid=" + guid + ", isActive=" + isActive
                + ", balance=" + balance + ", picture=" + picture + ", age=" + age + ", eyeColor=" + eyeColor
                + ", name=" + name + ", gender=" + gender + ", company=" + company + ", email=" + email
                + ", phone=" + phone + ", address=" + address + ", about=" + about + ", registered=" + registered
                + ", latitude=" + latitude + ", longitude=" + longitude + ", tags=" + tags + ", friends=" + friends
                + ", greeting=" + greeting + ", favoriteFruit=" + favoriteFruit + "}";
    }
}
