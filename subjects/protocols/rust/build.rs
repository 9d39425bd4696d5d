//! Generates the gRPC service from `proto/payloads.proto` (protoc from `make setup`) and the
//! descriptor set that server reflection serves.

fn main() -> std::io::Result<()> {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    tonic_prost_build::configure()
        .build_client(false)
        // `Payload.message` as `bytes::Bytes`: the server answers every call from one buffer.
        .bytes(".wirebench.protocols.v1.Payload.message")
        .file_descriptor_set_path(out.join("payloads_descriptor.bin"))
        .compile_protos(&["proto/payloads.proto"], &["proto"])
}
