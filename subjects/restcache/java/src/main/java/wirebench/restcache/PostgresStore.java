// The PostgreSQL store (org.postgresql:postgresql): a postgres://user@host:port/db URL turned into
// a JDBC one, schema/postgres.sql, and the dialect: api as uuid, the value inside a jsonb document
// {"value": ...} built with Jackson and cast with ?::jsonb, read back with doc->>'value', the list
// ordered by key COLLATE "C" (byte order whatever the database's locale), and a taken (api, key)
// reported as SQLState 23505 (unique_violation on cache_api_key).
package wirebench.restcache;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URISyntaxException;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import org.postgresql.ds.PGSimpleDataSource;

final class PostgresStore extends JdbcStore {
    private static final ObjectMapper JSON = new ObjectMapper();

    private PostgresStore(com.zaxxer.hikari.HikariDataSource pool) {
        super(pool,
                "SELECT key, doc->>'value' FROM cache WHERE api = ? ORDER BY key COLLATE \"C\"",
                "SELECT doc->>'value' FROM cache WHERE api = ? AND key = ?",
                "INSERT INTO cache (api, key, doc) VALUES (?, ?, ?::jsonb)",
                "UPDATE cache SET doc = ?::jsonb WHERE api = ? AND key = ?");
    }

    /** Where a postgres:// (or postgresql://) URL points: the JDBC URL and the credentials. */
    record Target(String jdbcUrl, String user, String password) {
        /** Parses postgres://[user[:password]@]host[:port][/db][?param=value&...]; the query's
         *  parameters (sslmode, ...) go to the driver as they are. */
        static Target parse(String url) {
            if (!url.startsWith("postgres://") && !url.startsWith("postgresql://")) {
                throw new IllegalArgumentException(
                        "unknown store '" + url + "' (want sqlite:PATH or postgres://user@host:port/db)");
            }
            URI uri;
            try {
                uri = new URI(url);
            } catch (URISyntaxException e) {
                throw new IllegalArgumentException("bad PostgreSQL URL '" + url + "': " + e.getReason());
            }
            if (uri.getHost() == null) {
                throw new IllegalArgumentException("bad PostgreSQL URL '" + url + "': no host");
            }
            String db = uri.getRawPath() == null || uri.getRawPath().length() <= 1 ? "" : uri.getRawPath().substring(1);
            StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(uri.getHost());
            if (uri.getPort() >= 0) {
                jdbc.append(':').append(uri.getPort());
            }
            jdbc.append('/').append(db);
            if (uri.getRawQuery() != null) {
                jdbc.append('?').append(uri.getRawQuery());
            }
            String user = null;
            String password = null;
            if (uri.getUserInfo() != null) {
                String info = uri.getUserInfo();
                int colon = info.indexOf(':');
                user = colon < 0 ? info : info.substring(0, colon);
                password = colon < 0 ? null : info.substring(colon + 1);
            }
            return new Target(jdbc.toString(), user, password);
        }
    }

    static PostgresStore open(Target target, int pool) throws StoreException {
        PGSimpleDataSource source = new PGSimpleDataSource();
        try {
            source.setURL(target.jdbcUrl());
        } catch (IllegalArgumentException e) {
            throw new StoreException("bad JDBC URL " + target.jdbcUrl(), e);
        }
        if (target.user() != null) {
            source.setUser(target.user());
        }
        if (target.password() != null) {
            source.setPassword(target.password());
        }
        source.setApplicationName("restcache-java");
        return new PostgresStore(startPool(source, "schema/postgres.sql", pool));
    }

    @Override
    void bindApi(PreparedStatement ps, int index, String api) throws SQLException {
        ps.setObject(index, UUID.fromString(api));
    }

    @Override
    void bindValue(PreparedStatement ps, int index, String value) throws SQLException {
        try {
            ps.setString(index, JSON.writeValueAsString(Map.of("value", value)));
        } catch (JsonProcessingException e) { // a Map of one String: cannot happen
            throw new SQLException("cannot build the JSON document", e);
        }
    }

    @Override
    boolean isDuplicate(SQLException e) {
        return "23505".equals(e.getSQLState());
    }
}
