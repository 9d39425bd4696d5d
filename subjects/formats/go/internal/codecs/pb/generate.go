// Package pb holds the Go types protoc-gen-go generates from schema/datasets.proto. The
// generated file is committed; regenerate it with `go generate ./...` from the module root (needs
// protoc: `apt-get install protobuf-compiler`). protoc-gen-go is built from go.mod's
// google.golang.org/protobuf, so the generator's version always matches the runtime's.
// pb_test.go fails when the committed file no longer matches the .proto.
package pb

//go:generate go build -o ../../../bin/protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go
//go:generate protoc --plugin=protoc-gen-go=../../../bin/protoc-gen-go -I ../../../../schema --go_out=. --go_opt=paths=source_relative --go_opt=Mdatasets.proto=wirebench/formats-go/internal/codecs/pb datasets.proto
