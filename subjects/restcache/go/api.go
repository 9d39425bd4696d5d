package main

// The HTTP contract of ../openapi.yaml: routes, the checks in the contract's order (API key
// syntax → API key known → body → item), JSON answers and the mapping of store outcomes to
// status codes.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/julienschmidt/httprouter"
)

const (
	maxBody   = 1 << 20 // bytes; a larger body is 413
	maxKeyLen = 1024    // bytes of UTF-8
	// maxDepth is the contract's one nesting limit (objects and arrays, the outer one included;
	// RFC 8259 §9 lets a parser set one): encoding/json alone allows 10,000.
	maxDepth = 100
)

// api serves the contract over a Store; store errors are logged to log, one line each.
type api struct {
	store Store
	log   *log.Logger
}

// newHandler returns the service's router: the contract's routes, JSON 404 and 405 for every
// other path or method, and no redirects (an unknown path is 404, not a 301 to a known one).
func newHandler(store Store, logger *log.Logger) http.Handler {
	a := &api{store: store, log: logger}
	r := httprouter.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleOPTIONS = false // OPTIONS is another method: 405
	r.NotFound = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, "not found")
	})
	r.MethodNotAllowed = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		// httprouter lists OPTIONS in Allow even when it does not answer it.
		allow := strings.Split(w.Header().Get("Allow"), ", ")
		allow = slices.DeleteFunc(allow, func(m string) bool { return m == http.MethodOptions })
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed, "method not allowed")
	})
	r.PanicHandler = func(w http.ResponseWriter, req *http.Request, v any) {
		a.log.Printf("panic: %s %q: %v", req.Method, req.URL.Path, v)
		writeError(w, http.StatusInternalServerError, "internal error")
	}

	// What answers GET answers HEAD (RFC 9110 §9.1); net/http sends HEAD's headers without the
	// body.
	for path, h := range map[string]httprouter.Handle{
		"/health": a.health, "/api/": a.issue, "/api/:apiKey": a.list, "/api/:apiKey/:key": a.get,
	} {
		r.GET(path, h)
		r.HEAD(path, h)
	}
	r.POST("/api/:apiKey/:key", a.create)
	r.PUT("/api/:apiKey/:key", a.update)
	r.DELETE("/api/:apiKey/:key", a.remove)
	return drainBody(r)
}

// drainBody reads what a handler left of a request body (up to 1 MiB + 1 bytes) before the
// answer goes out: net/http closes a connection with more than 256 KiB unread, which can cut
// the client off mid-body (an unknown API key answered before its 1 MiB body was read).
func drainBody(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxBody+1))
	})
}

