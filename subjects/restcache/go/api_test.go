package main

// Tests of the whole HTTP contract through httptest, against SQLite in a temp dir and, when
// RESTCACHE_TEST_POSTGRES names a reachable server, against PostgreSQL too.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// forEachStore runs f against a fresh SQLite store and, if configured, the PostgreSQL store.
func forEachStore(t *testing.T, f func(t *testing.T, s Store)) {
	t.Run("sqlite", func(t *testing.T) {
		s, err := openStore(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "cache.db"), 4)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		f(t, s)
	})
	t.Run("postgres", func(t *testing.T) {
		u := os.Getenv("RESTCACHE_TEST_POSTGRES")
		if u == "" {
			t.Skip("RESTCACHE_TEST_POSTGRES is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres): PostgreSQL part skipped")
		}
		s, err := openStore(context.Background(), u, 4)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		f(t, s)
	})
}

// syncBuffer collects the service's log lines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serve starts the service over s; the returned buffer holds what it logged.
func serve(t *testing.T, s Store) (*httptest.Server, *syncBuffer) {
	logs := &syncBuffer{}
	srv := httptest.NewServer(newHandler(s, log.New(logs, "", 0)))
	t.Cleanup(srv.Close)
	return srv, logs
}

// do sends one request; path is sent as written (already percent-encoded).
func do(t *testing.T, srv *httptest.Server, method, path, body string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.URL+path, rd)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp, got
}

