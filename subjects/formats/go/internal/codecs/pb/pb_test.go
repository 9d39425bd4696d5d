package pb

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"

	"wirebench/formats-go/internal/dataset"
)

func protoPath(t *testing.T) string {
	t.Helper()
	dir, err := dataset.SchemaDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "datasets.proto")
}

const regenerate = "the committed datasets.pb.go is stale: run `go generate ./...` in subjects/formats/go"

var (
	messageLine = regexp.MustCompile(`^message\s+(\w+)\s*\{$`)
	fieldLine   = regexp.MustCompile(`^(repeated\s+)?(\w+)\s+(\w+)\s*=\s*(\d+)\s*(?:\[\s*json_name\s*=\s*"([^"]*)"\s*\])?\s*;$`)
)

// describeProto lists datasets.proto's messages and fields as "Message.field = N type [repeated]
// json=name" lines, from the text (this file's schema needs only messages and scalar, message and
// repeated fields; anything else fails the parse rather than being skipped).
func describeProto(t *testing.T, text string) []string {
	t.Helper()
	var lines []string
	var message string
	for n, raw := range strings.Split(text, "\n") {
		line, _, _ := strings.Cut(raw, "//")
		line = strings.TrimSpace(line)
		switch {
		case line == "", strings.HasPrefix(line, "syntax"), strings.HasPrefix(line, "package"):
		case messageLine.MatchString(line):
			message = messageLine.FindStringSubmatch(line)[1]
		case line == "}":
			message = ""
		case message != "" && fieldLine.MatchString(line):
			m := fieldLine.FindStringSubmatch(line)
			jsonName := m[5]
			if jsonName == "" {
				jsonName = camelCase(m[3])
			}
			lines = append(lines, field(message, m[3], m[4], m[2], m[1] != "", jsonName))
		default:
			t.Fatalf("datasets.proto:%d: this test cannot parse %q: extend describeProto", n+1, raw)
		}
	}
	return lines
}

// camelCase is protoc's default json_name: underscores dropped, the letter after one upper-cased.
func camelCase(name string) string {
	var b strings.Builder
	upper := false
	for _, c := range name {
		switch {
		case c == '_':
			upper = true
		case upper:
			b.WriteString(strings.ToUpper(string(c)))
			upper = false
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

func field(message, name, number, typ string, repeated bool, jsonName string) string {
	label := ""
	if repeated {
		label = " repeated"
	}
	return fmt.Sprintf("%s.%s = %s %s%s json=%s", message, name, number, typ, label, jsonName)
}

// describeGenerated lists the same from the descriptor compiled into datasets.pb.go.
func describeGenerated() []string {
	var lines []string
	messages := File_datasets_proto.Messages()
	for i := range messages.Len() {
		md := messages.Get(i)
		fields := md.Fields()
		for j := range fields.Len() {
			fd := fields.Get(j)
			typ := fd.Kind().String()
			if fd.Kind() == protoreflect.MessageKind {
				typ = string(fd.Message().Name())
			}
			lines = append(lines, field(string(md.Name()), string(fd.Name()), fmt.Sprint(fd.Number()), typ,
				fd.Cardinality() == protoreflect.Repeated, fd.JSONName()))
		}
	}
	return lines
}

// The descriptor compiled into datasets.pb.go has exactly the messages and fields of
// schema/datasets.proto. Runs without protoc.
func TestGeneratedCodeMatchesTheProtoFile(t *testing.T) {
	text, err := os.ReadFile(protoPath(t))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(describeProto(t, string(text)), "\n")
	got := strings.Join(describeGenerated(), "\n")
	if got != want {
		t.Fatalf("%s\nfrom datasets.pb.go:\n%s\nfrom datasets.proto:\n%s", regenerate, got, want)
	}
	if pkg := File_datasets_proto.Package(); !strings.Contains(string(text), "package "+string(pkg)+";") {
		t.Fatalf("%s: package %s", regenerate, pkg)
	}
}

// Re-runs the go:generate commands into a temporary directory and compares the output with the
// committed file byte for byte, ignoring the line naming protoc's version. Skipped without protoc.
func TestGeneratedCodeIsWhatProtocGenerates(t *testing.T) {
	protoc, err := exec.LookPath("protoc")
	if err != nil {
		t.Skip("protoc is not installed (apt-get install protobuf-compiler): only the descriptor check ran")
	}
	if testing.Short() {
		t.Skip("-short: skipped building protoc-gen-go")
	}
	tmp := t.TempDir()
	plugin := filepath.Join(tmp, "protoc-gen-go")
	build := exec.Command("go", "build", "-o", plugin, "google.golang.org/protobuf/cmd/protoc-gen-go")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building protoc-gen-go: %v\n%s", err, out)
	}
	schemaDir := filepath.Dir(protoPath(t))
	gen := exec.Command(protoc, "--plugin=protoc-gen-go="+plugin, "-I", schemaDir, "--go_out="+tmp,
		"--go_opt=paths=source_relative", "--go_opt=Mdatasets.proto=wirebench/formats-go/internal/codecs/pb",
		"datasets.proto")
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, out)
	}
	fresh, err := os.ReadFile(filepath.Join(tmp, "datasets.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("datasets.pb.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(withoutProtocVersion(fresh), withoutProtocVersion(committed)) {
		t.Fatal(regenerate)
	}
}

// withoutProtocVersion drops the "// \tprotoc  vX" header line: another Debian release's protoc
// generates the same code under a different version line.
func withoutProtocVersion(code []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(code, []byte("\n")) {
		if !bytes.HasPrefix(line, []byte("// \tprotoc ")) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}
