package wirebench.formats.codec;

import com.google.protobuf.InvalidProtocolBufferException;
import java.util.ArrayList;
import java.util.List;
import wirebench.formats.Datasets;
import wirebench.formats.dataset.Coordinate;
import wirebench.formats.dataset.Dataset;
import wirebench.formats.dataset.DatasetKind;
import wirebench.formats.dataset.DummyFriend;
import wirebench.formats.dataset.DummyObject;
import wirebench.formats.dataset.Metadata;
import wirebench.formats.dataset.NumericObject;
import wirebench.formats.dataset.User;
import wirebench.formats.dataset.UsersDocument;

/**
 * Protocol Buffers through protobuf-java, with the message classes protoc generates from
 * {@code schema/datasets.proto} ({@code src/generated/java}, see regenerate-protobuf.sh).
 *
 * <p>protobuf-java serializes only its generated messages, so encode builds them from the
 * dataset types and decode copies them back (every string materialised): both copies are part
 * of what the harness times as protobuf, as they are in a program whose model is its own
 * classes. List datasets travel as {@code NumericList} / {@code DummyList}
 * ({@code repeated ... items = 1}); proto3 omits fields equal to their default, and an absent
 * {@code metadata} decodes as an all-default one, as prost does.
 */
final class ProtobufCodec implements Codec {
    private static final String ID = "protobuf";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String library() {
        return Libraries.library("protobuf-java");
    }

    @Override
    public byte[] encode(Dataset data) {
        if (data instanceof Dataset.Users users) {
            return toProto(users.document()).toByteArray();
        } else if (data instanceof Dataset.Numeric numeric) {
            Datasets.NumericList.Builder list = Datasets.NumericList.newBuilder();
            for (NumericObject item : numeric.items()) {
                list.addItems(toProto(item));
            }
            return list.build().toByteArray();
        } else {
            Datasets.DummyList.Builder list = Datasets.DummyList.newBuilder();
            for (DummyObject item : ((Dataset.Dummy) data).items()) {
                list.addItems(toProto(item));
            }
            return list.build().toByteArray();
        }
    }

    @Override
    public Dataset decode(byte[] bytes, DatasetKind kind) throws CodecException {
        try {
            return switch (kind) {
                case USERS -> new Dataset.Users(fromProto(Datasets.UsersDocument.parseFrom(bytes)));
                case NUMERIC -> {
                    Datasets.NumericList list = Datasets.NumericList.parseFrom(bytes);
                    List<NumericObject> items = new ArrayList<>(list.getItemsCount());
                    for (Datasets.NumericObject item : list.getItemsList()) {
                        items.add(fromProto(item));
                    }
                    yield new Dataset.Numeric(items);
                }
                case DUMMY -> {
                    Datasets.DummyList list = Datasets.DummyList.parseFrom(bytes);
                    List<DummyObject> items = new ArrayList<>(list.getItemsCount());
                    for (Datasets.DummyObject item : list.getItemsList()) {
                        items.add(fromProto(item));
                    }
                    yield new Dataset.Dummy(items);
                }
            };
        } catch (InvalidProtocolBufferException e) {
            throw CodecException.decode(ID, kind, e);
        }
    }

    private static Datasets.UsersDocument toProto(UsersDocument doc) {
        Datasets.UsersDocument.Builder b = Datasets.UsersDocument.newBuilder();
        for (User u : doc.users) {
            b.addUsers(Datasets.User.newBuilder()
                    .setId(u.id)
                    .setName(u.name)
                    .setEmail(u.email)
                    .setAge(u.age)
                    .setIsActive(u.is_active)
                    .addAllTags(u.tags));
        }
        Metadata m = doc.metadata;
        b.setMetadata(Datasets.Metadata.newBuilder()
                .setVersion(m.version)
                .setCreatedAt(m.created_at)
                .setTotalCount(m.total_count));
        return b.build();
    }

    private static UsersDocument fromProto(Datasets.UsersDocument doc) {
        List<User> users = new ArrayList<>(doc.getUsersCount());
        for (Datasets.User u : doc.getUsersList()) {
            users.add(new User(u.getId(), u.getName(), u.getEmail(), u.getAge(), u.getIsActive(),
                    new ArrayList<>(u.getTagsList())));
        }
        Datasets.Metadata m = doc.getMetadata();
        return new UsersDocument(users, new Metadata(m.getVersion(), m.getCreatedAt(), m.getTotalCount()));
    }

    private static Datasets.NumericObject toProto(NumericObject n) {
        Datasets.NumericObject.Builder b = Datasets.NumericObject.newBuilder()
                .setId(n.id)
                .setIndex(n.index)
                .setNumbr(n.numbr);
        for (Coordinate c : n.coordinates) {
            b.addCoordinates(Datasets.Coordinate.newBuilder()
                    .setTimestamp(c.timestamp)
                    .setLatitude(c.latitude)
                    .setLongitude(c.longitude));
        }
        return b.build();
    }

    private static NumericObject fromProto(Datasets.NumericObject n) {
        List<Coordinate> coordinates = new ArrayList<>(n.getCoordinatesCount());
        for (Datasets.Coordinate c : n.getCoordinatesList()) {
            coordinates.add(new Coordinate(c.getTimestamp(), c.getLatitude(), c.getLongitude()));
        }
        return new NumericObject(n.getId(), n.getIndex(), n.getNumbr(), coordinates);
    }

    private static Datasets.DummyObject toProto(DummyObject d) {
        Datasets.DummyObject.Builder b = Datasets.DummyObject.newBuilder()
                .setId(d._id)
                .setIndex(d.index)
                .setGuid(d.guid)
                .setIsActive(d.isActive)
                .setBalance(d.balance)
                .setPicture(d.picture)
                .setAge(d.age)
                .setEyeColor(d.eyeColor)
                .setName(d.name)
                .setGender(d.gender)
                .setCompany(d.company)
                .setEmail(d.email)
                .setPhone(d.phone)
                .setAddress(d.address)
                .setAbout(d.about)
                .setRegistered(d.registered)
                .setLatitude(d.latitude)
                .setLongitude(d.longitude)
                .addAllTags(d.tags)
                .setGreeting(d.greeting)
                .setFavoriteFruit(d.favoriteFruit);
        for (DummyFriend f : d.friends) {
            b.addFriends(Datasets.DummyFriend.newBuilder().setId(f.id).setName(f.name));
        }
        return b.build();
    }

    private static DummyObject fromProto(Datasets.DummyObject p) {
        DummyObject d = new DummyObject();
        d._id = p.getId();
        d.index = p.getIndex();
        d.guid = p.getGuid();
        d.isActive = p.getIsActive();
        d.balance = p.getBalance();
        d.picture = p.getPicture();
        d.age = p.getAge();
        d.eyeColor = p.getEyeColor();
        d.name = p.getName();
        d.gender = p.getGender();
        d.company = p.getCompany();
        d.email = p.getEmail();
        d.phone = p.getPhone();
        d.address = p.getAddress();
        d.about = p.getAbout();
        d.registered = p.getRegistered();
        d.latitude = p.getLatitude();
        d.longitude = p.getLongitude();
        d.tags = new ArrayList<>(p.getTagsList());
        d.friends = new ArrayList<>(p.getFriendsCount());
        for (Datasets.DummyFriend f : p.getFriendsList()) {
            d.friends.add(new DummyFriend(f.getId(), f.getName()));
        }
        d.greeting = p.getGreeting();
        d.favoriteFruit = p.getFavoriteFruit();
        return d;
    }
}
