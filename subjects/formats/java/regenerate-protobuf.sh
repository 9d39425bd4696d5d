#!/usr/bin/env bash
# Regenerates src/generated/java from ../schema/datasets.proto with protoc of the same version as
# protobuf-java in pom.xml (Maven Central's protoc artifact, fetched by the `protoc` profile).
# ProtobufGeneratedCodeTest fails when the committed classes differ from what this writes.
set -euo pipefail
cd "$(dirname "$0")"
version=$(sed -n 's:.*<protobuf.version>\(.*\)</protobuf.version>.*:\1:p' pom.xml)
nice -n 19 mvn -q -B generate-test-resources
protoc="target/protoc/protoc-${version}-linux-x86_64.exe"
chmod +x "$protoc"
rm -rf src/generated/java
mkdir -p src/generated/java
"$protoc" --proto_path=../schema --java_out=src/generated/java ../schema/datasets.proto
echo "regenerated src/generated/java with protoc ${version}"