func (a *api) health(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	if err := a.store.Ping(r.Context()); err != nil {
		a.log.Printf("health: store unreachable: %s", oneLine(err))
		writeError(w, http.StatusServiceUnavailable, "store unreachable")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// issue hands out a new API key, a random version 4 UUID in lower case.
func (a *api) issue(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
	key := newUUID()
	if err := a.store.AddAPIKey(r.Context(), key); err != nil {
		a.storeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"apiKey": key})
}

func (a *api) list(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	apiKey, ok := a.checkPath(w, r, ps, false)
	if !ok {
		return
	}
	items, err := a.store.List(r.Context(), apiKey)
	if err != nil {
		a.storeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, items)
}

func (a *api) get(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	apiKey, ok := a.checkPath(w, r, ps, true)
	if !ok {
		return
	}
	key := ps.ByName("key")
	value, err := a.store.Get(r.Context(), apiKey, key)
	if a.itemError(w, r, err) {
		return
	}
	writeJSON(w, http.StatusOK, Item{Key: key, Value: value})
}

func (a *api) create(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	a.write(w, r, ps, a.store.Create, http.StatusCreated)
}

func (a *api) update(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	a.write(w, r, ps, a.store.Update, http.StatusOK)
}

// write runs a create or an update: the path's checks, then the body's, then the store's.
func (a *api) write(w http.ResponseWriter, r *http.Request, ps httprouter.Params,
	op func(ctx context.Context, api, key, value string) error, status int) {
	apiKey, ok := a.checkPath(w, r, ps, true)
	if !ok {
		return
	}
	value, ok := readValue(w, r)
	if !ok {
		return
	}
	key := ps.ByName("key")
	if a.itemError(w, r, op(r.Context(), apiKey, key, value)) {
		return
	}
	writeJSON(w, status, Item{Key: key, Value: value})
}

func (a *api) remove(w http.ResponseWriter, r *http.Request, ps httprouter.Params) {
	apiKey, ok := a.checkPath(w, r, ps, true)
	if !ok {
		return
	}
	if a.itemError(w, r, a.store.Delete(r.Context(), apiKey, ps.ByName("key"))) {
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// checkPath runs the checks that come before the body: the API key's syntax and the item key's
// (400), then whether the API key was issued (404). It answers a failure itself and returns the
// API key in lower case, the form the store holds.
func (a *api) checkPath(w http.ResponseWriter, r *http.Request, ps httprouter.Params, hasKey bool) (string, bool) {
	apiKey, ok := normalizeAPIKey(ps.ByName("apiKey"))
	if !ok {
		writeError(w, http.StatusBadRequest, "malformed API key")
		return "", false
	}
	if hasKey && !validKey(ps.ByName("key")) {
		writeError(w, http.StatusBadRequest, "key must be 1 to 1024 bytes of UTF-8 without U+0000")
		return "", false
	}
	known, err := a.store.HasAPIKey(r.Context(), apiKey)
	if err != nil {
		a.storeError(w, r, err)
		return "", false
	}
	if !known {
		writeError(w, http.StatusNotFound, "unknown API key")
		return "", false
	}
	return apiKey, true
}

// itemError answers a store outcome that is not a success and reports whether it did.
func (a *api) itemError(w http.ResponseWriter, r *http.Request, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, ErrExists):
		writeError(w, http.StatusConflict, "key exists")
	case errors.Is(err, ErrNotFound):
		writeError(w, http.StatusNotFound, "no such item")
	default:
		a.storeError(w, r, err)
	}
	return true
}

func (a *api) storeError(w http.ResponseWriter, r *http.Request, err error) {
	a.log.Printf("store error: %s %q: %s", r.Method, r.URL.Path, oneLine(err))
	writeError(w, http.StatusInternalServerError, "store error")
}

// readValue reads a POST or PUT body: at most 1 MiB (else 413) of UTF-8 JSON, an object whose
// member "value" (exactly that name) is a string without U+0000 (else 400). Other members are
// ignored.
func readValue(w http.ResponseWriter, r *http.Request) (string, bool) {
	if r.ContentLength > maxBody {
		writeError(w, http.StatusRequestEntityTooLarge, "body over 1 MiB")
		return "", false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		writeError(w, http.StatusRequestEntityTooLarge, "body over 1 MiB")
		return "", false
	}
	const bad = "body must be a JSON object with a string value"
	if err != nil {
		writeError(w, http.StatusBadRequest, bad)
		return "", false
	}
	// A map, not a struct: encoding/json matches struct fields case-insensitively, and
	// {"VALUE": "x"} must be refused like every other implementation refuses it.
	var obj map[string]json.RawMessage
	var value *string
	if !utf8.Valid(body) || json.Unmarshal(body, &obj) != nil || !wellFormed(body) || obj["value"] == nil ||
		json.Unmarshal(obj["value"], &value) != nil || value == nil ||
		strings.IndexByte(*value, 0) >= 0 {
		writeError(w, http.StatusBadRequest, bad)
		return "", false
	}
	return *value, true
}

// wellFormed reports whether a JSON text (already known to parse) keeps the contract's limits
// beyond the grammar: nesting at most maxDepth deep, and no `\u` escape of a lone surrogate
// anywhere (I-JSON, RFC 7493 §2.1). encoding/json turns a lone surrogate into U+FFFD without a
// word, so "a\ud800b" was stored as "a\uFFFDb".
func wellFormed(body []byte) bool {
	// unit is the code unit of the `\uXXXX` at i (its backslash), or -1.
	unit := func(i int) int {
		if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
			return -1
		}
		u, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 16)
		if err != nil {
			return -1
		}
		return int(u)
	}
	depth, inString := 0, false
	for i := 0; i < len(body); i++ {
		c := body[i]
		if inString {
			switch c {
			case '"':
				inString = false
			case '\\':
				switch u := unit(i); {
				case 0xD800 <= u && u <= 0xDBFF:
					if low := unit(i + 6); low < 0xDC00 || low > 0xDFFF {
						return false
					}
					i += 11
				case 0xDC00 <= u && u <= 0xDFFF:
					return false
				case u >= 0:
					i += 5
				default:
					i++ // a one-character escape: skip what it escapes
				}
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > maxDepth {
				return false
			}
		case '}', ']':
			depth--
		}
	}
	return true
}

// normalizeAPIKey accepts a canonical UUID (8-4-4-4-12 hex digits of either case) and returns it
// in lower case.
func normalizeAPIKey(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	b := []byte(s)
	for i, c := range b {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return "", false
			}
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f':
		case 'A' <= c && c <= 'F':
			b[i] = c + ('a' - 'A')
		default:
			return "", false
		}
	}
	return string(b), true
}

// validKey: 1 to 1024 bytes of valid UTF-8 without U+0000 (PostgreSQL text cannot hold it).
func validKey(k string) bool {
	return len(k) >= 1 && len(k) <= maxKeyLen && utf8.ValidString(k) && strings.IndexByte(k, 0) < 0
}

// newUUID returns a random version 4 UUID in lower case.
func newUUID() string {
	var u [16]byte
	rand.Read(u[:]) // never fails (crypto/rand, Go 1.24+)
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	hex.Encode(s[9:13], u[4:6])
	hex.Encode(s[14:18], u[6:8])
	hex.Encode(s[19:23], u[8:10])
	hex.Encode(s[24:], u[10:])
	s[8], s[13], s[18], s[23] = '-', '-', '-', '-'
	return string(s[:])
}

// writeJSON answers v as compact JSON without a trailing newline and without HTML escaping, as
// the other implementations write it.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // cannot happen for the types written here
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":"cannot encode answer"}`)
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
