"""HTTP/3 with aioquic, another QUIC and HTTP/3 stack than the subject's (quinn, h3): the same
RFC 9110 statements as test_http, over RFC 9114."""
import asyncio
import ssl
import unittest

from aioquic.asyncio.client import connect
from aioquic.asyncio.protocol import QuicConnectionProtocol
from aioquic.h3.connection import H3_ALPN, H3Connection
from aioquic.h3.events import DataReceived, HeadersReceived
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.events import StreamDataReceived

import subjects


class H3Client(QuicConnectionProtocol):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.http = H3Connection(self._quic)
        self.waiting = {}
        self.answers = {}

    def quic_event_received(self, event):
        for e in self.http.handle_event(event):
            self.h3_event(e)
        # aioquic does not report a stream's end that comes after a reserved (GREASE) frame,
        # which RFC 9114 §7.2.8 lets a server send and h3 does (aiortc/aioquic#565, open):
        # the QUIC event still says the stream ended.
        if isinstance(event, StreamDataReceived) and event.end_stream and event.stream_id in self.waiting:
            self.waiting.pop(event.stream_id).set_result(self.answers.pop(event.stream_id, [None, {}, b""]))

    def h3_event(self, e):
        if not isinstance(e, (HeadersReceived, DataReceived)):
            return
        answer = self.answers.setdefault(e.stream_id, [None, {}, b""])
        if isinstance(e, HeadersReceived):
            fields = {k.decode(): v.decode() for k, v in e.headers}
            answer[0] = int(fields.pop(":status"))
            answer[1] = fields
        else:
            answer[2] += e.data
        if e.stream_ended and e.stream_id in self.waiting:
            self.waiting.pop(e.stream_id).set_result(self.answers.pop(e.stream_id))

    async def request(self, method, path, port, body=b""):
        stream = self._quic.get_next_available_stream_id()
        headers = [(b":method", method.encode()), (b":scheme", b"https"),
                   (b":authority", f"127.0.0.1:{port}".encode()), (b":path", path.encode())]
        self.http.send_headers(stream, headers, end_stream=not body)
        if body:
            self.http.send_data(stream, body, end_stream=True)
        done = self._loop.create_future()
        self.waiting[stream] = done
        self.transmit()
        return await asyncio.wait_for(done, 10)


def calls(*requests):
    """The answers (status, headers, body) to each (method, path[, body]) on one connection."""
    _, port = subjects.rest()
    config = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN)
    config.verify_mode = ssl.CERT_NONE  # the subject's certificate is self-signed

    async def run():
        async with connect("127.0.0.1", port, configuration=config, create_protocol=H3Client) as client:
            return [await client.request(*r[:2], port, *r[2:]) for r in requests]

    return asyncio.run(run())


class H3(unittest.TestCase):
    def test_get_and_head(self):
        (get_status, get_headers, body), (head_status, head_headers, head_body) = calls(
            ("GET", "/payload/1024"), ("HEAD", "/payload/1024"))
        self.assertEqual((get_status, len(body)), (200, 1024))
        # RFC 9110 §9.3.2: HEAD sends GET's header fields and no content.
        self.assertEqual((head_status, head_body), (200, b""))
        self.assertEqual(head_headers.get("content-length"), get_headers.get("content-length"))

    def test_a_method_not_allowed_says_which_are(self):
        # RFC 9110 §15.5.6, over HTTP/3 as over TCP: 405 carries Allow.
        [(status, headers, _)] = calls(("POST", "/payload/10", b"x"))
        self.assertEqual(status, 405)
        self.assertEqual({m.strip() for m in headers["allow"].split(",")}, {"GET", "HEAD"})

    def test_an_unknown_target_is_404(self):
        [(status, _, _)] = calls(("GET", "/nothing-here"))
        self.assertEqual(status, 404)


if __name__ == "__main__":
    unittest.main()
