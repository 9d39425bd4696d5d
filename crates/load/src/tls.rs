//! Client TLS: rustls with the ring provider and ALPN. The subject's certificate is generated
//! fresh at its start, so the chain is not checked (the instrument measures, it does not
//! authenticate), but handshake signatures are verified so the TLS work is the real work.

use std::sync::{Arc, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, SignatureScheme};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

use crate::error::LoadError;

fn provider() -> Arc<CryptoProvider> {
    static P: OnceLock<Arc<CryptoProvider>> = OnceLock::new();
    P.get_or_init(|| Arc::new(rustls::crypto::ring::default_provider())).clone()
}

/// A connector offering exactly `alpn` (e.g. `h2` or `http/1.1`).
pub fn connector(alpn: &[u8]) -> TlsConnector {
    TlsConnector::from(Arc::new(client_config(alpn, &[&rustls::version::TLS13, &rustls::version::TLS12])))
}

/// The client configuration of every TLS driver: `alpn` only, the given TLS versions (QUIC
/// takes TLS 1.3 alone), any certificate with verified handshake signatures.
pub fn client_config(alpn: &[u8], versions: &[&'static rustls::SupportedProtocolVersion]) -> ClientConfig {
    let provider = provider();
    let mut config = ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(versions)
        .expect("ring supports TLS 1.2 and 1.3")
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
        .with_no_client_auth();
    config.alpn_protocols = vec![alpn.to_vec()];
    config
}

/// Handshakes over `io` and checks the server agreed to `alpn`.
pub async fn handshake<S: AsyncRead + AsyncWrite + Unpin>(
    connector: &TlsConnector,
    io: S,
    alpn: &[u8],
) -> Result<TlsStream<S>, LoadError> {
    let name = ServerName::try_from("localhost").expect("valid name");
    let tls = connector.connect(name, io).await.map_err(|e| LoadError::Tls(e.to_string()))?;
    let agreed = tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
    if agreed.as_deref() != Some(alpn) {
        return Err(LoadError::Tls(format!(
            "server did not agree to ALPN {} (got {})",
            String::from_utf8_lossy(alpn),
            agreed.map_or("none".into(), |a| String::from_utf8_lossy(&a).into_owned())
        )));
    }
    Ok(tls)
}

#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
