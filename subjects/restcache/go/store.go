package main

// The stores: the Store interface the handlers use, and its two implementations, SQLite
// (mattn/go-sqlite3 through database/sql) and PostgreSQL (jackc/pgx/v5 with pgxpool). Each runs
// the DDL of ../schema at start and maps the database's own errors to ErrExists / ErrNotFound.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mattn/go-sqlite3"
)

// sqliteSchema must stay equal to the statements of ../schema/sqlite.sql (TestSchemaFiles checks).
const sqliteSchema = `CREATE TABLE IF NOT EXISTS api (key TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS cache (
    api TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (api, key)
) WITHOUT ROWID;`

// postgresSchema must stay equal to the statements of ../schema/postgres.sql (TestSchemaFiles checks).
const postgresSchema = `CREATE TABLE IF NOT EXISTS api (key uuid PRIMARY KEY);
CREATE TABLE IF NOT EXISTS cache (
    api uuid NOT NULL,
    key text NOT NULL,
    doc jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS cache_api ON cache (api);
CREATE UNIQUE INDEX IF NOT EXISTS cache_api_key ON cache (api, key);`

var (
	// ErrExists: the item's key is already taken under this API key.
	ErrExists = errors.New("item exists")
	// ErrNotFound: no item with this key under this API key.
	ErrNotFound = errors.New("no such item")
)

// Item is one key-value pair of an API key, as the API shows it.
type Item struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Store keeps API keys and their items. API keys reach it validated and in lower case; item
// keys and values as valid UTF-8 without U+0000.
type Store interface {
	Ping(ctx context.Context) error
	AddAPIKey(ctx context.Context, api string) error
	HasAPIKey(ctx context.Context, api string) (bool, error)
	List(ctx context.Context, api string) ([]Item, error) // ordered by key, byte order
	Get(ctx context.Context, api, key string) (string, error)
	Create(ctx context.Context, api, key, value string) error // ErrExists
	Update(ctx context.Context, api, key, value string) error // ErrNotFound
	Delete(ctx context.Context, api, key string) error        // ErrNotFound
	Close() error
}

// openStore opens the store a --store URL names (sqlite:<path> or a postgres:// URL), checks
// that it answers and creates the tables.
func openStore(ctx context.Context, url string, pool int) (Store, error) {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		return openSQLite(ctx, strings.TrimPrefix(url, "sqlite:"), pool)
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return openPostgres(ctx, url, pool)
	}
	return nil, fmt.Errorf("unknown store %q (want sqlite:<path> or postgres://...)", url)
}

// sqliteStore is the SQLite store; database/sql's pool holds up to --pool connections.
type sqliteStore struct{ db *sql.DB }

func openSQLite(ctx context.Context, path string, pool int) (Store, error) {
	// go-sqlite3 applies these parameters to every connection it opens, so each pooled
	// connection has busy_timeout. The file is created if missing.
	db, err := sql.Open("sqlite3", path+"?_journal_mode=WAL&_synchronous=NORMAL&_busy_timeout=5000")
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	db.SetMaxOpenConns(pool)
	db.SetMaxIdleConns(pool)
	if _, err := db.ExecContext(ctx, sqliteSchema); err != nil {
		db.Close()
		return nil, fmt.Errorf("create sqlite schema: %w", err)
	}
	return &sqliteStore{db: db}, nil
}

func (s *sqliteStore) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

func (s *sqliteStore) AddAPIKey(ctx context.Context, api string) error {
	if _, err := s.db.ExecContext(ctx, `INSERT INTO api (key) VALUES (?)`, api); err != nil {
		return fmt.Errorf("insert api key: %w", err)
	}
	return nil
}

func (s *sqliteStore) HasAPIKey(ctx context.Context, api string) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM api WHERE key = ?`, api).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up api key: %w", err)
	}
	return true, nil
}

func (s *sqliteStore) List(ctx context.Context, api string) ([]Item, error) {
	// TEXT's default collation, BINARY, compares bytes: the contract's order.
	rows, err := s.db.QueryContext(ctx, `SELECT key, value FROM cache WHERE api = ? ORDER BY key`, api)
	if err != nil {
		return nil, fmt.Errorf("list items: %w", err)
	}
	defer rows.Close()
	return scanItems(rows)
}

func (s *sqliteStore) Get(ctx context.Context, api, key string) (string, error) {
	var value string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM cache WHERE api = ? AND key = ?`, api, key).Scan(&value)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("get item: %w", err)
	}
	return value, nil
}

