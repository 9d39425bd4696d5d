# wirebench — `make run` measures, `make test` checks. `make help` lists every target.
SHELL := /bin/bash
.DEFAULT_GOAL := help
CARGO ?= cargo
WIREBENCH := target/release/wirebench
# iproute2: `ip`, which sets up the routes of a network link (crates/link).
APT_PACKAGES := nghttp2-client wrk hyperfine chromium firefox-esr protobuf-compiler mosquitto postgresql iproute2 nginx-light apache2
# The formats lab's harnesses in other languages (subjects/formats/<lang>/).
FORMATS_GO := subjects/formats/go
DEPLOY_K8S := deploy/kubernetes
FORMATS_TS := subjects/formats/ts
FORMATS_JAVA := subjects/formats/java
MVN := mvn -q -B
# The realtime lab's app (Express + Socket.IO + ws).
REALTIME := subjects/realtime/node
# The REST service study's implementations in Go and Java (the Rust one is a workspace crate).
RESTCACHE_GO := subjects/restcache/go
RESTCACHE_JAVA := subjects/restcache/java

.PHONY: labs fetch conformance-venv image setup-image help setup setup-apt setup-web setup-ghz setup-oha setup-jmeter build instrument run smoke reproduce test test-steps test-rust test-web test-formats test-parse test-realtime test-restcache test-deploy conformance fuzz-restcache parse-page build-formats build-parse build-restcache build-wasm build-web wasm-reference bench lint fmt vectors fuzz docs schemas clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-12s %s\n", $$1, $$2}'

setup: setup-apt setup-web ## Install what is missing (idempotent): Debian packages, npm packages

setup-apt:
	@# `dpkg -s` also succeeds for a removed package whose configuration files remain.
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q ' installed$$' || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

setup-web:
	@# Each installs again whenever its lock file is newer than what node_modules holds.
	@for dir in web $(FORMATS_TS) $(REALTIME); do scripts/npm-ci-if-stale $$dir; done

build: setup ## Build the instrument and what every suite needs (each language's tool skips what is current)
	@# The whole workspace in one cargo invocation first, so one binary's link overlaps the other
	@# crates' compiles; the suites' `cargo build -p` steps then find every crate built (decision 0025).
	$(CARGO) build --release --locked --workspace
	$(WIREBENCH) build

# The instrument alone: crates/workspace-hack pins every dependency's features to the whole
# workspace's, so each package builds alone into the binary a workspace build makes, and
# switching between them rebuilds nothing (decision 0025). `wirebench build <suite>` then builds
# what that suite's rows need, from the subjects' declarations (subjects/**/subject.toml,
# **/harness.toml) and the suites' harness rows.
instrument:
	$(CARGO) build --release --locked -p wirebench

build-formats: instrument ## Build the formats lab's Rust, Go, Java and TypeScript harnesses
	$(WIREBENCH) build formats

build-parse: instrument ## Build the parse lab's servers (Java, Rust optimised and not) and its browser and Node pages
	$(WIREBENCH) build parse

build-restcache: instrument ## Build the REST service study's Go, Java (Jetty and Tomcat) and Rust servers and restcache-fill
	$(WIREBENCH) build restcache

build-wasm: ## Build the wasm lab's WebAssembly module (plain and SIMD) and its JS glue; installs the wasm32 target and wasm-bindgen-cli
	subjects/wasm/build-wasm.sh

wasm-reference: ## Regenerate the wasm lab's native reference results (subjects/wasm/reference.json)
	$(CARGO) run --release --locked -p wasm-kernels --bin wasm-kernels-native -- reference > subjects/wasm/reference.json

build-web: build-wasm ## Build the browser labs' pages (web/dist) and their Node rows (web/dist-node)
	web/build.sh

parse-page: build ## The parse lab's browser page, by hand: both servers and the page on loopback; prints the URL
	subjects/parse/serve-page.sh

run: ## A first report: the protocols suite's brief profile (3 repeats, a fifth of quick's durations), building only what it needs; prints the report's path
	@# The MQTT rows' broker, and protoc for the gRPC server's build script.
	@$(MAKE) --no-print-directory setup-apt APT_PACKAGES="mosquitto protobuf-compiler"
	@# The instrument and the protocols lab's servers the brief profile's rows run (the package
	@# `wirebench build protocols --profile brief` builds: not rumqttd's; a test keeps the two the
	@# same) in one cargo invocation, so one binary's link runs on one core while the other
	@# compiles. One after the other took 4 min 22 s + 2 min 34 s.
	$(CARGO) build --release --locked -p wirebench -p protocols-rust
	$(WIREBENCH) run protocols --profile brief

