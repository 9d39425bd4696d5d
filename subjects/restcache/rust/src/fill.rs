//! The study's pre-filled store, scaled: 4,000,000 API keys with 10 items each (40,000,000
//! items, its 12 GB of MongoDB) times a factor, loaded through each database's bulk path
//! (PostgreSQL's COPY; for SQLite one transaction of prepared inserts) rather than one request
//! at a time. The same seed gives the same keys and values on every machine. A store that already
//! holds API keys is left as it is, so subjects that share one database fill it once.

use anyhow::{bail, Context, Result};
use futures_util::SinkExt;
use uuid::Uuid;

use crate::store::{Store, SQLITE_SCHEMA};

/// The study's pre-filled state.
pub const STUDY_API_KEYS: u64 = 4_000_000;
pub const ITEMS_PER_KEY: u64 = 10;
const SEED: u64 = 2016;

/// The factor a suite profile scales the study's state by.
pub fn scale_of(profile: &str) -> Result<f64> {
    Ok(match profile {
        "smoke" => 1e-5,
        "quick" => 1e-3,
        "full" => 1e-2,
        other => bail!("unknown profile `{other}` (smoke, quick or full; or give --scale)"),
    })
}

/// What a fill did.
#[derive(Debug, PartialEq, Eq)]
pub struct Filled {
    pub api_keys: u64,
    pub items: u64,
    /// The store held data already and was left as it was.
    pub kept: bool,
}

/// Fills the store at `url` with `api_keys` keys of `ITEMS_PER_KEY` items each.
pub async fn fill(url: &str, api_keys: u64) -> Result<Filled> {
    if let Some(path) = url.strip_prefix("sqlite:") {
        let path = path.to_string();
        return tokio::task::spawn_blocking(move || fill_sqlite(&path, api_keys)).await?;
    }
    create_database(url).await?;
    // Opening the store creates the schema.
    let store = Store::open(url, 1).await?;
    let Store::Postgres(pool) = store else { bail!("not a PostgreSQL store") };
    let mut client = pool.get().await?;
    let held: i64 = client.query_one("SELECT count(*) FROM api", &[]).await?.get(0);
    if held > 0 {
        return Ok(Filled { api_keys: held as u64, items: 0, kept: true });
    }
    let tx = client.transaction().await?;
    copy_lines(&tx, "COPY api (key) FROM STDIN", (0..api_keys).map(|k| format!("{}\n", Rows::api_key(k)))).await?;
    let mut rows = Rows::new();
    let items = (0..api_keys).map(|k| {
        let api = Rows::api_key(k);
        let mut lines = String::new();
        for _ in 0..ITEMS_PER_KEY {
            let (key, value) = rows.item();
            // COPY's text format: tab-separated; the hex values need no escaping.
            lines.push_str(&format!("{api}\t{key}\t{{\"value\": \"{value}\"}}\n"));
        }
        lines
    });
    copy_lines(&tx, "COPY cache (api, key, doc) FROM STDIN", items).await?;
    tx.commit().await?;
    client.batch_execute("ANALYZE api; ANALYZE cache").await?;
    Ok(Filled { api_keys, items: api_keys * ITEMS_PER_KEY, kept: false })
}

/// Sends `lines` through `statement` (a `COPY … FROM STDIN`) in chunks of about 1 MiB.
async fn copy_lines(
    tx: &deadpool_postgres::Transaction<'_>,
    statement: &str,
    lines: impl Iterator<Item = String>,
) -> Result<()> {
    let mut sink = Box::pin(tx.copy_in(statement).await?);
    let mut buf = String::new();
    for line in lines {
        buf.push_str(&line);
        if buf.len() > 1 << 20 {
            sink.send(bytes::Bytes::from(std::mem::take(&mut buf))).await?;
        }
    }
    sink.send(bytes::Bytes::from(buf)).await?;
    sink.as_mut().finish().await?;
    Ok(())
}

