//! End-to-end checks of the gRPC binary through the instrument's `grpc` driver: all four call
//! modes over h2c and TLS with the suites' request files, bodies checked against the protobuf
//! encoding; malformed and out-of-range input answered with its status, then a good call; server
//! reflection; a taken port is a one-line error.

use prost::Message as _;
use sha2::{Digest, Sha256};
use wirebench_core::runner::{Executor, Target};
use wirebench_core::suite::{Expect, Scenario};
use wirebench_load::LoadEngine;

use protocols_rust::grpc::pb::{Payload, Summary};

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_protocols-grpc");
const SERVICE: &str = "/wirebench.protocols.v1.Payloads";

fn sha256_hex(b: &[u8]) -> String {
    Sha256::digest(b).iter().map(|b| format!("{b:02x}")).collect()
}

fn payload(size: usize) -> Vec<u8> {
    Payload { message: vec![b'x'; size].into() }.encode_to_vec()
}

/// A call of `method` sending `body_file` (under proto/messages/) with `params`.
fn call(method: &str, body_file: &str, params: &str, tls: bool) -> Scenario {
    let file = format!("{}/proto/messages/{body_file}", env!("CARGO_MANIFEST_DIR"));
    let text = format!(
        "id = \"t\"\nsubject = \"s\"\ndriver = \"grpc\"\ntls = {tls}\npath = \"{SERVICE}/{method}\"\n\
         body_file = \"{file}\"\nparams = {params}\nconnections = 1\nrequests = 1\nexpect = {{ status = 0 }}"
    );
    toml::from_str(&text).unwrap()
}

fn expect(s: &mut Scenario, status: u16, body: Option<&[u8]>, messages: u64) {
    s.expect = Expect {
        status,
        body_bytes: body.map(|b| b.len() as u64),
        body_sha256: body.map(sha256_hex),
        messages: Some(messages),
    };
}

#[test]
fn every_call_mode_answers_over_h2c_and_tls_and_bad_input_gets_its_status() {
    let (plain, secure) = (common::free_port(), common::free_port());
    let _server =
        common::start(BIN, &["--port", &plain.to_string(), "--tls-port", &secure.to_string(), "--workers", "1"], plain);
    for tls in [false, true] {
        let target = Target { host: "127.0.0.1".into(), port: if tls { secure } else { plain }, tls };
        let verify = |s: &Scenario| LoadEngine { threads: 1 }.verify(s, &target);

        let mut unary = call("Unary", "unary-1kb.binpb", "{}", tls);
        expect(&mut unary, 0, Some(&payload(1024)), 1);
        let mut big = call("Unary", "unary-1mb.binpb", "{}", tls);
        expect(&mut big, 0, Some(&payload(1 << 20)), 1);
        let mut server_stream = call("ServerStream", "server-stream-1kb.binpb", r#"{ call = "server_stream" }"#, tls);
        expect(&mut server_stream, 0, Some(&payload(1024).repeat(100)), 100);
        let mut client_stream =
            call("ClientStream", "payload-1kb.binpb", r#"{ call = "client_stream", messages = 7 }"#, tls);
        let summary = Summary { messages: 7, bytes: 7 * 1024 }.encode_to_vec();
        expect(&mut client_stream, 0, Some(&summary), 7);
        let mut bidi = call("Bidi", "payload-1kb.binpb", r#"{ call = "bidi", messages = 5 }"#, tls);
        expect(&mut bidi, 0, Some(&payload(1024).repeat(5)), 5);
        for s in [&unary, &big, &server_stream, &client_stream, &bidi] {
            verify(s).unwrap_or_else(|e| panic!("{} tls={tls}: {e}", s.path));
        }

        // (call, its gRPC status) then a good call: the server keeps serving.
        let mut not_protobuf = call("Unary", "unary-1kb.binpb", "{}", tls);
        not_protobuf.body_file = None;
        not_protobuf.body = Some("\u{7f}\u{7f}not protobuf".into());
        let mut no_size = call("Unary", "unary-1kb.binpb", "{}", tls);
        no_size.body_file = None;
        no_size.body = Some(String::new());
        let mut wrong_type = call("ServerStream", "payload-1kb.binpb", r#"{ call = "server_stream" }"#, tls);
        wrong_type.expect.messages = Some(0);
        let unknown = call("Nope", "unary-1kb.binpb", "{}", tls);
        let cases = [
            (not_protobuf, 13, "INTERNAL"),
            (no_size, 3, "INVALID_ARGUMENT"),
            (wrong_type, 13, "INTERNAL"),
            (unknown, 12, "UNIMPLEMENTED"),
        ];
        for (mut bad, status, name) in cases {
            expect(&mut bad, status, None, 0);
            verify(&bad).unwrap_or_else(|e| panic!("{} tls={tls}: want {name}: {e}", bad.path));
            verify(&unary).unwrap_or_else(|e| panic!("after {name}, tls={tls}: {e}"));
        }
    }
}

/// grpcurl's first call: list the services over the reflection stream, through the driver.
#[test]
fn reflection_lists_the_payloads_service() {
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    use tonic_reflection::pb::v1::{ServerReflectionRequest, ServerReflectionResponse};
    use wirebench_load::driver::RequestSpec;

    let port = common::free_port();
    let _server = common::start(BIN, &["--port", &port.to_string(), "--workers", "1"], port);
    let list = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let request = std::rc::Rc::new(RequestSpec {
        method: "POST".into(),
        path: "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo".into(),
        authority: format!("127.0.0.1:{port}"),
        headers: Vec::new(),
        body: list.encode_to_vec().into(),
        params: [("call".to_string(), serde_json::json!("bidi"))].into(),
    });
    let target = Target { host: "127.0.0.1".into(), port, tls: false };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let reply = tokio::task::LocalSet::new().block_on(&rt, async {
        let counters = std::rc::Rc::new(wirebench_load::io::Counters::default());
        let driver = (wirebench_load::driver("grpc").unwrap())();
        let mut channels = driver.connect(&target, &request, 1, &counters).await.unwrap();
        channels[0].exchange(true).await.unwrap()
    });
    assert_eq!((reply.status, reply.messages), (0, 1));
    let response = ServerReflectionResponse::decode(reply.body.unwrap().as_slice()).unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = response.message_response else {
        panic!("not a service list: {response:?}");
    };
    let names: Vec<&str> = list.service.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"wirebench.protocols.v1.Payloads"), "{names:?}");
}

#[test]
fn taken_ports_fail_with_one_line() {
    common::assert_taken_ports_fail(BIN);
}
