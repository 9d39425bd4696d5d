/**
 * The codecs: one class per format behind the small {@link wirebench.formats.codec.Codec}
 * interface, and the one table that registers them ({@link wirebench.formats.codec.Codecs#ALL}).
 *
 * <p>Adding a format: write {@code <Name>Codec.java} implementing {@code Codec}, add one line to
 * {@code Codecs.ALL}. The CLI, the harness and every codec test pick it up from the table.
 */
package wirebench.formats.codec;