smoke: build ## Run the seconds-long smoke suite
	$(WIREBENCH) run smoke --no-build

# `make test`'s parts in order; .ci/run times each on its own so a CI log shows where the minutes go.
TEST_STEPS := setup build test-rust test-formats test-parse test-realtime test-restcache test-web test-deploy

test: $(TEST_STEPS) ## Every test: Rust (the parse, realtime and wasm labs' smoke runs in Chromium, the REST service contract on every implementation and store included), the formats harnesses, the Java, Go and Node servers, browser report test, the Kubernetes manifests (offline)

test-steps:
	@echo $(TEST_STEPS)

# --release: the tests link the dependencies `make build` compiled, and run its binaries; a debug
# tree would compile all of them a second time (decision 0026).
test-rust:
	$(CARGO) test --workspace --locked --release

test-web:
	cd web && node --test tests/

test-parse: ## The parse lab's Java server: its API contract, bad input, versions
	cd subjects/parse/java && $(MVN) test

test-realtime: ## The realtime lab's app: HTTP, Socket.IO, WebSocket, TLS, bad input
	cd $(REALTIME) && npm test --silent

test-restcache: ## The REST service study's Go and Java servers' own tests (the shared contract runs in test-rust)
	cd $(RESTCACHE_GO) && go test ./...
	cd $(RESTCACHE_JAVA) && $(MVN) test

conformance: build conformance-venv ## Stock clients of each protocol against its subjects (httpx/h2, aioquic, websockets, graphql-core, zeep, paho-mqtt, grpcio, an SSE parser from the WHATWG algorithm), each test naming the spec statement it checks
	cd conformance && .venv/bin/python -m unittest discover -v 2>&1

conformance-venv:
	@[ -x conformance/.venv/bin/python ] || python3 -m venv conformance/.venv
	@conformance/.venv/bin/pip install -q --disable-pip-version-check -r conformance/requirements.txt

# The Java builds' libraries and plugins from Maven Central and conformance's PyPI packages,
# nothing compiled. On a fresh machine the Java builds took 111 s of `make build` and 38 s after
# this fetch (2-core Intel VM; go-offline leaves a few plugins' own dependencies and formats'
# protoc to the build), and the packages 27 s of `make conformance`: all waiting on the network,
# so .ci/run fetches them while `make lint` compiles. The formats lab's own jar, which the parse
# server depends on, is installed by the build.
GO_OFFLINE := org.apache.maven.plugins:maven-dependency-plugin:3.9.0:go-offline
fetch: conformance-venv ## Download what the Java builds and `make conformance` would fetch (Maven's libraries and plugins, PyPI's packages), compiling nothing
	cd $(FORMATS_JAVA) && $(MVN) $(GO_OFFLINE)
	cd subjects/parse/java && $(MVN) $(GO_OFFLINE) -DexcludeGroupIds=wirebench
	cd $(RESTCACHE_JAVA) && $(MVN) $(GO_OFFLINE)

# Debian's buildah (no daemon, vfs storage as root) and musl-gcc for ring's and mimalloc's C.
setup-image:
	@$(MAKE) --no-print-directory setup-apt APT_PACKAGES="buildah musl-tools"

image: setup-image ## The worker image: wirebench static (musl) FROM scratch, checked by running it from the image; target/wirebench-worker.oci.tar
	deploy/image.sh

test-deploy: ## The Kubernetes manifests rendered for 1, 4 and 16 workers and decoded strictly into the API types (no cluster needed)
	cd $(DEPLOY_K8S) && go test ./...

fuzz-restcache: build-restcache ## Fuzz every REST service implementation against its OpenAPI document (Schemathesis from PyPI, installed once; not in CI)
	subjects/restcache/fuzz.sh

test-formats: ## The formats harnesses' tests: vectors, round trips, bad input, CLI (Go, Java, TypeScript)
	cd $(FORMATS_GO) && go test ./...
	cd $(FORMATS_TS) && npm test --silent
	cd $(FORMATS_JAVA) && $(MVN) test

reproduce: build ## Run protocols' brief profile twice idle and once beside a busy process, and print how far the runs agree (bench/reproduce)
	bench/reproduce

labs: build ## Run every lab's committed run again at this clean revision into docs/labs/results (bench/labs; about 4.5 h on the slower 2-core host, restcache 2.25 h of it; LABS="restcache" for some), then `make docs`
	bench/labs $(LABS)

bench: setup build setup-ghz setup-oha setup-jmeter ## The instrument against h2load, wrk, ghz, oha (HTTP/3) and JMeter (a thread group) on the same subjects: prints ratios
	bench/peers

