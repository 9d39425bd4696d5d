package wirebench.formats.codec;

import java.util.List;
import java.util.Optional;

/** The registered codecs. */
public final class Codecs {
    private Codecs() {}

    /** Every format, in the order the harness measures them. */
    public static final List<Codec> ALL = List.of(
            new JsonCodec(),
            new XmlCodec(),
            new ProtobufCodec(),
            new MsgpackCodec(),
            new AvroCodec(),
            new BsonCodec(),
            new BsonRawCodec(),
            new CborCodec());

    /** Looks a codec up by its id. */
    public static Optional<Codec> byId(String id) {
        return ALL.stream().filter(codec -> codec.id().equals(id)).findFirst();
    }
}