// checkShape checks what every answer of a status must look like: 204 is empty, every other
// answer is JSON with Content-Type application/json, and an error is {"error": "<message>"}.
func checkShape(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	if resp.StatusCode == http.StatusNoContent {
		if len(body) != 0 || resp.Header.Get("Content-Type") != "" {
			t.Errorf("204 with body %q, Content-Type %q", body, resp.Header.Get("Content-Type"))
		}
		return
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	if !json.Valid(body) {
		t.Errorf("body is not JSON: %.200q", body)
	}
	if resp.StatusCode >= 400 {
		var e map[string]string
		if err := json.Unmarshal(body, &e); err != nil || len(e) != 1 || e["error"] == "" {
			t.Errorf(`error body %q, want {"error": "<message>"}`, body)
		}
	}
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// issueKey asks the service for a new API key and checks its form.
func issueKey(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	resp, body := do(t, srv, "GET", "/api/", "")
	checkShape(t, resp, body)
	var got map[string]string
	if resp.StatusCode != 200 || json.Unmarshal(body, &got) != nil || len(got) != 1 || !uuidV4.MatchString(got["apiKey"]) {
		t.Fatalf("GET /api/ = %d %s, want 200 {\"apiKey\": <lower-case v4 UUID>}", resp.StatusCode, body)
	}
	return got["apiKey"]
}

// step is one request of the contract table; the table runs in order against one service.
type step struct {
	name   string
	method string
	path   string // percent-encoded; {api}, {API} (upper case), {other}, {meta} and {unknown} are filled in
	body   string
	status int
	alt    int    // another status the contract allows, if any
	want   any    // if set, the body decoded into this type must equal it
	raw    string // if set, the exact body
}

// item is the path of an item of the API key placeholder api.
func item(api, key string) string { return "/api/{" + api + "}/" + url.PathEscape(key) }

func value(v string) string {
	b, _ := json.Marshal(map[string]string{"value": v})
	return string(b)
}

func contractSteps() []step {
	const unknownKey = "/api/{unknown}/k"
	long := strings.Repeat("k", 1024)
	wide := strings.Repeat("é", 512) // 1024 bytes, 512 characters
	big := strings.Repeat("b", maxBody-len(`{"value":""}`))
	tooBig := big + "b"
	meta := []string{
		"'; DROP TABLE cache; --", `"; DROP TABLE api; --`, "%", "_", "%_%", "it's", `"quoted"`,
		`back\slash`, "naïve ключ 鍵 🗝", "a b+c&d=e?f#g", "NULL", "*", ".x", "<i>&amp;", "Z", "a", "~",
	}
	metaItems := make([]Item, len(meta))
	for i, k := range meta {
		metaItems[i] = Item{Key: k, Value: "value of " + k}
	}
	sort.Slice(metaItems, func(i, j int) bool { return metaItems[i].Key < metaItems[j].Key })

	steps := []step{
		{name: "health", method: "GET", path: "/health", status: 200},
		{name: "empty list", method: "GET", path: "/api/{api}", status: 200, raw: "[]"},
		{name: "create", method: "POST", path: item("api", "k"), body: value("v"), status: 201, want: Item{"k", "v"}},
		{name: "create again", method: "POST", path: item("api", "k"), body: value("w"), status: 409},
		{name: "read", method: "GET", path: item("api", "k"), status: 200, want: Item{"k", "v"}},
		{name: "update", method: "PUT", path: item("api", "k"), body: value("v2"), status: 200, want: Item{"k", "v2"}},
		{name: "read updated", method: "GET", path: item("api", "k"), status: 200, raw: `{"key":"k","value":"v2"}`},
		{name: "update same value", method: "PUT", path: item("api", "k"), body: value("v2"), status: 200, want: Item{"k", "v2"}},
		{name: "update missing", method: "PUT", path: item("api", "missing"), body: value("x"), status: 404},
		{name: "read missing", method: "GET", path: item("api", "missing"), status: 404},
		{name: "delete missing", method: "DELETE", path: item("api", "missing"), status: 404},
		{name: "list", method: "GET", path: "/api/{api}", status: 200, want: []Item{{"k", "v2"}}},

		// An API key in upper case is the same key.
		{name: "upper-case api key reads", method: "GET", path: item("API", "k"), status: 200, want: Item{"k", "v2"}},
		{name: "upper-case api key lists", method: "GET", path: "/api/{API}", status: 200, want: []Item{{"k", "v2"}}},
		{name: "upper-case api key conflicts", method: "POST", path: item("API", "k"), body: value("x"), status: 409},

		// Items are private to their API key.
		{name: "other reads", method: "GET", path: item("other", "k"), status: 404},
		{name: "other updates", method: "PUT", path: item("other", "k"), body: value("x"), status: 404},
		{name: "other deletes", method: "DELETE", path: item("other", "k"), status: 404},
		{name: "other lists", method: "GET", path: "/api/{other}", status: 200, raw: "[]"},
		{name: "other creates same key", method: "POST", path: item("other", "k"), body: value("o"), status: 201, want: Item{"k", "o"}},
		{name: "other lists own", method: "GET", path: "/api/{other}", status: 200, want: []Item{{"k", "o"}}},
		{name: "first keeps its value", method: "GET", path: item("api", "k"), status: 200, want: Item{"k", "v2"}},

		// 1. A malformed API key is 400, whatever else is wrong.
		{name: "malformed list", method: "GET", path: "/api/not-a-uuid", status: 400},
		{name: "malformed no dashes", method: "GET", path: "/api/0123456789abcdef0123456789abcdef", status: 400},
		{name: "malformed braces", method: "GET", path: "/api/%7B01234567-89ab-cdef-0123-456789abcdef%7D", status: 400},
		{name: "malformed non-hex", method: "GET", path: "/api/0123456g-89ab-cdef-0123-456789abcdef/k", status: 400},
		{name: "malformed dash moved", method: "GET", path: "/api/0123456-789ab-cdef-0123-456789abcdef/k", status: 400},
		{name: "malformed 37 chars", method: "GET", path: "/api/01234567-89ab-cdef-0123-456789abcdef0/k", status: 400},
		{name: "malformed put", method: "PUT", path: "/api/xyz/k", body: value("x"), status: 400},
		{name: "malformed delete", method: "DELETE", path: "/api/xyz/k", status: 400},
		{name: "malformed before body", method: "POST", path: "/api/xyz/k", body: "not json", status: 400},
		{name: "malformed before size", method: "POST", path: "/api/xyz/k", body: `{"value":"` + tooBig + `"}`, status: 400},

		// 2. An API key never issued is 404, before the body is looked at.
		{name: "unknown list", method: "GET", path: "/api/{unknown}", status: 404},
		{name: "unknown read", method: "GET", path: unknownKey, status: 404},
		{name: "unknown create", method: "POST", path: unknownKey, body: value("x"), status: 404},
		{name: "unknown update", method: "PUT", path: unknownKey, body: value("x"), status: 404},
		{name: "unknown delete", method: "DELETE", path: unknownKey, status: 404},
		{name: "unknown before bad body", method: "POST", path: unknownKey, body: "not json", status: 404},
		{name: "unknown before size", method: "PUT", path: unknownKey, body: `{"value":"` + tooBig + `"}`, status: 404},

		// 3. The body, before the item: 400 for anything but an object with a string value, 413 over 1 MiB.
		{name: "bad body before 409", method: "POST", path: item("api", "k"), body: "not json", status: 400},
		{name: "bad body before put 404", method: "PUT", path: item("api", "missing"), body: `{}`, status: 400},
		{name: "too large before 409", method: "POST", path: item("api", "k"), body: `{"value":"` + tooBig + `"}`, status: 413},
		{name: "too large before put 404", method: "PUT", path: item("api", "missing"), body: `{"value":"` + tooBig + `"}`, status: 413},
		{name: "too large not json", method: "POST", path: item("api", "big"), body: strings.Repeat("x", maxBody+1), status: 413},
		{name: "exactly 1 MiB", method: "POST", path: item("api", "big"), body: `{"value":"` + big + `"}`, status: 201, want: Item{"big", big}},
		{name: "exactly 1 MiB read", method: "GET", path: item("api", "big"), status: 200, want: Item{"big", big}},
		{name: "1 MiB update", method: "PUT", path: item("api", "big"), body: `{"value":"` + big + `"}`, status: 200, want: Item{"big", big}},
	}
	for _, b := range []string{
		"", "not json", "null", "[]", `"v"`, `{}`, `{"value":null}`, `{"value":1}`, `{"value":true}`,
		`{"value":{}}`, `{"value":["v"]}`, `{"Value":"v"}`, `{"VALUE":"v"}`, `{"value":"v"} trailing`,
		`{"value":"v"`, `{"value":"nul \u0000 inside"}`, "{\"value\":\"\xff\"}",
	} {
		steps = append(steps,
			step{name: "bad body " + b, method: "POST", path: item("api", "b"), body: b, status: 400},
			step{name: "bad body on update " + b, method: "PUT", path: item("api", "k"), body: b, status: 400})
	}
	steps = append(steps, []step{
		{name: "bad bodies stored nothing", method: "GET", path: item("api", "b"), status: 404},
		{name: "bad bodies changed nothing", method: "GET", path: item("api", "k"), status: 200, want: Item{"k", "v2"}},
		{name: "empty string value", method: "POST", path: item("api", "empty"), body: value(""), status: 201, want: Item{"empty", ""}},
		{name: "other members ignored", method: "POST", path: item("api", "extra"), body: `{"other":1,"value":"x"}`, status: 201, want: Item{"extra", "x"}},
		{name: "escaped value", method: "POST", path: item("api", "esc"), body: `{"value":"tab\there \"q\" \u00e9 \ud83d\udddd"}`, status: 201, want: Item{"esc", "tab\there \"q\" é 🗝"}},
		{name: "no HTML escaping", method: "POST", path: item("api", "<&>"), body: value("<&>"), status: 201, raw: `{"key":"<&>","value":"<&>"}`},

		// Keys: 1 to 1024 bytes of UTF-8, no U+0000.
		{name: "1024-byte key", method: "POST", path: item("api", long), body: value("l"), status: 201, want: Item{long, "l"}},
		{name: "1024-byte key read", method: "GET", path: item("api", long), status: 200, want: Item{long, "l"}},
		{name: "1025-byte key", method: "POST", path: item("api", long+"k"), body: value("l"), status: 400},
		{name: "1025-byte key read", method: "GET", path: item("api", long+"k"), status: 400},
		{name: "1025-byte key update", method: "PUT", path: item("api", long+"k"), body: value("l"), status: 400},
		{name: "1025-byte key delete", method: "DELETE", path: item("api", long+"k"), status: 400},
		{name: "1024 bytes in 512 characters", method: "POST", path: item("api", wide), body: value("w"), status: 201, want: Item{wide, "w"}},
		{name: "1025 bytes in 513 characters", method: "POST", path: item("api", wide+"x"), body: value("w"), status: 400},
		{name: "NUL in key", method: "POST", path: "/api/{api}/a%00b", body: value("x"), status: 400},
		{name: "NUL key read", method: "GET", path: "/api/{api}/%00", status: 400},
		{name: "key not UTF-8", method: "POST", path: "/api/{api}/%FF%FE", body: value("x"), status: 400},
		{name: "key truncated UTF-8", method: "GET", path: "/api/{api}/%C3", status: 400},
		{name: "encoded slash", method: "POST", path: "/api/{api}/a%2Fb", body: value("x"), status: 404, alt: 400},
		{name: "encoded slash not stored", method: "GET", path: "/api/{api}/a", status: 404},

		// Deletion.
		{name: "delete", method: "DELETE", path: item("api", "k"), status: 204},
		{name: "delete again", method: "DELETE", path: item("api", "k"), status: 404},
		{name: "read deleted", method: "GET", path: item("api", "k"), status: 404},
		{name: "recreate deleted", method: "POST", path: item("api", "k"), body: value("again"), status: 201, want: Item{"k", "again"}},
		{name: "other's item survives", method: "GET", path: item("other", "k"), status: 200, want: Item{"k", "o"}},

		// Unknown paths are 404, known paths with another method 405.
		{name: "root", method: "GET", path: "/", status: 404},
		{name: "api without slash", method: "GET", path: "/api", status: 404},
		{name: "unknown path", method: "GET", path: "/nope", status: 404},
		{name: "path case", method: "GET", path: "/API/", status: 404},
		{name: "empty key", method: "GET", path: "/api/{api}/", status: 404},
		{name: "extra segment", method: "GET", path: item("api", "k") + "/x", status: 404},
		{name: "post /api/", method: "POST", path: "/api/", status: 405},
		{name: "delete /api/", method: "DELETE", path: "/api/", status: 405},
		{name: "post list", method: "POST", path: "/api/{api}", body: value("x"), status: 405},
		{name: "delete list", method: "DELETE", path: "/api/{api}", status: 405},
		{name: "patch item", method: "PATCH", path: item("api", "k"), body: value("x"), status: 405},
		{name: "options item", method: "OPTIONS", path: item("api", "k"), status: 405},
		{name: "post health", method: "POST", path: "/health", status: 405},
	}...)

	// SQL metacharacters and non-ASCII are data: stored verbatim, listed in byte order.
	for _, it := range metaItems {
		steps = append(steps,
			step{name: "meta create " + it.Key, method: "POST", path: item("meta", it.Key), body: value(it.Value), status: 201, want: it},
			step{name: "meta read " + it.Key, method: "GET", path: item("meta", it.Key), status: 200, want: it})
	}
	steps = append(steps,
		step{name: "meta list in byte order", method: "GET", path: "/api/{meta}", status: 200, want: metaItems},
		step{name: "tables survive", method: "GET", path: "/api/{other}", status: 200, want: []Item{{"k", "o"}}})
	return steps
}

func TestContract(t *testing.T) {
	steps := contractSteps()
	forEachStore(t, func(t *testing.T, s Store) {
		srv, logs := serve(t, s)
		api, other, meta := issueKey(t, srv), issueKey(t, srv), issueKey(t, srv)
		if api == other {
			t.Fatalf("two GET /api/ issued the same key %s", api)
		}
		fill := strings.NewReplacer("{api}", api, "{API}", strings.ToUpper(api), "{other}", other,
			"{meta}", meta, "{unknown}", newUUID())
		for _, st := range steps {
			path := fill.Replace(st.path)
			resp, body := do(t, srv, st.method, path, st.body)
			if resp.StatusCode != st.status && (st.alt == 0 || resp.StatusCode != st.alt) {
				t.Errorf("%s: %s %.120s = %d %.200s, want %d", st.name, st.method, path, resp.StatusCode, body, st.status)
				continue
			}
			checkShape(t, resp, body)
			if allow := resp.Header.Get("Allow"); resp.StatusCode == 405 && (allow == "" || strings.Contains(allow, "OPTIONS")) {
				t.Errorf("%s: 405 with Allow %q, want the route's methods", st.name, allow)
			}
			if st.raw != "" && string(body) != st.raw {
				t.Errorf("%s: body %.200s, want %s", st.name, body, st.raw)
			}
			if st.want != nil {
				got := reflect.New(reflect.TypeOf(st.want))
				if err := json.Unmarshal(body, got.Interface()); err != nil || !reflect.DeepEqual(got.Elem().Interface(), st.want) {
					t.Errorf("%s: body %.300s, want %.300v", st.name, body, st.want)
				}
			}
		}
		if l := logs.String(); l != "" {
			t.Errorf("client input made the service log:\n%s", l)
		}
	})
}

// TestCreateRace: concurrent creates of one key give one 201 and 409s, never a 500.
func TestCreateRace(t *testing.T) {
	forEachStore(t, func(t *testing.T, s Store) {
		srv, logs := serve(t, s)
		api := issueKey(t, srv)
		const n = 16
		codes := make(chan int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest("POST", srv.URL+"/api/"+api+"/race", strings.NewReader(value(string(rune('a'+i)))))
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				codes <- resp.StatusCode
			}()
		}
		wg.Wait()
		close(codes)
		count := map[int]int{}
		for c := range codes {
			count[c]++
		}
		if count[201] != 1 || count[409] != n-1 {
			t.Errorf("statuses %v, want one 201 and %d 409", count, n-1)
		}
		if l := logs.String(); l != "" {
			t.Errorf("logged:\n%s", l)
		}
	})
}

// failingStore fails every operation, as an unreachable database does.
type failingStore struct{}

var errDown = errors.New("connection refused")

func (failingStore) Ping(context.Context) error                           { return errDown }
func (failingStore) AddAPIKey(context.Context, string) error              { return errDown }
func (failingStore) HasAPIKey(context.Context, string) (bool, error)      { return false, errDown }
func (failingStore) List(context.Context, string) ([]Item, error)         { return nil, errDown }
func (failingStore) Get(context.Context, string, string) (string, error)  { return "", errDown }
func (failingStore) Create(context.Context, string, string, string) error { return errDown }
func (failingStore) Update(context.Context, string, string, string) error { return errDown }
func (failingStore) Delete(context.Context, string, string) error         { return errDown }
func (failingStore) Close() error                                         { return nil }

// TestStoreErrors: a failing store is 500 with a JSON error and one log line per request; the
// checks that need no store still answer 400; /health is 503.
func TestStoreErrors(t *testing.T) {
	srv, logs := serve(t, failingStore{})
	api := newUUID()
	for _, st := range []step{
		{method: "GET", path: "/health", status: 503},
		{method: "GET", path: "/api/", status: 500},
		{method: "GET", path: "/api/" + api, status: 500},
		{method: "GET", path: "/api/" + api + "/k", status: 500},
		{method: "POST", path: "/api/" + api + "/k", body: value("v"), status: 500},
		{method: "PUT", path: "/api/" + api + "/k", body: value("v"), status: 500},
		{method: "DELETE", path: "/api/" + api + "/k", status: 500},
		{method: "GET", path: "/api/nope/k", status: 400},
		{method: "GET", path: "/api/" + api + "/%00", status: 400},
	} {
		resp, body := do(t, srv, st.method, st.path, st.body)
		if resp.StatusCode != st.status {
			t.Errorf("%s %s = %d %s, want %d", st.method, st.path, resp.StatusCode, body, st.status)
		}
		checkShape(t, resp, body)
	}
	lines := strings.Split(strings.TrimSuffix(logs.String(), "\n"), "\n")
	if len(lines) != 7 {
		t.Errorf("want 7 log lines (one per failed request), got %d:\n%s", len(lines), logs.String())
	}
	for _, l := range lines {
		if !strings.Contains(l, errDown.Error()) {
			t.Errorf("log line %q does not name the store's error", l)
		}
	}
}

// TestSchemaFiles: the DDL in store.go equals the statements of ../schema/*.sql.
func TestSchemaFiles(t *testing.T) {
	for file, ddl := range map[string]string{"sqlite.sql": sqliteSchema, "postgres.sql": postgresSchema} {
		b, err := os.ReadFile(filepath.Join("..", "schema", file))
		if err != nil {
			t.Fatal(err)
		}
		var stmts []string
		for _, line := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(line), "--") {
				stmts = append(stmts, line)
			}
		}
		if got := strings.TrimSpace(strings.Join(stmts, "\n")); got != ddl {
			t.Errorf("../schema/%s differs from store.go:\n%s\n---\n%s", file, got, ddl)
		}
	}
}

