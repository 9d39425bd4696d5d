-- RESTCache on SQLite (the embedded default). Every implementation runs these statements at
-- start (they are idempotent) and opens the file with journal_mode=WAL, synchronous=NORMAL and
-- busy_timeout=5000. The primary keys are the study's indexes: api; api + key.
CREATE TABLE IF NOT EXISTS api (key TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS cache (
    api TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (api, key)
) WITHOUT ROWID;
