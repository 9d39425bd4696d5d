//! Client TLS: rustls with the ring provider and ALPN. How the server's certificate is checked
//! is the target's (`Verify`): our own subjects make a fresh self-signed certificate at each
//! start, so for them any certificate passes (the instrument measures, it does not
//! authenticate) while the handshake's signatures are still verified, so the TLS work is the
//! real work; a server of the user's is checked against the system's roots or a CA file and
//! its name, unless they say `--insecure`.

use std::cell::RefCell;
use std::sync::{Arc, OnceLock};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;
use wirebench_core::runner::{ClientCert, Target, Verify};

use crate::error::LoadError;

fn provider() -> Arc<CryptoProvider> {
    static P: OnceLock<Arc<CryptoProvider>> = OnceLock::new();
    P.get_or_init(|| Arc::new(rustls::crypto::ring::default_provider())).clone()
}

/// TLS 1.3 and 1.2, as browsers and curl offer.
pub const VERSIONS: &[&rustls::SupportedProtocolVersion] = &[&rustls::version::TLS13, &rustls::version::TLS12];

/// A configuration made, with what it was made for: ALPN, the number of TLS versions, the
/// check and the client certificate.
type Made = (Vec<u8>, usize, Verify, Option<ClientCert>, Arc<ClientConfig>);

thread_local! {
    /// Configurations made on this load thread: reading the system's roots takes milliseconds, a
    /// connection must not pay it.
    static CONFIGS: RefCell<Vec<Made>> = const { RefCell::new(Vec::new()) };
}

/// A connector offering exactly `alpn` (e.g. `h2` or `http/1.1`), checking certificates and
/// presenting one as `target` says.
pub fn connector(alpn: &[u8], target: &Target) -> Result<TlsConnector, LoadError> {
    Ok(TlsConnector::from(client_config(alpn, VERSIONS, &target.verify, target.client_cert.as_ref())?))
}

/// The client configuration of every TLS driver: `alpn` only, the given TLS versions (QUIC
/// takes TLS 1.3 alone), certificates checked as `verify` says, `client` presented if given.
pub fn client_config(
    alpn: &[u8],
    versions: &[&'static rustls::SupportedProtocolVersion],
    verify: &Verify,
    client: Option<&ClientCert>,
) -> Result<Arc<ClientConfig>, LoadError> {
    let found = CONFIGS.with_borrow(|c| {
        c.iter()
            .find(|(a, v, w, k, _)| a == alpn && *v == versions.len() && w == verify && k.as_ref() == client)
            .map(|x| x.4.clone())
    });
    if let Some(config) = found {
        return Ok(config);
    }
    let provider = provider();
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(versions)
        .expect("ring supports TLS 1.2 and 1.3");
    let builder = match verify {
        Verify::Any => builder.dangerous().with_custom_certificate_verifier(Arc::new(AnyCertificate(provider))),
        Verify::System => builder.with_root_certificates(system_roots()?),
        Verify::Ca(file) => builder.with_root_certificates(roots_of(file)?),
    };
    let mut config = match client {
        None => builder.with_no_client_auth(),
        Some(c) => {
            let (chain, key) = client_identity(c)?;
            builder.with_client_auth_cert(chain, key).map_err(|e| LoadError::Tls(format!("client certificate: {e}")))?
        }
    };
    config.alpn_protocols = vec![alpn.to_vec()];
    let config = Arc::new(config);
    CONFIGS
        .with_borrow_mut(|c| c.push((alpn.to_vec(), versions.len(), verify.clone(), client.cloned(), config.clone())));
    Ok(config)
}

/// A client certificate's chain and key from their PEM files.
fn client_identity(
    c: &ClientCert,
) -> Result<(Vec<CertificateDer<'static>>, rustls::pki_types::PrivateKeyDer<'static>), LoadError> {
    let chain = pem_certs(&c.cert, "client certificate")?;
    let key = rustls::pki_types::PrivateKeyDer::from_pem_file(&c.key)
        .map_err(|e| LoadError::Tls(format!("client key {}: {e}", c.key.display())))?;
    Ok((chain, key))
}

/// The certificates of a PEM file, at least one; `what` names the file in errors.
fn pem_certs(file: &std::path::Path, what: &str) -> Result<Vec<CertificateDer<'static>>, LoadError> {
    let shown = file.display();
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(file)
        .and_then(|i| i.collect::<Result<_, _>>())
        .map_err(|e| LoadError::Tls(format!("{what} {shown}: {e}")))?;
    if certs.is_empty() {
        return Err(LoadError::Tls(format!("{what} {shown}: no certificate in it")));
    }
    Ok(certs)
}

/// The system's trusted roots (`/etc/ssl/certs` on Debian), read once per process.
fn system_roots() -> Result<RootCertStore, LoadError> {
    static ROOTS: OnceLock<Result<RootCertStore, String>> = OnceLock::new();
    ROOTS
        .get_or_init(|| {
            let found = rustls_native_certs::load_native_certs();
            let mut roots = RootCertStore::empty();
            let (added, _) = roots.add_parsable_certificates(found.certs);
            if added == 0 {
                let why = found.errors.first().map_or("none found".to_string(), |e| e.to_string());
                return Err(format!(
                    "no trusted root certificates on this system ({why}): give --cacert FILE or --insecure"
                ));
            }
            Ok(roots)
        })
        .clone()
        .map_err(LoadError::Tls)
}

/// The CA certificates of a PEM file.
fn roots_of(file: &std::path::Path) -> Result<RootCertStore, LoadError> {
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(pem_certs(file, "CA file")?);
    if added == 0 {
        return Err(LoadError::Tls(format!("CA file {}: no certificate in it", file.display())));
    }
    Ok(roots)
}

/// The name the TLS handshake sends and checks: the target's host name, or its address when it
/// is one. For our own subjects on a loopback address (any certificate) it stays `localhost`,
/// the name their certificates carry.
pub fn server_name(target: &Target) -> Result<ServerName<'static>, LoadError> {
    if target.verify == Verify::Any && target.host.parse::<std::net::IpAddr>().is_ok() {
        return Ok(ServerName::try_from("localhost").expect("valid name"));
    }
    ServerName::try_from(target.host.clone())
        .map_err(|e| LoadError::Tls(format!("`{}` as a server name: {e}", target.host)))
}

/// Handshakes over `io` with `target`'s server name and checks the server agreed to `alpn`.
pub async fn handshake<S: AsyncRead + AsyncWrite + Unpin>(
    target: &Target,
    io: S,
    alpn: &[u8],
) -> Result<TlsStream<S>, LoadError> {
    let connector = connector(alpn, target)?;
    let tls = connector.connect(server_name(target)?, io).await.map_err(|e| LoadError::Tls(e.to_string()))?;
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
