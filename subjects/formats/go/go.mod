module wirebench/formats-go

go 1.26

require (
	github.com/fxamacker/cbor/v2 v2.10.0
	github.com/hamba/avro/v2 v2.31.0
	github.com/klauspost/compress v1.20.3
	// v5.4.0 and v5.4.1 preallocate whatever length a forged array header claims (vmihailenco/msgpack#401):
	// stay on v5.3.6 until a fixed release; the bad-input test fails on them.
	github.com/vmihailenco/msgpack/v5 v5.3.6
	go.mongodb.org/mongo-driver/v2 v2.10.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/go-viper/mapstructure/v2 v2.4.0 // indirect
	github.com/json-iterator/go v1.1.12 // indirect
	github.com/modern-go/concurrent v0.0.0-20180306012644-bacd9c7ef1dd // indirect
	github.com/modern-go/reflect2 v1.0.2 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
	github.com/x448/float16 v0.8.4 // indirect
)

tool google.golang.org/protobuf/cmd/protoc-gen-go
