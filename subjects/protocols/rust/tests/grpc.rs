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
    let (plain, secure) = common::two_free_ports();
    let _server =
        common::start(BIN, &["--port", &plain.to_string(), "--tls-port", &secure.to_string(), "--workers", "1"], plain);
    for tls in [false, true] {
        let target =
            Target { host: "127.0.0.1".into(), port: if tls { secure } else { plain }, tls, ..Target::default() };
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
    let target = Target { host: "127.0.0.1".into(), port, tls: false, ..Target::default() };
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

/// One limit for every message either way, stated (`MESSAGE_MAX`): Bidi echoes the largest
/// payload Unary can send, and a message over the limit is RESOURCE_EXHAUSTED (the gRPC status
/// table) in every call mode, where tonic alone answers OUT_OF_RANGE.
#[test]
fn the_largest_payload_goes_both_ways_and_a_larger_message_is_resource_exhausted() {
    use protocols_rust::grpc::MESSAGE_MAX;
    use protocols_rust::routes::PAYLOAD_MAX;
    let plain = common::free_port();
    let _server = common::start(BIN, &["--port", &plain.to_string(), "--workers", "1"], plain);
    let target = Target { host: "127.0.0.1".into(), port: plain, tls: false, ..Target::default() };
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    };
    let largest = payload(PAYLOAD_MAX);
    assert!(largest.len() <= MESSAGE_MAX);
    let over = payload(PAYLOAD_MAX + 2);
    assert!(over.len() > MESSAGE_MAX);
    let with = |method: &str, body_file: String, params: &str| {
        let mut s = call(method, "unary-1kb.binpb", params, false);
        s.body_file = Some(body_file);
        s
    };
    let verify = |s: &Scenario| LoadEngine { threads: 1 }.verify(s, &target);
    let mut echo = with("Bidi", file("largest.binpb", &largest), r#"{ call = "bidi", messages = 1 }"#);
    expect(&mut echo, 0, Some(&largest), 1);
    verify(&echo).unwrap_or_else(|e| panic!("Bidi echoes {} bytes: {e}", largest.len()));
    let over_file = file("over.binpb", &over);
    let mut cases = vec![
        with("Unary", file("junk.binpb", &vec![0x7f; MESSAGE_MAX + 1]), "{}"),
        with("Bidi", over_file.clone(), r#"{ call = "bidi", messages = 1 }"#),
        with("ClientStream", over_file, r#"{ call = "client_stream", messages = 1 }"#),
    ];
    let mut unary = call("Unary", "unary-1kb.binpb", "{}", false);
    expect(&mut unary, 0, Some(&payload(1024)), 1);
    for bad in &mut cases {
        // A client stream's calls count the messages it sent; the others', those it got back.
        let sent = u64::from(bad.path.ends_with("ClientStream"));
        expect(bad, 8, None, sent);
        verify(bad).unwrap_or_else(|e| panic!("{}: want RESOURCE_EXHAUSTED: {e}", bad.path));
        verify(&unary).unwrap_or_else(|e| panic!("after {}: {e}", bad.path));
    }
}