func TestNormalizeAPIKey(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"01234567-89ab-cdef-0123-456789abcdef", "01234567-89ab-cdef-0123-456789abcdef"},
		{"01234567-89AB-CDEF-0123-456789ABCDEF", "01234567-89ab-cdef-0123-456789abcdef"},
		{"01234567-89ab-cdef-0123-456789abcdeg", ""},
		{"0123456789ab-cdef-0123-456789abcdef-", ""},
		{"01234567-89ab-cdef-0123-456789abcde", ""},
		{"", ""},
	} {
		got, ok := normalizeAPIKey(c.in)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("normalizeAPIKey(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}

// TestSQLitePragmas: every pooled SQLite connection has WAL, synchronous=NORMAL and busy_timeout.
func TestSQLitePragmas(t *testing.T) {
	s, err := openStore(context.Background(), "sqlite:"+filepath.Join(t.TempDir(), "cache.db"), 3)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	db := s.(*sqliteStore).db
	ctx := context.Background()
	for i := range 3 { // hold each connection so that the next is a new one
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		var journal string
		var sync, busy int
		if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&journal); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&sync); err != nil {
			t.Fatal(err)
		}
		if err := conn.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if journal != "wal" || sync != 1 || busy != 5000 {
			t.Errorf("connection %d: journal_mode=%s synchronous=%d busy_timeout=%d, want wal 1 5000", i, journal, sync, busy)
		}
	}
	if n := db.Stats().OpenConnections; n != 3 {
		t.Errorf("%d open connections, want 3", n)
	}
}

func TestWellFormed(t *testing.T) {
	deep := func(n int) []byte {
		return []byte(`{"value":"[[[{","x":` + strings.Repeat("[", n-1) + strings.Repeat("]", n-1) + `}`)
	}
	good := [][]byte{
		deep(maxDepth),
		[]byte(`{"value":"a\"[[[\\","x":[]}`),
		[]byte(`{"value":"\ud83e\udd80 \u00e9 \\ud800"}`),
	}
	for _, b := range good {
		if !wellFormed(b) {
			t.Errorf("refused %s", b)
		}
	}
	bad := [][]byte{
		deep(maxDepth + 1),
		[]byte(`{"v":"\ud800"}`),
		[]byte(`{"v":"\udc00x"}`),
		[]byte(`{"v":"\ud800\ud800"}`),
		[]byte(`{"v":"\uD800\u0041"}`),
	}
	for _, b := range bad {
		if wellFormed(b) {
			t.Errorf("accepted %.60s", b)
		}
	}
}
