package wirebench.formats.codec;

import java.util.List;

/**
 * {@code {"items": [...]}}: the document a list dataset becomes in formats whose top level must
 * be a record (BSON documents, XML elements).
 */
public final class Items<T> {
    public List<T> items;

    public Items() {}

    public Items(List<T> items) {
        this.items = items;
    }
}
