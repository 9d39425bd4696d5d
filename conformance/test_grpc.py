"""gRPC with grpcio, the C-core client: stubs generated from the service's .proto, and a client
that knows nothing but what server reflection tells it. Status codes as gRPC's table
(grpc/doc/statuscodes.md) gives them."""
import importlib
import json
import os
import subprocess
import sys
import tempfile
import unittest

import grpc
from google.protobuf import descriptor_pool, message_factory
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
from grpc_tools import protoc

import subjects

PROTO_DIR = os.path.join(subjects.ROOT, "subjects/protocols/rust/proto")
SERVICE = "wirebench.protocols.v1.Payloads"


def stubs():
    """payloads_pb2 and payloads_pb2_grpc, generated from the .proto as a user's build would."""
    out = tempfile.mkdtemp()
    code = protoc.main(["protoc", f"-I{PROTO_DIR}", f"--python_out={out}", f"--grpc_python_out={out}",
                        os.path.join(PROTO_DIR, "payloads.proto")])
    if code != 0:
        raise RuntimeError(f"protoc failed ({code})")
    sys.path.insert(0, out)
    return importlib.import_module("payloads_pb2"), importlib.import_module("payloads_pb2_grpc")


class Grpc(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pb, cls.rpc = stubs()
        cls.channel = grpc.insecure_channel(f"127.0.0.1:{subjects.grpc()}")
        cls.stub = cls.rpc.PayloadsStub(cls.channel)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()

    def test_every_call_mode_answers(self):
        self.assertEqual(len(self.stub.Unary(self.pb.PayloadRequest(size=1024), timeout=10).message), 1024)
        streamed = list(self.stub.ServerStream(self.pb.StreamRequest(size=10, count=3), timeout=10))
        self.assertEqual([len(p.message) for p in streamed], [10, 10, 10])
        summary = self.stub.ClientStream(iter([self.pb.Payload(message=b"ab"), self.pb.Payload(message=b"cde")]), timeout=10)
        self.assertEqual((summary.messages, summary.bytes), (2, 5))
        echoed = list(self.stub.Bidi(iter([self.pb.Payload(message=b"x" * 100)] * 3), timeout=10))
        self.assertEqual([p.message for p in echoed], [b"x" * 100] * 3)

    def test_status_codes_follow_grpcs_table(self):
        # INVALID_ARGUMENT: "the client specified an invalid argument" (a size of 0).
        with self.assertRaises(grpc.RpcError) as e:
            self.stub.Unary(self.pb.PayloadRequest(size=0), timeout=10)
        self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        # UNIMPLEMENTED: "the operation is not implemented or is not supported".
        unknown = self.channel.unary_unary(f"/{SERVICE}/Nothing", request_serializer=lambda b: b, response_deserializer=lambda b: b)
        with self.assertRaises(grpc.RpcError) as e:
            unknown(b"", timeout=10)
        self.assertEqual(e.exception.code(), grpc.StatusCode.UNIMPLEMENTED)
        # The server goes on serving.
        self.assertEqual(len(self.stub.Unary(self.pb.PayloadRequest(size=16), timeout=10).message), 16)

    def test_a_client_from_reflection_alone_can_call(self):
        # Server reflection (grpc/proposal A15): the service, its methods and their messages,
        # enough to build a request and read the answer without the .proto.
        db = ProtoReflectionDescriptorDatabase(self.channel)
        self.assertIn(SERVICE, db.get_services())
        pool = descriptor_pool.DescriptorPool(db)
        service = pool.FindServiceByName(SERVICE)
        self.assertEqual({m.name for m in service.methods}, {"Unary", "ServerStream", "ClientStream", "Bidi"})
        unary = service.FindMethodByName("Unary")
        request = message_factory.GetMessageClass(unary.input_type)
        answer = message_factory.GetMessageClass(unary.output_type)
        call = self.channel.unary_unary(f"/{SERVICE}/Unary", request_serializer=lambda m: m.SerializeToString(),
                                        response_deserializer=answer.FromString)
        self.assertEqual(len(call(request(size=64), timeout=10).message), 64)


if __name__ == "__main__":
    unittest.main()


class OurClientAgainstGrpcio(unittest.TestCase):
    """wirebench's grpc driver against grpcio's server (C-core's HTTP/2 and HPACK, not the Rust
    stack it is measured on): every call mode counts its messages and bytes, and a failed call's
    status is gRPC's code."""

    @classmethod
    def setUpClass(cls):
        from concurrent import futures

        pb, rpc = stubs()

        class Payloads(rpc.PayloadsServicer):
            def Unary(self, request, context):
                if request.size == 0:
                    context.abort(grpc.StatusCode.INVALID_ARGUMENT, "size must be at least 1")
                return pb.Payload(message=b"x" * request.size)

            def ServerStream(self, request, context):
                for _ in range(request.count):
                    yield pb.Payload(message=b"x" * request.size)

            def ClientStream(self, request_iterator, context):
                sizes = [len(p.message) for p in request_iterator]
                return pb.Summary(messages=len(sizes), bytes=sum(sizes))

            def Bidi(self, request_iterator, context):
                for p in request_iterator:
                    yield p

        cls.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        rpc.add_PayloadsServicer_to_server(Payloads(), cls.server)
        cls.port = cls.server.add_insecure_port("127.0.0.1:0")
        cls.server.start()
        cls.pb = pb

    @classmethod
    def tearDownClass(cls):
        cls.server.stop(None)

    def load(self, method, request, *args):
        with tempfile.NamedTemporaryFile(suffix=".binpb") as body:
            body.write(request.SerializeToString())
            body.flush()
            cmd = [os.path.join(subjects.BIN, "wirebench"), "load", f"http://127.0.0.1:{self.port}/{SERVICE}/{method}",
                   "--driver", "grpc", "--body-file", body.name, "-c", "2", "-m", "2", "-n", "40", "--json", *args]
            return subprocess.run(cmd, capture_output=True, text=True, timeout=60)

    def ok(self, method, request, *args):
        run = self.load(method, request, *args)
        self.assertEqual(run.returncode, 0, run.stderr)
        result = json.loads(run.stdout)
        self.assertEqual((result["requests"], result["errors"]), (40, 0), result)
        return result

    def test_every_call_mode_counts_messages_and_bytes(self):
        pb = self.pb
        # A Payload of 1,000 bytes is 1,003 bytes of protobuf (tag, two-byte length).
        unary = self.ok("Unary", pb.PayloadRequest(size=1000), "--expect-bytes", "1003")
        self.assertEqual(unary["messages"], 40)
        streamed = self.ok("ServerStream", pb.StreamRequest(size=100, count=5), "--param", "call=server_stream",
                           "--expect-bytes", str(5 * 102))
        self.assertEqual(streamed["messages"], 40 * 5)
        # The summary of 7 messages of 50 bytes: a tag and a varint each, 7 in one byte, 350 in two.
        summed = self.ok("ClientStream", pb.Payload(message=b"y" * 50), "--param", "call=client_stream",
                         "--param", "messages=7", "--expect-bytes", "5")
        self.assertEqual(summed["messages"], 40 * 7)
        echoed = self.ok("Bidi", pb.Payload(message=b"z" * 300), "--param", "call=bidi", "--param", "messages=6",
                         "--expect-bytes", str(6 * 303))
        self.assertEqual(echoed["messages"], 40 * 6)

    def test_a_failed_call_is_its_grpc_status(self):
        # INVALID_ARGUMENT is 3; grpcio sends it with grpc-message, in a Trailers-Only answer.
        run = self.load("Unary", self.pb.PayloadRequest(size=0))
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("status 3, expected 0", run.stderr)
        self.ok("Unary", self.pb.PayloadRequest(size=0), "--expect-status", "3")
