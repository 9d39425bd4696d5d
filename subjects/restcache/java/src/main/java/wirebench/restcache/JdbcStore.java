// What the two stores share: the HikariCP pool, running ../schema's DDL at start, and the
// statements, which differ between the dialects only in their SQL text (given by the subclass),
// in how an API key and a value are bound, and in how a duplicate key is reported.
package wirebench.restcache;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

abstract class JdbcStore implements Store {
    private static final String PING = "SELECT 1";
    private static final String ADD_API = "INSERT INTO api (key) VALUES (?)";
    private static final String HAS_API = "SELECT 1 FROM api WHERE key = ?";
    private static final String DELETE = "DELETE FROM cache WHERE api = ? AND key = ?";

    private final HikariDataSource pool;
    private final String listSql; // (api) -> key, value ordered by key in byte order
    private final String getSql; // (api, key) -> value
    private final String createSql; // (api, key, value)
    private final String updateSql; // (value, api, key)

    JdbcStore(HikariDataSource pool, String listSql, String getSql, String createSql, String updateSql) {
        this.pool = pool;
        this.listSql = listSql;
        this.getSql = getSql;
        this.createSql = createSql;
        this.updateSql = updateSql;
    }

    /** Binds an API key (canonical, lower case) as parameter {@code index}. */
    abstract void bindApi(PreparedStatement ps, int index, String api) throws SQLException;

    /** Binds an item's value as parameter {@code index} (as the dialect's column holds it). */
    abstract void bindValue(PreparedStatement ps, int index, String value) throws SQLException;

    /** Whether an INSERT failed because (api, key) is taken. */
    abstract boolean isDuplicate(SQLException e);

    /**
     * Prepares a database for a pool: one connection of {@code source} (so an unreachable database
     * fails here, with the driver's own message and without the pool's logging) runs the DDL of
     * the classpath resource {@code schema}; then the pool starts. HikariCP's defaults otherwise:
     * a fixed pool (minimumIdle = maximumPoolSize), 30 s to wait for a connection.
     */
    static HikariDataSource startPool(DataSource source, String schema, int size) throws StoreException {
        try (Connection c = source.getConnection(); Statement st = c.createStatement()) {
            for (String ddl : statements(schema)) {
                st.execute(ddl);
            }
        } catch (SQLException e) {
            throw new StoreException("cannot prepare the database", e);
        }
        HikariConfig config = new HikariConfig();
        config.setDataSource(source);
        config.setMaximumPoolSize(size);
        config.setPoolName("restcache");
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) { // HikariPool.PoolInitializationException
            throw new StoreException("cannot start the pool", e);
        }
    }

    /** The statements of a DDL resource: comments ("--" to the end of a line, which may hold
     *  semicolons) dropped, then split at semicolons. The files hold no string literals. */
    static List<String> statements(String resource) throws StoreException {
        String text;
        try (InputStream in = JdbcStore.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new StoreException("missing resource " + resource, null);
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new StoreException("cannot read " + resource, e);
        }
        StringBuilder code = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            int comment = line.indexOf("--");
            code.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
        }
        List<String> out = new ArrayList<>();
        for (String statement : code.toString().split(";")) {
            if (!statement.isBlank()) {
                out.add(statement.strip());
            }
        }
        return out;
    }

    @Override
    public void ping() throws StoreException {
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement(PING);
                ResultSet rs = ps.executeQuery()) {
            rs.next();
        } catch (SQLException e) {
            throw new StoreException("ping", e);
        }
    }

    @Override
    public void addApiKey(String api) throws StoreException {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(ADD_API)) {
            bindApi(ps, 1, api);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new StoreException("insert api key", e);
        }
    }

    @Override
    public boolean hasApiKey(String api) throws StoreException {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(HAS_API)) {
            bindApi(ps, 1, api);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        } catch (SQLException e) {
            throw new StoreException("look up api key", e);
        }
    }

    @Override
    public List<Item> list(String api) throws StoreException {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(listSql)) {
            bindApi(ps, 1, api);
            List<Item> items = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    items.add(new Item(rs.getString(1), rs.getString(2)));
                }
            }
            return items;
        } catch (SQLException e) {
            throw new StoreException("list items", e);
        }
    }

    @Override
    public String get(String api, String key) throws StoreException {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(getSql)) {
            bindApi(ps, 1, api);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new StoreException("get item", e);
        }
    }

    @Override
    public boolean create(String api, String key, String value) throws StoreException {
        // INSERT alone: the unique (api, key) index decides, so two racing creates get 201 and 409.
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(createSql)) {
            bindApi(ps, 1, api);
            ps.setString(2, key);
            bindValue(ps, 3, value);
            ps.executeUpdate();
            return true;
        } catch (SQLException e) {
            if (isDuplicate(e)) {
                return false;
            }
            throw new StoreException("insert item", e);
        }
    }

    @Override
    public boolean update(String api, String key, String value) throws StoreException {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(updateSql)) {
            bindValue(ps, 1, value);
            bindApi(ps, 2, api);
            ps.setString(3, key);
            return ps.executeUpdate() > 0;
        } catch (SQLException e) {
            throw new StoreException("update item", e);
        }
    }

    @Override
    public boolean delete(String api, String key) throws StoreException {
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(DELETE)) {
            bindApi(ps, 1, api);
            ps.setString(2, key);
            return ps.executeUpdate() > 0;
        } catch (SQLException e) {
            throw new StoreException("delete item", e);
        }
    }

    @Override
    public void close() {
        pool.close();
    }
}
