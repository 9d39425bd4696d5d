// The SQLite store (org.xerial:sqlite-jdbc): the file of a sqlite:PATH URL, schema/sqlite.sql, and
// the dialect: value in a TEXT column, ORDER BY key (BINARY collation: byte order of UTF-8), and
// a taken (api, key) reported as SQLITE_CONSTRAINT_PRIMARYKEY.
package wirebench.restcache;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

final class SqliteStore extends JdbcStore {
    static final String PREFIX = "sqlite:";

    private SqliteStore(com.zaxxer.hikari.HikariDataSource pool) {
        super(pool,
                "SELECT key, value FROM cache WHERE api = ? ORDER BY key",
                "SELECT value FROM cache WHERE api = ? AND key = ?",
                "INSERT INTO cache (api, key, value) VALUES (?, ?, ?)",
                "UPDATE cache SET value = ? WHERE api = ? AND key = ?");
    }

    /** Opens (creating if missing) the database file at {@code path}. */
    static SqliteStore open(String path, int pool) throws StoreException {
        // SQLiteDataSource applies its config to every connection it opens, so each pooled
        // connection has these pragmas (journal_mode is the file's, the others per connection).
        SQLiteConfig config = new SQLiteConfig();
        config.setJournalMode(SQLiteConfig.JournalMode.WAL);
        config.setSynchronous(SQLiteConfig.SynchronousMode.NORMAL);
        config.setBusyTimeout(5000);
        SQLiteDataSource source = new SQLiteDataSource(config);
        source.setUrl("jdbc:sqlite:" + path);
        return new SqliteStore(startPool(source, "schema/sqlite.sql", pool));
    }

    @Override
    void bindApi(PreparedStatement ps, int index, String api) throws SQLException {
        ps.setString(index, api);
    }

    @Override
    void bindValue(PreparedStatement ps, int index, String value) throws SQLException {
        ps.setString(index, value);
    }

    @Override
    boolean isDuplicate(SQLException e) {
        if (e instanceof SQLiteException se) {
            SQLiteErrorCode code = se.getResultCode();
            return code == SQLiteErrorCode.SQLITE_CONSTRAINT_PRIMARYKEY
                    || code == SQLiteErrorCode.SQLITE_CONSTRAINT_UNIQUE;
        }
        return false;
    }
}
