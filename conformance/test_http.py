"""HTTP/1.1 and HTTP/2 (over TLS, by ALPN) with httpx, as a user's Python client meets the REST
subject: each test names the RFC 9110 statement it checks."""
import unittest

import httpx

import subjects


def clients():
    plain, tls = subjects.rest()
    yield "h1", httpx.Client(base_url=f"http://127.0.0.1:{plain}"), "HTTP/1.1"
    yield "h1+tls", httpx.Client(base_url=f"https://127.0.0.1:{tls}", verify=False), "HTTP/1.1"
    yield "h2+tls", httpx.Client(base_url=f"https://127.0.0.1:{tls}", verify=False, http2=True), "HTTP/2"


class Http(unittest.TestCase):
    def test_get_answers_the_payload_asked_for(self):
        for name, c, version in clients():
            with c, self.subTest(name):
                r = c.get("/payload/1024")
                self.assertEqual((r.status_code, r.http_version, len(r.content)), (200, version, 1024))
                self.assertEqual(r.headers["content-length"], "1024")

    def test_head_is_get_without_content(self):
        # RFC 9110 §9.3.2: "the server SHOULD send the same header fields in response to a HEAD
        # request as it would have sent if the request method had been GET", with no content.
        for name, c, _ in clients():
            with c, self.subTest(name):
                get, head = c.get("/payload/1024"), c.head("/payload/1024")
                self.assertEqual((head.status_code, head.content), (200, b""))
                self.assertEqual(head.headers.get("content-length"), get.headers["content-length"])
                self.assertEqual(head.headers.get("content-type"), get.headers["content-type"])

    def test_a_method_not_allowed_says_which_are(self):
        # RFC 9110 §15.5.6: "The origin server MUST generate an Allow header field in a 405
        # response containing a list of the target resource's currently supported methods."
        for name, c, _ in clients():
            with c, self.subTest(name):
                r = c.post("/payload/10", content=b"x")
                self.assertEqual(r.status_code, 405)
                allowed = {m.strip() for m in r.headers["allow"].split(",")}
                self.assertEqual(allowed, {"GET", "HEAD"})

    def test_an_unknown_target_is_404(self):
        # RFC 9110 §15.5.5: 404 when the origin server did not find a current representation.
        for name, c, _ in clients():
            with c, self.subTest(name):
                self.assertEqual(c.get("/nothing-here").status_code, 404)

    def test_the_server_keeps_serving_after_bad_requests(self):
        plain, _ = subjects.rest()
        import socket
        for bad in [b"GET /payload/1 HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", b"\x00\x01garbage\r\n\r\n"]:
            with socket.create_connection(("127.0.0.1", plain), timeout=5) as s:
                s.sendall(bad)
                answer = s.recv(100)
                self.assertTrue(answer == b"" or answer.startswith(b"HTTP/1.1 4"), answer)
        with httpx.Client(base_url=f"http://127.0.0.1:{plain}") as c:
            self.assertEqual(c.get("/payload/1024").status_code, 200)


if __name__ == "__main__":
    unittest.main()
