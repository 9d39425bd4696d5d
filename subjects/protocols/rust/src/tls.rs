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
    Certificate::generate()?.server_config(&ALPN, false)
}

/// One self-signed certificate and its key, from which the TCP (h2, http/1.1) and the QUIC (h3)
/// configurations are built, so every TLS port of a server presents the same certificate.
pub struct Certificate {
    cert: rustls::pki_types::CertificateDer<'static>,
    key: PrivatePkcs8KeyDer<'static>,
}

impl Certificate {
    pub fn generate() -> anyhow::Result<Certificate> {
        // Any code path that asks rustls for the process default (rather than the explicit
        // provider below) must find ring, not panic; an error here only means one is installed.
        let _ = CryptoProvider::install_default(ring::default_provider());
        let rcgen::CertifiedKey { cert, signing_key } = self_signed()?;
        Ok(Certificate { cert: cert.der().clone(), key: PrivatePkcs8KeyDer::from(signing_key.serialize_der()) })
    }

    /// A server configuration offering `alpn`; `tls13_only` for QUIC, which has no TLS 1.2.
    pub fn server_config(&self, alpn: &[&[u8]], tls13_only: bool) -> anyhow::Result<ServerConfig> {
        let builder = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()));
        let builder = if tls13_only {
            builder.with_protocol_versions(&[&rustls::version::TLS13])
        } else {
            builder.with_safe_default_protocol_versions()
        };
        let mut config = builder
            .context("choosing TLS protocol versions")?
            .with_no_client_auth()
            .with_single_cert(vec![self.cert.clone()], PrivateKeyDer::Pkcs8(self.key.clone_key()))
            .context("loading the certificate into rustls")?;
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Ok(config)
    }
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
