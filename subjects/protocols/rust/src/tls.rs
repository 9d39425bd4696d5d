//! TLS material: the self-signed certificate made at start and the rustls server configuration.

use std::sync::Arc;

use anyhow::Context as _;
use rustls::crypto::{ring, CryptoProvider};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::ServerConfig;

/// ALPN protocols offered, preferred first.
pub const ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

/// Builds a server configuration around a fresh self-signed certificate for localhost and 127.0.0.1.
pub fn server_config() -> anyhow::Result<ServerConfig> {
    let provider = Arc::new(ring::default_provider());
    // Any code path that asks rustls for the process default (rather than the explicit provider
    // below) must find ring, not panic; an error here only means one is installed already.
    let _ = CryptoProvider::install_default(ring::default_provider());

    let rcgen::CertifiedKey { cert, signing_key } = self_signed()?;
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(signing_key.serialize_der()));

    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("choosing TLS protocol versions")?
        .with_no_client_auth()
        .with_single_cert(vec![cert.der().clone()], key)
        .context("loading the certificate into rustls")?;
    config.alpn_protocols = ALPN.iter().map(|p| p.to_vec()).collect();
    Ok(config)
}

/// A fresh self-signed certificate for localhost and 127.0.0.1 and its key.
pub fn self_signed() -> anyhow::Result<rcgen::CertifiedKey<rcgen::KeyPair>> {
    rcgen::generate_simple_self_signed(["localhost".to_owned(), "127.0.0.1".to_owned()])
        .context("generating the self-signed certificate")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advertises_h2_and_http11() {
        let config = server_config().unwrap();
        assert_eq!(config.alpn_protocols, vec![b"h2".to_vec(), b"http/1.1".to_vec()]);
    }

    #[test]
    fn offers_tls13_and_tls12() {
        let config = server_config().unwrap();
        let versions: Vec<_> = config.crypto_provider().cipher_suites.iter().map(|s| s.version().version).collect();
        assert!(versions.contains(&rustls::ProtocolVersion::TLSv1_3));
        assert!(versions.contains(&rustls::ProtocolVersion::TLSv1_2));
    }
}