# Apache JMeter (the thread-group peer) from Maven Central, laid out as its distribution in
# bench/jmeter/target/jmeter, only for `make bench`.
setup-jmeter:
	@[ -f bench/jmeter/target/jmeter/bin/ApacheJMeter.jar ] || $(MVN) -q -f bench/jmeter/pom.xml package

# oha with HTTP/3 (the h3 peer) from crates.io, only for `make bench`: about ten minutes to build.
OHA_VERSION := 1.16.0
setup-oha:
	@command -v oha >/dev/null || [ -x "$$HOME/.cargo/bin/oha" ] || $(CARGO) install oha --version $(OHA_VERSION) --locked --features http3

# ghz (the gRPC peer) from the Go module proxy, only for `make bench`.
GHZ_VERSION := v0.120.0
setup-ghz:
	@command -v ghz >/dev/null || [ -x "$$(go env GOPATH)/bin/ghz" ] || go install github.com/bojand/ghz/cmd/ghz@$(GHZ_VERSION)

# Clippy -D warnings on every target. --release: a check shares the build scripts' runs
# (SQLite's, zstd's, ring's and mimalloc's C) and the proc macros with the release build `make
# build` and `make test` compile. Fresh target/: 294 s in the dev profile, 57 s after `cargo test
# --release` built the rest. CI passes CLIPPY=scripts/clippy-in-build: the lints inside that
# build, so the dependencies are not compiled a second time for a check (decision 0026).
CLIPPY := $(CARGO) clippy --workspace --all-targets --locked --release -- -D warnings
lint: setup-web ## rustfmt, clippy -D warnings, tsc --noEmit
	@# protocols-rust's build script compiles its .proto files with protoc, even under clippy.
	@$(MAKE) --no-print-directory setup-apt APT_PACKAGES=protobuf-compiler
	$(CARGO) fmt --all --check
	$(CLIPPY)
	@# The wasm lab's module is compiled only for wasm32: lint it there too, when the target is installed.
	@# --release, as above, into the directory the plain wasm build (subjects/wasm/build-wasm.sh)
	@# uses. From an empty one, 2-core Intel VM, twice each: the check 65-70 s in the dev profile,
	@# 20-21 s in release; the plain build after it 24-28 s, 14-15 s; 89-97 s in all, 34-36 s.
	@if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then \
	  echo "cargo clippy --release --target wasm32-unknown-unknown -p wasm-kernels"; \
	  CARGO_TARGET_DIR=target/wasm-plain $(CARGO) clippy --locked --release --target wasm32-unknown-unknown -p wasm-kernels --lib -- -D warnings; fi
	cd web && npx tsc --noEmit
	@cd $(FORMATS_GO) && out=$$(gofmt -l .) && { [ -z "$$out" ] || { echo "gofmt: not formatted: $$out"; exit 1; }; }
	cd $(FORMATS_GO) && go vet ./...
	@cd $(RESTCACHE_GO) && out=$$(gofmt -l .) && { [ -z "$$out" ] || { echo "gofmt: not formatted: $$out"; exit 1; }; }
	cd $(RESTCACHE_GO) && go vet ./...
	@cd $(DEPLOY_K8S) && out=$$(gofmt -l .) && { [ -z "$$out" ] || { echo "gofmt: not formatted: $$out"; exit 1; }; }
	cd $(DEPLOY_K8S) && go vet ./...
	cd $(FORMATS_TS) && npm run --silent lint

fmt: ## Format the Rust code
	$(CARGO) fmt --all

vectors: ## Regenerate the formats lab's wire schemas (.proto, .avsc), golden vectors and bad-input corpus
	$(CARGO) run --release --locked -p formats-rust -- schemas --write subjects/formats/schema
	$(CARGO) run --release --locked -p formats-rust -- vectors --write subjects/formats/vectors

FUZZ_SECONDS ?= 60
fuzz: ## Fuzz every Rust decoder for FUZZ_SECONDS each (nightly + cargo-fuzz; not in CI)
	@command -v cargo-fuzz >/dev/null || $(CARGO) install cargo-fuzz --locked
	subjects/formats/rust/fuzz/run $(FUZZ_SECONDS)

docs: ## Regenerate the documents' generated blocks (numbers from docs/labs/results/) after a run is committed there
	WIREBENCH_BLESS=1 $(CARGO) test --release -p wirebench --locked --test docs

schemas: ## Regenerate schemas/*.json from the Rust types
	WIREBENCH_BLESS=1 $(CARGO) test --release -p wirebench-core --lib committed_schemas_are_up_to_date
	WIREBENCH_BLESS=1 $(CARGO) test --release -p wirebench-report --lib the_committed_schema_is_up_to_date

clean: ## Remove build outputs and results
	rm -rf target results web/node_modules web/dist web/dist-node subjects/parse/java/target
