// The store the servlet uses: API keys and their items, and which database holds them (SQLite or
// PostgreSQL, chosen by the --store URL). API keys reach it validated and in lower case; item keys
// and values as well-formed text without U+0000 (the servlet's checks), so no value of client
// input makes a statement fail.
package wirebench.restcache;

import java.util.List;

public interface Store extends AutoCloseable {

    /** One key-value pair of an API key, as the API shows it ({"key": ..., "value": ...}). */
    record Item(String key, String value) {}

    /** Opens the store a --store URL names (sqlite:PATH or postgres://...), runs its DDL and
     *  starts a pool of {@code pool} connections. */
    static Store open(String url, int pool) throws StoreException {
        if (url.startsWith(SqliteStore.PREFIX)) {
            return SqliteStore.open(url.substring(SqliteStore.PREFIX.length()), pool);
        }
        return PostgresStore.open(PostgresStore.Target.parse(url), pool);
    }

    /** Answers once the database does. */
    void ping() throws StoreException;

    void addApiKey(String api) throws StoreException;

    boolean hasApiKey(String api) throws StoreException;

    /** The API key's items ordered by key, byte order of UTF-8. */
    List<Item> list(String api) throws StoreException;

    /** The item's value, or null when there is none. */
    String get(String api, String key) throws StoreException;

    /** Inserts the item; false when the key is already taken under this API key. */
    boolean create(String api, String key, String value) throws StoreException;

    /** Replaces the item's value; false when there is no such item. */
    boolean update(String api, String key, String value) throws StoreException;

    /** Deletes the item; false when there is no such item. */
    boolean delete(String api, String key) throws StoreException;

    /** Closes the pool. */
    @Override
    void close();
}
