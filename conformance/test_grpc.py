"""gRPC with grpcio, the C-core client: stubs generated from the service's .proto, and a client
that knows nothing but what server reflection tells it. Status codes as gRPC's table
(grpc/doc/statuscodes.md) gives them."""
import importlib
import os
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