func (s *sqliteStore) Create(ctx context.Context, api, key, value string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO cache (api, key, value) VALUES (?, ?, ?)`, api, key, value)
	var se sqlite3.Error
	// (api, key) is the table's PRIMARY KEY, which SQLite reports as its own constraint code.
	if errors.As(err, &se) && (se.ExtendedCode == sqlite3.ErrConstraintPrimaryKey ||
		se.ExtendedCode == sqlite3.ErrConstraintUnique) {
		return ErrExists
	}
	if err != nil {
		return fmt.Errorf("insert item: %w", err)
	}
	return nil
}

func (s *sqliteStore) Update(ctx context.Context, api, key, value string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE cache SET value = ? WHERE api = ? AND key = ?`, value, api, key)
	return affectedOne(res, err, "update item")
}

func (s *sqliteStore) Delete(ctx context.Context, api, key string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM cache WHERE api = ? AND key = ?`, api, key)
	return affectedOne(res, err, "delete item")
}

// affectedOne turns a statement's outcome into nil, ErrNotFound (no row) or a wrapped error.
func affectedOne(res sql.Result, err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

func (s *sqliteStore) Close() error { return s.db.Close() }

// pgStore is the PostgreSQL store: items are JSONB documents {"value": "..."}.
type pgStore struct{ pool *pgxpool.Pool }

func openPostgres(ctx context.Context, url string, pool int) (Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse postgres URL: %w", err)
	}
	cfg.MaxConns = int32(pool)
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres: %w", err)
	}
	if err := p.Ping(ctx); err != nil {
		p.Close()
		return nil, fmt.Errorf("connect to postgres: %w", err)
	}
	// No arguments: pgx sends the statements in one simple-protocol query.
	if _, err := p.Exec(ctx, postgresSchema); err != nil {
		p.Close()
		return nil, fmt.Errorf("create postgres schema: %w", err)
	}
	return &pgStore{pool: p}, nil
}

func (s *pgStore) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

func (s *pgStore) AddAPIKey(ctx context.Context, api string) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO api (key) VALUES ($1)`, api); err != nil {
		return fmt.Errorf("insert api key: %w", err)
	}
	return nil
}

func (s *pgStore) HasAPIKey(ctx context.Context, api string) (bool, error) {
	var one int
	err := s.pool.QueryRow(ctx, `SELECT 1 FROM api WHERE key = $1`, api).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("look up api key: %w", err)
	}
	return true, nil
}

func (s *pgStore) List(ctx context.Context, api string) ([]Item, error) {
	// COLLATE "C" orders by bytes whatever the database's locale.
	rows, err := s.pool.Query(ctx,
		`SELECT key, doc->>'value' FROM cache WHERE api = $1 ORDER BY key COLLATE "C"`, api)
	if err != nil {
		return nil, fmt.Errorf("list items: %w", err)
	}
	defer rows.Close()
	return scanItems(rows)
}

func (s *pgStore) Get(ctx context.Context, api, key string) (string, error) {
	var value string
	err := s.pool.QueryRow(ctx,
		`SELECT doc->>'value' FROM cache WHERE api = $1 AND key = $2`, api, key).Scan(&value)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("get item: %w", err)
	}
	return value, nil
}

func (s *pgStore) Create(ctx context.Context, api, key, value string) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO cache (api, key, doc) VALUES ($1, $2, jsonb_build_object('value', $3::text))`,
		api, key, value)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" { // unique_violation on cache_api_key
		return ErrExists
	}
	if err != nil {
		return fmt.Errorf("insert item: %w", err)
	}
	return nil
}

func (s *pgStore) Update(ctx context.Context, api, key, value string) error {
	tag, err := s.pool.Exec(ctx,
		`UPDATE cache SET doc = jsonb_build_object('value', $3::text) WHERE api = $1 AND key = $2`,
		api, key, value)
	if err != nil {
		return fmt.Errorf("update item: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

func (s *pgStore) Delete(ctx context.Context, api, key string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM cache WHERE api = $1 AND key = $2`, api, key)
	if err != nil {
		return fmt.Errorf("delete item: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

func (s *pgStore) Close() error {
	s.pool.Close()
	return nil
}

// itemRows is what database/sql's and pgx's result sets have in common.
type itemRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// scanItems reads (key, value) rows into items; never nil, so an empty list is [] in JSON.
func scanItems(rows itemRows) ([]Item, error) {
	items := []Item{}
	for rows.Next() {
		var it Item
		if err := rows.Scan(&it.Key, &it.Value); err != nil {
			return nil, fmt.Errorf("list items: %w", err)
		}
		items = append(items, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list items: %w", err)
	}
	return items, nil
}
