/**
 * The datasets: their types and the seeded generator, both as {@code schema/datasets.json}
 * describes them.
 *
 * <p>The types are plain classes with public fields named exactly as in {@code datasets.json}
 * ({@code is_active}, {@code _id}, {@code eyeColor}): every library here (Jackson, Avro reflect)
 * binds them by those names, so no format needs an annotation of its own on them. A codec that
 * needs another shape (a root element, a wrapper document, generated protobuf messages) builds
 * it in its own class.
 */
package wirebench.formats.dataset;
