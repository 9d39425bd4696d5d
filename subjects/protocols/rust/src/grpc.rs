//! gRPC with tonic and prost (as the study): the `Payloads` service of `proto/payloads.proto` over
//! h2c on the cleartext port and h2 over TLS on the other, with server reflection (v1 and
//! v1alpha, for grpcurl and IDEs) and an HTTP/1.1 `GET /health` for the runner's readiness check.
//!
//! Bad input is answered with a status, never a crash: an out-of-range size or count is
//! INVALID_ARGUMENT; bytes that are not the method's protobuf message are INTERNAL (tonic's
//! decoder, as the gRPC spec's status table has it for a failed parse); a message over
//! `MESSAGE_MAX` either way is RESOURCE_EXHAUSTED; an unknown method is UNIMPLEMENTED.

use std::pin::Pin;

use anyhow::Context as _;
use bytes::Bytes;
use tokio_stream::Stream;
use tokio_stream::StreamExt as _;
use tonic::service::Routes;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Identity, Server, ServerTlsConfig};
use tonic::{Code, Request, Response, Status, Streaming};

use crate::cli::Cli;
use crate::routes::{message_bytes, PAYLOAD_MAX};

/// The generated messages and server, and the descriptor set reflection serves.
pub mod pb {
    tonic::include_proto!("wirebench.protocols.v1");
    pub const DESCRIPTOR: &[u8] = tonic::include_file_descriptor_set!("payloads_descriptor");
}

use pb::payloads_server::{Payloads, PayloadsServer};
use pb::{Payload, PayloadRequest, StreamRequest, Summary};

/// The largest message a call carries either way: the largest payload with its protobuf framing
/// (a one-byte tag and a length of at most five bytes), so whatever Unary sends, Bidi can echo
/// and ClientStream can receive (tonic's default is 4 MiB in, unlimited out).
pub const MESSAGE_MAX: usize = PAYLOAD_MAX + 6;

/// tonic's codec reports a message over the limit as OUT_OF_RANGE; the gRPC status table
/// (grpc/doc/statuscodes.md) gives RESOURCE_EXHAUSTED for it, as grpc-core, grpc-java and grpc-go
/// answer.
fn exhausted(status: Status) -> Status {
    if status.code() == Code::OutOfRange && status.message().contains("message length too large") {
        Status::resource_exhausted(status.message())
    } else {
        status
    }
}

/// `exhausted` for the answers tonic writes itself, before a handler runs (a unary request over
/// the limit): their status is in the headers of a trailers-only response, percent-encoded.
async fn exhausted_in_headers(mut response: axum::response::Response) -> axum::response::Response {
    let headers = response.headers_mut();
    let too_large = headers.get("grpc-status").is_some_and(|s| s == "11")
        && headers
            .get("grpc-message")
            .and_then(|m| m.to_str().ok())
            .is_some_and(|m| m.contains("length%20too%20large"));
    if too_large {
        headers.insert("grpc-status", axum::http::HeaderValue::from_static("8"));
    }
    response
}

/// Messages one server-streaming call may ask for (the REST `/stream` route's limit).
pub const STREAM_MAX_COUNT: u32 = crate::routes::STREAM_MAX_CHUNKS as u32;

type PayloadStream = Pin<Box<dyn Stream<Item = Result<Payload, Status>> + Send>>;

/// Serves the `Payloads` service; stateless.
#[derive(Debug, Default, Clone, Copy)]
pub struct PayloadService;

/// A Payload of `size` bytes, sharing the message cache REST, GraphQL and SOAP answer from.
pub fn payload(size: u32) -> Result<Payload, Status> {
    let size = size as usize;
    if !(1..=PAYLOAD_MAX).contains(&size) {
        return Err(Status::invalid_argument(format!("size must be 1 to {PAYLOAD_MAX}, got {size}")));
    }
    Ok(Payload { message: message_bytes(size) })
}

#[tonic::async_trait]
impl Payloads for PayloadService {
    async fn unary(&self, request: Request<PayloadRequest>) -> Result<Response<Payload>, Status> {
        payload(request.into_inner().size).map(Response::new)
    }

    type ServerStreamStream = PayloadStream;

    async fn server_stream(&self, request: Request<StreamRequest>) -> Result<Response<PayloadStream>, Status> {
        let StreamRequest { size, count } = request.into_inner();
        let payload = payload(size)?;
        if !(1..=STREAM_MAX_COUNT).contains(&count) {
            return Err(Status::invalid_argument(format!("count must be 1 to {STREAM_MAX_COUNT}, got {count}")));
        }
        let messages = std::iter::repeat_n(payload, count as usize).map(Ok);
        Ok(Response::new(Box::pin(tokio_stream::iter(messages))))
    }

    async fn client_stream(&self, request: Request<Streaming<Payload>>) -> Result<Response<Summary>, Status> {
        let mut stream = request.into_inner();
        let mut summary = Summary::default();
        while let Some(p) = stream.message().await.map_err(exhausted)? {
            summary.messages += 1;
            summary.bytes += p.message.len() as u64;
        }
        Ok(Response::new(summary))
    }

    type BidiStream = PayloadStream;

