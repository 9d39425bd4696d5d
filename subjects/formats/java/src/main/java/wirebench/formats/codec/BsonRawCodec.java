package wirebench.formats.codec;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.bson.BSONException;
import org.bson.BsonBinaryWriter;
import org.bson.BsonReader;
import org.bson.BsonSerializationException;
import org.bson.BsonType;
import org.bson.BsonValue;
import org.bson.BsonWriter;
import org.bson.RawBsonDocument;
import org.bson.io.BasicOutputBuffer;
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
 * BSON through the MongoDB Java driver's {@code org.bson} library, read lazily through
 * {@link RawBsonDocument}: the second study's claim is that wrapping the bytes lazily is far
 * faster than binding them (bson4jackson, the {@code bson} codec).
 *
 * <p>Same wire layout as {@code bson} (and the vectors): {@code users} is a document, the list
 * datasets are {@code {"items": [...]}}, {@code int} → int32, {@code long} → int64, {@code double} →
 * double. Encode writes the fields in declaration order with a {@link BsonBinaryWriter}; the full
 * {@link #decode} reads every field through the raw document's {@link BsonReader} into the dataset
 * types (verification and the tests use it). What the harness times as deserialization is
 * {@link #decodeLazily}: see {@link #lazyAccess()}.
 */
public final class BsonRawCodec implements Codec, LazyDecoder {
    private static final String ID = "bson-raw";
    private static final String ITEMS = "items";

    BsonRawCodec() {}

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String library() {
        return Libraries.library("bson");
    }

    @Override
    public String vectorFormat() {
        return "bson";
    }

    @Override
    public String lazyAccess() {
        return "the length-prefix check, new RawBsonDocument(bytes), then the root list (users' `users`, or `items`) looked up and its elements "
                + "counted: each element is skipped by its length prefix, no field of any object is read";
    }

    @Override
    public Object decodeLazily(byte[] bytes, DatasetKind kind) throws CodecException {
        BsonLength.check(ID, bytes, kind);
        try {
            BsonValue list = new RawBsonDocument(bytes).get(kind == DatasetKind.USERS ? "users" : ITEMS);
            if (list == null || !list.isArray()) {
                throw CodecException.decode(ID, kind, "no root list");
            }
            return list.asArray().size();
        } catch (BSONException e) {
            throw CodecException.decode(ID, kind, e);
        }
    }

    @Override
    public byte[] encode(Dataset data) {
        BasicOutputBuffer buffer = new BasicOutputBuffer();
        try (BsonBinaryWriter w = new BsonBinaryWriter(buffer)) {
            w.writeStartDocument();
            if (data instanceof Dataset.Users users) {
                UsersDocument doc = users.document();
                writeList(w, "users", doc.users, BsonRawCodec::writeUser);
                w.writeName("metadata");
                writeMetadata(w, doc.metadata);
            } else if (data instanceof Dataset.Numeric numeric) {
                writeList(w, ITEMS, numeric.items(), BsonRawCodec::writeNumeric);
            } else {
                writeList(w, ITEMS, ((Dataset.Dummy) data).items(), BsonRawCodec::writeDummy);
            }
            w.writeEndDocument();
        }
        return buffer.toByteArray();
    }

    /**
     * Wraps the bytes in a {@link RawBsonDocument} and reads all of it into the dataset types
     * through {@link RawBsonDocument#decode}, which streams the raw bytes with a
     * {@code BsonBinaryReader}. (Not {@code asBsonReader()}: RawBsonDocument inherits it from
     * BsonDocument, and it first converts the whole document into a BsonDocument tree, recursing
     * once per nesting level: 20 000 levels overflow the stack.) {@link BsonLength} rejects a
     * forged length prefix first; the library's own exceptions ({@link BSONException} and its
     * subclasses) are its decode errors.
     */
    @Override
    public Dataset decode(byte[] bytes, DatasetKind kind) throws CodecException {
        BsonLength.check(ID, bytes, kind);
        RawBsonDocument document = new RawBsonDocument(bytes);
        try {
            return switch (kind) {
                case USERS -> new Dataset.Users(document.decode((r, context) -> readUsersDocument(r)));
                case NUMERIC -> new Dataset.Numeric(document.decode((r, context) -> readItems(r, BsonRawCodec::readNumeric)));
                case DUMMY -> new Dataset.Dummy(document.decode((r, context) -> readItems(r, BsonRawCodec::readDummy)));
            };
        } catch (BSONException e) {
            throw CodecException.decode(ID, kind, e);
        }
    }

    /**
     * Reads every field of one {@code numeric} or {@code dummy} object out of a raw document that
     * is that object itself (not a dataset's {@code {"items": [...]}}), as {@link #decode} reads
     * each list element: the parse lab serves and reads objects one per document.
     *
     * @return a {@link NumericObject} or a {@link DummyObject}
     */
    public static Object decodeObject(RawBsonDocument document, DatasetKind kind) throws CodecException {
        try {
            return switch (kind) {
                case NUMERIC -> document.decode((r, context) -> readNumeric(r));
                case DUMMY -> document.decode((r, context) -> readDummy(r));
                case USERS -> throw new IllegalArgumentException("users is one document, not a list of objects");
            };
        } catch (BSONException e) {
            throw CodecException.decode(ID, kind, e);
        }
    }

    private interface FieldWriter<T> {
        void write(BsonWriter w, T value);
    }

    private static <T> void writeList(BsonWriter w, String name, List<T> items, FieldWriter<T> element) {
        w.writeStartArray(name);
        for (T item : items) {
            element.write(w, item);
        }
        w.writeEndArray();
    }

    private static void writeStrings(BsonWriter w, String name, List<String> strings) {
        w.writeStartArray(name);
        for (String s : strings) {
            w.writeString(s);
        }
        w.writeEndArray();
    }

    private static void writeUser(BsonWriter w, User u) {
        w.writeStartDocument();
        w.writeInt64("id", u.id);
        w.writeString("name", u.name);
        w.writeString("email", u.email);
        w.writeInt32("age", u.age);
        w.writeBoolean("is_active", u.is_active);
        writeStrings(w, "tags", u.tags);
        w.writeEndDocument();
    }

    private static void writeMetadata(BsonWriter w, Metadata m) {
        w.writeStartDocument();
        w.writeString("version", m.version);
        w.writeString("created_at", m.created_at);
        w.writeInt64("total_count", m.total_count);
        w.writeEndDocument();
    }

    private static void writeNumeric(BsonWriter w, NumericObject n) {
        w.writeStartDocument();
        w.writeString("id", n.id);
        w.writeInt64("index", n.index);
        w.writeDouble("numbr", n.numbr);
        writeList(w, "coordinates", n.coordinates, (cw, c) -> {
            cw.writeStartDocument();
            cw.writeInt64("timestamp", c.timestamp);
            cw.writeDouble("latitude", c.latitude);
            cw.writeDouble("longitude", c.longitude);
            cw.writeEndDocument();
        });
        w.writeEndDocument();
    }

    private static void writeDummy(BsonWriter w, DummyObject d) {
        w.writeStartDocument();
        w.writeString("_id", d._id);
        w.writeInt64("index", d.index);
        w.writeString("guid", d.guid);
        w.writeBoolean("isActive", d.isActive);
        w.writeString("balance", d.balance);
        w.writeString("picture", d.picture);
        w.writeInt32("age", d.age);
        w.writeString("eyeColor", d.eyeColor);
        w.writeString("name", d.name);
        w.writeString("gender", d.gender);
        w.writeString("company", d.company);
        w.writeString("email", d.email);
        w.writeString("phone", d.phone);
        w.writeString("address", d.address);
        w.writeString("about", d.about);
        w.writeString("registered", d.registered);
        w.writeDouble("latitude", d.latitude);
        w.writeDouble("longitude", d.longitude);
        writeStrings(w, "tags", d.tags);
        writeList(w, "friends", d.friends, (fw, f) -> {
            fw.writeStartDocument();
            fw.writeInt64("id", f.id);
            fw.writeString("name", f.name);
            fw.writeEndDocument();
        });
        w.writeString("greeting", d.greeting);
        w.writeString("favoriteFruit", d.favoriteFruit);
        w.writeEndDocument();
    }

    /** A field this type does not have: strict, as the Jackson-bound codecs are. */
    private static BsonSerializationException unknown(String type, String name) {
        return new BsonSerializationException(type + " has no field '" + name + "'");
    }

    private static <T> List<T> readList(BsonReader r, Function<BsonReader, T> element) {
        List<T> list = new ArrayList<>();
        r.readStartArray();
        while (r.readBsonType() != BsonType.END_OF_DOCUMENT) {
            list.add(element.apply(r));
        }
        r.readEndArray();
        return list;
    }

    private static List<String> readStrings(BsonReader r) {
        return readList(r, BsonReader::readString);
    }

    private static <T> List<T> readItems(BsonReader r, Function<BsonReader, T> element) {
        List<T> items = null;
        r.readStartDocument();
        while (r.readBsonType() != BsonType.END_OF_DOCUMENT) {
            String name = r.readName();
            if (!ITEMS.equals(name)) {
                throw unknown("the list document", name);
            }
            items = readList(r, element);
        }
        r.readEndDocument();
        if (items == null) {
            throw new BsonSerializationException("no 'items' list");
        }
        return items;
    }

    private static UsersDocument readUsersDocument(BsonReader r) {
        UsersDocument doc = new UsersDocument();
        r.readStartDocument();
        while (r.readBsonType() != BsonType.END_OF_DOCUMENT) {
            String name = r.readName();
            switch (name) {
                case "users" -> doc.users = readList(r, BsonRawCodec::readUser);
                case "metadata" -> doc.metadata = readMetadata(r);
                default -> throw unknown("UsersDocument", name);
            }
        }
        r.readEndDocument();
        return doc;
    }

    private static User readUser(BsonReader r) {
        User u = new User();
        r.readStartDocument();
        while (r.readBsonType() != BsonType.END_OF_DOCUMENT) {
            String name = r.readName();
            switch (name) {
                case "id" -> u.id = r.readInt64();
                case "name" -> u.name = r.readString();
                case "email" -> u.email = r.readString();
                case "age" -> u.age = r.readInt32();
                case "is_active" -> u.is_active = r.readBoolean();
                case "tags" -> u.tags = readStrings(r);
                default -> throw unknown("User", name);
            }
        }
        r.readEndDocument();
        return u;
    }

    private static Metadata readMetadata(BsonReader r) {
        Metadata m = new Metadata();
        r.readStartDocument();
        while (r.readBsonType() != BsonType.END_OF_DOCUMENT) {
            String name = r.readName();
            switch (name) {
                case "version" -> m.version = r.readString();
                case "created_at" -> m.created_at = r.readString();
                case "total_count" -> m.total_count = r.readInt64();
                default -> throw unknown("Metadata", name);
            }
        }
        r.readEndDocument();
        return m;
    }

    private static NumericObject readNumeric(BsonReader r) {
        NumericObject n = new NumericObject();
        r.readStartDocument();
        while (r.readBsonType() != BsonType.END_OF_DOCUMENT) {
            String name = r.readName();
            switch (name) {
                case "id" -> n.id = r.readString();
                case "index" -> n.index = r.readInt64();
                case "numbr" -> n.numbr = r.readDouble();
                case "coordinates" -> n.coordinates = readList(r, BsonRawCodec::readCoordinate);
                default -> throw unknown("NumericObject", name);
            }
        }
        r.readEndDocument();
        return n;
    }

    private static Coordinate readCoordinate(BsonReader r) {
        Coordinate c = new Coordinate();
        r.readStartDocument();
        while (r.readBsonType() != BsonType.END_OF_DOCUMENT) {
            String name = r.readName();
            switch (name) {
                case "timestamp" -> c.timestamp = r.readInt64();
                case "latitude" -> c.latitude = r.readDouble();
                case "longitude" -> c.longitude = r.readDouble();
                default -> throw unknown("Coordinate", name);
            }
        }
        r.readEndDocument();
        return c;
    }

    private static DummyFriend readFriend(BsonReader r) {
        DummyFriend f = new DummyFriend();
        r.readStartDocument();
        while (r.readBsonType() != BsonType.END_OF_DOCUMENT) {
            String name = r.readName();
            switch (name) {
                case "id" -> f.id = r.readInt64();
                case "name" -> f.name = r.readString();
                default -> throw unknown("DummyFriend", name);
            }
        }
        r.readEndDocument();
        return f;
    }

    private static DummyObject readDummy(BsonReader r) {
        DummyObject d = new DummyObject();
        r.readStartDocument();
        while (r.readBsonType() != BsonType.END_OF_DOCUMENT) {
            String name = r.readName();
            switch (name) {
                case "_id" -> d._id = r.readString();
                case "index" -> d.index = r.readInt64();
                case "guid" -> d.guid = r.readString();
                case "isActive" -> d.isActive = r.readBoolean();
                case "balance" -> d.balance = r.readString();
                case "picture" -> d.picture = r.readString();
                case "age" -> d.age = r.readInt32();
                case "eyeColor" -> d.eyeColor = r.readString();
                case "name" -> d.name = r.readString();
                case "gender" -> d.gender = r.readString();
                case "company" -> d.company = r.readString();
                case "email" -> d.email = r.readString();
                case "phone" -> d.phone = r.readString();
                case "address" -> d.address = r.readString();
                case "about" -> d.about = r.readString();
                case "registered" -> d.registered = r.readString();
                case "latitude" -> d.latitude = r.readDouble();
                case "longitude" -> d.longitude = r.readDouble();
                case "tags" -> d.tags = readStrings(r);
                case "friends" -> d.friends = readList(r, BsonRawCodec::readFriend);
                case "greeting" -> d.greeting = r.readString();
                case "favoriteFruit" -> d.favoriteFruit = r.readString();
                default -> throw unknown("DummyObject", name);
            }
        }
        r.readEndDocument();
        return d;
    }
}
