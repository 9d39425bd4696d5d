package wirebench.formats.codec;

import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;

/**
 * CBOR through jackson-dataformat-cbor: structs as maps keyed by field name. With the module's
 * defaults, which this keeps: integers in their shortest form, every double as 8 bytes, and
 * objects as indefinite-length maps (Jackson streams a bean without counting its fields first);
 * arrays have definite lengths. ciborium writes definite maps and the narrowest exact float, so
 * the bytes differ from the vectors while the values are equal.
 */
final class CborCodec extends JacksonCodec {
    CborCodec() {
        super("cbor", Libraries.library("jackson-dataformat-cbor"), new CBORMapper(), false);
    }
}