    async fn bidi(&self, request: Request<Streaming<Payload>>) -> Result<Response<PayloadStream>, Status> {
        // Each message goes back as it is decoded; a decoding error ends the call with its status.
        Ok(Response::new(Box::pin(request.into_inner().map(|m| m.map_err(exhausted)))))
    }
}

/// Every route the server answers: the service, reflection, and `GET /health`.
pub fn routes() -> anyhow::Result<Routes> {
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::DESCRIPTOR)
        .build_v1()
        .context("building server reflection")?;
    let reflection_alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(pb::DESCRIPTOR)
        .build_v1alpha()
        .context("building server reflection")?;
    let service = PayloadsServer::new(PayloadService)
        .max_decoding_message_size(MESSAGE_MAX)
        .max_encoding_message_size(MESSAGE_MAX);
    let grpc = Routes::new(service).add_service(reflection).add_service(reflection_alpha);
    let router = grpc.into_axum_router().layer(axum::middleware::map_response(exhausted_in_headers));
    Ok(router.route("/health", axum::routing::get(|| async { "ok" })).into())
}

/// Serves on a multi-threaded runtime of `cli.workers()` threads until the process is stopped.
pub fn run(cli: &Cli) -> anyhow::Result<()> {
    cli.runtime().context("starting the runtime")?.block_on(serve(cli))
}

async fn serve(cli: &Cli) -> anyhow::Result<()> {
    let routes = routes()?;
    let host = cli.host.as_str();
    let plain = bind(host, cli.port).await?;
    // HTTP/1.1 is accepted only so the runner's readiness GET reaches /health; gRPC is h2.
    let mut cleartext = Server::builder().accept_http1(true);
    let cleartext = cleartext.add_routes(routes.clone()).serve_with_incoming(plain);
    let Some(tls_port) = cli.tls_port else {
        return cleartext.await.context("server stopped with an error");
    };
    let tls = bind(host, tls_port).await?;
    let key = crate::tls::self_signed()?;
    let identity = Identity::from_pem(key.cert.pem(), key.signing_key.serialize_pem());
    let mut secure =
        Server::builder().tls_config(ServerTlsConfig::new().identity(identity)).context("loading the certificate")?;
    let secure = secure.add_routes(routes).serve_with_incoming(tls);
    tokio::try_join!(cleartext, secure).context("server stopped with an error")?;
    Ok(())
}

/// Binds a listener with Nagle off (HEADERS, DATA and trailers are separate writes).
async fn bind(host: &str, port: u16) -> anyhow::Result<TcpIncoming> {
    Ok(TcpIncoming::from(crate::bind(host, port).await?).with_nodelay(Some(true)))
}

/// The request messages the suites send (`body_file`), by file name under `proto/messages/`:
/// the protobuf encoding of each, which a test keeps the files equal to.
pub fn request_messages() -> Vec<(&'static str, Vec<u8>)> {
    use prost::Message as _;
    let payload = |size: usize| Payload { message: Bytes::from(vec![b'x'; size]) }.encode_to_vec();
    vec![
        ("unary-1kb.binpb", PayloadRequest { size: 1024 }.encode_to_vec()),
        ("unary-1mb.binpb", PayloadRequest { size: 1 << 20 }.encode_to_vec()),
        ("server-stream-1kb.binpb", StreamRequest { size: 1024, count: 100 }.encode_to_vec()),
        ("server-stream-1mb.binpb", StreamRequest { size: 1 << 20, count: 10 }.encode_to_vec()),
        ("payload-1kb.binpb", payload(1024)),
        ("payload-1mb.binpb", payload(1 << 20)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `WIREBENCH_BLESS=1 cargo test -p protocols-rust` writes the files after a change.
    #[test]
    fn request_message_files_are_the_protos_encoding() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("proto/messages");
        let bless = std::env::var_os("WIREBENCH_BLESS").is_some();
        for (name, bytes) in request_messages() {
            let path = dir.join(name);
            if bless {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, &bytes).unwrap();
            }
            let on_disk = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(on_disk == bytes, "{name} differs from its encoding: run with WIREBENCH_BLESS=1");
        }
    }

    #[tokio::test]
    async fn sizes_and_counts_out_of_range_are_invalid_arguments() {
        let s = PayloadService;
        let m = s.unary(Request::new(PayloadRequest { size: 3 })).await.unwrap().into_inner();
        assert_eq!(&m.message[..], b"xxx");
        for size in [0, PAYLOAD_MAX as u32 + 1] {
            let e = s.unary(Request::new(PayloadRequest { size })).await.unwrap_err();
            assert_eq!(e.code(), tonic::Code::InvalidArgument, "{size}");
        }
        for count in [0, STREAM_MAX_COUNT + 1] {
            let e = s.server_stream(Request::new(StreamRequest { size: 1, count })).await.err().unwrap();
            assert_eq!(e.code(), tonic::Code::InvalidArgument, "{count}");
        }
        let stream = s.server_stream(Request::new(StreamRequest { size: 2, count: 3 })).await.unwrap().into_inner();
        let got: Vec<_> = tokio_stream::StreamExt::collect::<Vec<_>>(stream).await;
        assert_eq!(got.len(), 3);
        assert!(got.iter().all(|p| p.as_ref().is_ok_and(|p| &p.message[..] == b"xx")));
    }
}
