-- RESTCache on PostgreSQL, the study's document store (MongoDB) as JSONB documents
-- {"value": "..."}. Every implementation runs these statements at start (they are idempotent).
-- Indexes as the study's collections: api (primary key); cache on api and on api + key.
CREATE TABLE IF NOT EXISTS api (key uuid PRIMARY KEY);
CREATE TABLE IF NOT EXISTS cache (
    api uuid NOT NULL,
    key text NOT NULL,
    doc jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS cache_api ON cache (api);
CREATE UNIQUE INDEX IF NOT EXISTS cache_api_key ON cache (api, key);