/// Creates the URL's database on its server when it does not exist yet (through the server's
/// `postgres` database).
async fn create_database(url: &str) -> Result<()> {
    let config: tokio_postgres::Config = url.parse().context("not a PostgreSQL URL")?;
    let Some(name) = config.get_dbname().map(str::to_string) else { return Ok(()) };
    let mut admin = config.clone();
    admin.dbname("postgres");
    let (client, connection) = admin.connect(tokio_postgres::NoTls).await.context("cannot connect")?;
    tokio::spawn(connection);
    let exists = client.query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name]).await?.is_some();
    if !exists {
        // A name cannot be a parameter; quote it as an identifier.
        client.batch_execute(&format!("CREATE DATABASE \"{}\"", name.replace('"', "\"\""))).await?;
    }
    Ok(())
}

fn fill_sqlite(path: &str, api_keys: u64) -> Result<Filled> {
    let mut c = rusqlite::Connection::open(path).with_context(|| format!("cannot open {path}"))?;
    c.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;")?;
    c.execute_batch(SQLITE_SCHEMA)?;
    let held: i64 = c.query_row("SELECT count(*) FROM api", [], |r| r.get(0))?;
    if held > 0 {
        return Ok(Filled { api_keys: held as u64, items: 0, kept: true });
    }
    let tx = c.transaction()?;
    {
        let mut api = tx.prepare("INSERT INTO api (key) VALUES (?1)")?;
        let mut item = tx.prepare("INSERT INTO cache (api, key, value) VALUES (?1, ?2, ?3)")?;
        let mut rows = Rows::new();
        for k in 0..api_keys {
            let key = Rows::api_key(k).to_string();
            api.execute([&key])?;
            for _ in 0..ITEMS_PER_KEY {
                let (ikey, value) = rows.item();
                item.execute([&key, &ikey, &value])?;
            }
        }
    }
    tx.commit()?;
    c.execute_batch("ANALYZE")?;
    Ok(Filled { api_keys, items: api_keys * ITEMS_PER_KEY, kept: false })
}

/// The deterministic rows: API keys (version 4 UUIDs) and items (16 and 32 hex digits).
struct Rows {
    state: u64,
}

impl Rows {
    fn new() -> Rows {
        Rows { state: SEED }
    }

    fn next(&mut self) -> u64 {
        // SplitMix64.
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// The `k`th API key; it depends on `k` alone, so both tables agree.
    fn api_key(k: u64) -> Uuid {
        let mut r = Rows { state: SEED ^ k.wrapping_mul(0xA24B_AED4_963E_E407) };
        let bytes = [r.next().to_le_bytes(), r.next().to_le_bytes()].concat();
        uuid::Builder::from_random_bytes(bytes.try_into().expect("16 bytes")).into_uuid()
    }

    fn item(&mut self) -> (String, String) {
        let a = self.next();
        let (b, c) = (self.next(), self.next());
        (format!("{a:016x}"), format!("{b:016x}{c:016x}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_the_same_for_every_run_and_keys_are_version_4() {
        let (mut a, mut b) = (Rows::new(), Rows::new());
        assert_eq!(Rows::api_key(7), Rows::api_key(7));
        assert_ne!(Rows::api_key(7), Rows::api_key(8));
        assert_eq!(Rows::api_key(3).get_version_num(), 4);
        let item = a.item();
        assert_eq!(item, b.item());
        assert_eq!((item.0.len(), item.1.len()), (16, 32));
        assert_eq!(scale_of("quick").unwrap() * STUDY_API_KEYS as f64, 4000.0);
        assert!(scale_of("huge").is_err());
    }

    #[test]
    fn sqlite_is_filled_once_through_one_transaction() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.db");
        let filled = fill_sqlite(path.to_str().unwrap(), 50).unwrap();
        assert_eq!(filled, Filled { api_keys: 50, items: 500, kept: false });
        let again = fill_sqlite(path.to_str().unwrap(), 50).unwrap();
        assert!(again.kept && again.api_keys == 50);
        let c = rusqlite::Connection::open(&path).unwrap();
        let n: i64 = c.query_row("SELECT count(*) FROM cache", [], |r| r.get(0)).unwrap();
        assert_eq!(n, 500);
    }
}
