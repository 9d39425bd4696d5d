//! The two stores behind the API: SQLite (a file; r2d2 pool of rusqlite connections, queried on
//! tokio's blocking threads) and PostgreSQL (deadpool-postgres; items as JSONB documents). The
//! statements run at start are `subjects/restcache/schema/{sqlite,postgres}.sql`, shared with the
//! Go and Java implementations.

use std::time::Duration;

use anyhow::{bail, Context, Result};
use r2d2_sqlite::SqliteConnectionManager;
use uuid::Uuid;

pub const SQLITE_SCHEMA: &str = include_str!("../../schema/sqlite.sql");
const POSTGRES_SCHEMA: &str = include_str!("../../schema/postgres.sql");

/// One item of an API key.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Item {
    pub key: String,
    pub value: String,
}

/// What creating an item did.
#[derive(Debug, PartialEq, Eq)]
pub enum Created {
    Yes,
    AlreadyThere,
}

/// A pool of connections to one store.
#[derive(Clone)]
pub enum Store {
    Sqlite(r2d2::Pool<SqliteConnectionManager>),
    Postgres(deadpool_postgres::Pool),
}

impl Store {
    /// Opens `sqlite:<path>` or `postgres://…` with `pool` connections and creates the schema.
    pub async fn open(url: &str, pool: usize) -> Result<Store> {
        if let Some(path) = url.strip_prefix("sqlite:") {
            let manager = SqliteConnectionManager::file(path).with_init(|c| {
                // Every pooled connection waits for the writer instead of failing at once.
                c.execute_batch("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA busy_timeout=5000;")
            });
            let pool = r2d2::Pool::builder()
                .max_size(pool as u32)
                .connection_timeout(Duration::from_secs(10))
                .build(manager)
                .context("cannot open the SQLite file")?;
            let store = Store::Sqlite(pool);
            store
                .sqlite(|c| c.execute_batch(SQLITE_SCHEMA).map_err(Into::into))
                .await
                .context("cannot create the schema")?;
            Ok(store)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let config: tokio_postgres::Config = url.parse().context("not a PostgreSQL URL")?;
            let manager = deadpool_postgres::Manager::from_config(
                config,
                tokio_postgres::NoTls,
                deadpool_postgres::ManagerConfig { recycling_method: deadpool_postgres::RecyclingMethod::Fast },
            );
            let pool =
                deadpool_postgres::Pool::builder(manager).max_size(pool).build().context("cannot build the pool")?;
            let client = pool.get().await.context("cannot connect")?;
            client.batch_execute(POSTGRES_SCHEMA).await.context("cannot create the schema")?;
            Ok(Store::Postgres(pool))
        } else {
            bail!("unknown store (use sqlite:<path> or postgres://user@host:port/db)")
        }
    }

    /// Runs `f` on a pooled SQLite connection on a blocking thread.
    async fn sqlite<T: Send + 'static>(
        &self,
        f: impl FnOnce(&rusqlite::Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let Store::Sqlite(pool) = self else { unreachable!("sqlite() on PostgreSQL") };
        let pool = pool.clone();
        tokio::task::spawn_blocking(move || f(&*pool.get()?)).await?
    }

    async fn pg(&self) -> Result<deadpool_postgres::Object> {
        let Store::Postgres(pool) = self else { unreachable!("pg() on SQLite") };
        Ok(pool.get().await?)
    }

    /// True when the store answers a query.
    pub async fn ping(&self) -> Result<()> {
        match self {
            Store::Sqlite(_) => self.sqlite(|c| Ok(c.query_row("SELECT 1", [], |_| Ok(()))?)).await,
            Store::Postgres(_) => Ok(self.pg().await?.simple_query("SELECT 1").await.map(drop)?),
        }
    }

    /// Stores a newly issued API key.
    pub async fn add_api_key(&self, api: Uuid) -> Result<()> {
        match self {
            Store::Sqlite(_) => {
                let api = api.to_string();
                self.sqlite(move |c| {
                    Ok(c.prepare_cached("INSERT INTO api (key) VALUES (?1)")?.execute([api]).map(drop)?)
                })
                .await
            }
            Store::Postgres(_) => {
                let c = self.pg().await?;
                let st = c.prepare_cached("INSERT INTO api (key) VALUES ($1)").await?;
                Ok(c.execute(&st, &[&api]).await.map(drop)?)
            }
        }
    }

    /// True when the service issued this API key.
    pub async fn api_key_exists(&self, api: Uuid) -> Result<bool> {
        match self {
            Store::Sqlite(_) => {
                let api = api.to_string();
                self.sqlite(move |c| Ok(c.prepare_cached("SELECT 1 FROM api WHERE key = ?1")?.exists([api])?)).await
            }
            Store::Postgres(_) => {
                let c = self.pg().await?;
                let st = c.prepare_cached("SELECT 1 FROM api WHERE key = $1").await?;
                Ok(c.query_opt(&st, &[&api]).await?.is_some())
            }
        }
    }

