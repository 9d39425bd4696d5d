// The pure parts, without a container: flags, API key and key parsing, body values, the DDL files.
package wirebench.restcache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class UnitTest {
    @Test
    void options() throws Exception {
        Options o = Options.parse("--port", "8080", "--store", "sqlite:/tmp/x.db");
        assertEquals("127.0.0.1", o.host);
        assertEquals(8080, o.port);
        assertEquals(16, o.pool);
        o = Options.parse("--host=0.0.0.0", "--port=0", "--store=postgres://u:pw@h:5433/db", "--pool=4");
        assertEquals("0.0.0.0", o.host);
        assertEquals(4, o.pool);
        assertEquals("postgres://u:***@h:5433/db", o.storeForDisplay());
        assertThrows(Options.UsageException.class, () -> Options.parse("--port", "1", "--store", "redis://x"));
        assertTrue(Options.wantsHelp("--port", "1", "-h"));
    }

    @Test
    void postgresUrls() {
        PostgresStore.Target t = PostgresStore.Target.parse("postgres://postgres@127.0.0.1:55433/postgres");
        assertEquals("jdbc:postgresql://127.0.0.1:55433/postgres", t.jdbcUrl());
        assertEquals("postgres", t.user());
        assertEquals(null, t.password());
        t = PostgresStore.Target.parse("postgresql://u:p%40ss@db.local/app?sslmode=disable");
        assertEquals("jdbc:postgresql://db.local/app?sslmode=disable", t.jdbcUrl());
        assertEquals("p@ss", t.password());
    }

    @Test
    void apiKeys() throws Exception {
        String k = "f0778bae-2902-4ff6-93fa-9776403ecb0f";
        assertEquals(k, RestCacheServlet.apiKey(k));
        assertEquals(k, RestCacheServlet.apiKey(k.toUpperCase()));
        for (String bad : new String[] {"", "f0778bae29024ff693fa9776403ecb0f", "{" + k + "}", k + "0",
                "f0778bae-2902-4ff6-93fa-9776403ecb0g", "f0778bae+2902-4ff6-93fa-9776403ecb0f",
                "f0778bae-2902-4ff6-93fa-9776403ecb0%", "f0778bae-2902-4ff6-93fa-9776403ecb\uFF10f"}) {
            assertThrows(Exception.class, () -> RestCacheServlet.apiKey(bad), bad);
        }
    }

    @Test
    void keys() throws Exception {
        assertEquals("a b;c+%", RestCacheServlet.key("a%20b;c+%25"));
        assertEquals("ж", RestCacheServlet.key("%D0%B6"));
        assertEquals("ж", RestCacheServlet.key("ж"));
        assertEquals("k".repeat(1024), RestCacheServlet.key("k".repeat(1024)));
        for (String bad : new String[] {"k".repeat(1025), "a%00b", "a%2Fb", "%FF", "%C0%AF", "%ED%A0%80", "%", "%4", "%zz", "%D0"}) {
            assertThrows(Exception.class, () -> RestCacheServlet.key(bad), bad);
        }
        assertArrayEquals(new byte[] {'a', (byte) 0xd0, (byte) 0xb6}, RestCacheServlet.percentDecode("a%d0%B6"));
    }

    @Test
    void values() throws Exception {
        assertEquals("v", RestCacheServlet.value("{\"value\":\"v\",\"x\":1}".getBytes(StandardCharsets.UTF_8)));
        assertEquals("😀", RestCacheServlet.value("{\"value\":\"\\ud83d\\ude00\"}".getBytes(StandardCharsets.UTF_8)));
        for (String bad : new String[] {"", "null", "{}", "[]", "{\"value\":null}", "{\"value\":1}", "{\"value\":\"a\"}x",
                "{\"value\":\"a\\u0000\"}", "{\"value\":\"\\ud800\"}", "{\"value\":\"\\udc00\"}"}) {
            assertThrows(Exception.class, () -> RestCacheServlet.value(bad.getBytes(StandardCharsets.UTF_8)), bad);
        }
        String deep100 = "{\"value\":\"[[{\",\"x\":" + "[".repeat(99) + "]".repeat(99) + "}";
        assertEquals("[[{", RestCacheServlet.value(deep100.getBytes(StandardCharsets.UTF_8)));
        String deep101 = "{\"value\":\"v\",\"x\":" + "[".repeat(100) + "]".repeat(100) + "}";
        String longNumber = "{\"value\":\"v\",\"n\":" + "1".repeat(100_000) + "}";
        assertEquals("v", RestCacheServlet.value(longNumber.getBytes(StandardCharsets.UTF_8)));
        for (String bad : new String[] {deep101, "{\"value\":\"v\",\"x\":\"\\ud800\"}", "\uFEFF{\"value\":\"v\"}"}) {
            assertThrows(Exception.class, () -> RestCacheServlet.value(bad.getBytes(StandardCharsets.UTF_8)), bad);
        }
        byte[] utf16 = "{\"value\":\"v\"}".getBytes(StandardCharsets.UTF_16LE);
        assertThrows(Exception.class, () -> RestCacheServlet.value(utf16), "UTF-16LE");
        assertTrue(RestCacheServlet.storable("a😀b"));
        assertFalse(RestCacheServlet.storable("a\uD83D"));
    }

    @Test
    void ddlFilesSplitIntoTheirStatements() throws Exception {
        assertEquals(2, JdbcStore.statements("schema/sqlite.sql").size());
        assertEquals(4, JdbcStore.statements("schema/postgres.sql").size());
        for (String s : JdbcStore.statements("schema/postgres.sql")) {
            assertTrue(s.startsWith("CREATE "), s);
        }
    }
}
