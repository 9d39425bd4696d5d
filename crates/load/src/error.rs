//! The load engine's one error type.

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot connect: {0}")]
    Connect(std::io::Error),
    #[error("I/O: {0}")]
    Io(std::io::Error),
    #[error("TLS: {0}")]
    Tls(String),
    #[error("{0}")]
    Protocol(String),
    #[error("{0}")]
    Unsupported(String),
}