    /// The API key's items, ordered by key in byte order.
    pub async fn list(&self, api: Uuid) -> Result<Vec<Item>> {
        match self {
            Store::Sqlite(_) => {
                let api = api.to_string();
                self.sqlite(move |c| {
                    let mut st = c.prepare_cached("SELECT key, value FROM cache WHERE api = ?1 ORDER BY key")?;
                    let rows = st.query_map([api], |r| Ok(Item { key: r.get(0)?, value: r.get(1)? }))?;
                    Ok(rows.collect::<rusqlite::Result<_>>()?)
                })
                .await
            }
            Store::Postgres(_) => {
                let c = self.pg().await?;
                let st = c
                    .prepare_cached("SELECT key, doc->>'value' FROM cache WHERE api = $1 ORDER BY key COLLATE \"C\"")
                    .await?;
                let rows = c.query(&st, &[&api]).await?;
                Ok(rows.iter().map(|r| Item { key: r.get(0), value: r.get(1) }).collect())
            }
        }
    }

    /// One item's value.
    pub async fn get(&self, api: Uuid, key: String) -> Result<Option<String>> {
        match self {
            Store::Sqlite(_) => {
                let api = api.to_string();
                self.sqlite(move |c| {
                    let mut st = c.prepare_cached("SELECT value FROM cache WHERE api = ?1 AND key = ?2")?;
                    let mut rows = st.query(rusqlite::params![api, key])?;
                    Ok(match rows.next()? {
                        Some(r) => Some(r.get(0)?),
                        None => None,
                    })
                })
                .await
            }
            Store::Postgres(_) => {
                let c = self.pg().await?;
                let st = c.prepare_cached("SELECT doc->>'value' FROM cache WHERE api = $1 AND key = $2").await?;
                Ok(c.query_opt(&st, &[&api, &key]).await?.map(|r| r.get(0)))
            }
        }
    }

    /// Creates an item; an existing key is left as it is. One INSERT, whose unique index decides,
    /// so two concurrent creates of one key cannot both succeed.
    pub async fn create(&self, api: Uuid, key: String, value: String) -> Result<Created> {
        let inserted = match self {
            Store::Sqlite(_) => {
                let api = api.to_string();
                self.sqlite(move |c| {
                    let mut st = c.prepare_cached(
                        "INSERT INTO cache (api, key, value) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
                    )?;
                    Ok(st.execute(rusqlite::params![api, key, value])?)
                })
                .await?
            }
            Store::Postgres(_) => {
                let c = self.pg().await?;
                let st = c
                    .prepare_cached(
                        "INSERT INTO cache (api, key, doc) VALUES ($1, $2, jsonb_build_object('value', $3::text)) \
                         ON CONFLICT (api, key) DO NOTHING",
                    )
                    .await?;
                c.execute(&st, &[&api, &key, &value]).await? as usize
            }
        };
        Ok(if inserted == 1 { Created::Yes } else { Created::AlreadyThere })
    }

    /// Replaces an item's value; false when there is no such item.
    pub async fn update(&self, api: Uuid, key: String, value: String) -> Result<bool> {
        match self {
            Store::Sqlite(_) => {
                let api = api.to_string();
                self.sqlite(move |c| {
                    let mut st = c.prepare_cached("UPDATE cache SET value = ?3 WHERE api = ?1 AND key = ?2")?;
                    Ok(st.execute(rusqlite::params![api, key, value])? == 1)
                })
                .await
            }
            Store::Postgres(_) => {
                let c = self.pg().await?;
                let st = c
                    .prepare_cached(
                        "UPDATE cache SET doc = jsonb_build_object('value', $3::text) WHERE api = $1 AND key = $2",
                    )
                    .await?;
                Ok(c.execute(&st, &[&api, &key, &value]).await? == 1)
            }
        }
    }

    /// Deletes an item; false when there is no such item.
    pub async fn delete(&self, api: Uuid, key: String) -> Result<bool> {
        match self {
            Store::Sqlite(_) => {
                let api = api.to_string();
                self.sqlite(move |c| {
                    Ok(c.prepare_cached("DELETE FROM cache WHERE api = ?1 AND key = ?2")?
                        .execute(rusqlite::params![api, key])?
                        == 1)
                })
                .await
            }
            Store::Postgres(_) => {
                let c = self.pg().await?;
                let st = c.prepare_cached("DELETE FROM cache WHERE api = $1 AND key = $2").await?;
                Ok(c.execute(&st, &[&api, &key]).await? == 1)
            }
        }
    }
}
