"""WebSocket with the `websockets` client (RFC 6455): the subject's commands answered, and bad
input closed with the close code §7.4.1 assigns, the server going on for others."""
import json
import os
import subprocess
import unittest

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import subjects


def url():
    plain, _ = subjects.ws()
    return f"ws://127.0.0.1:{plain}/ws"


class WebSocket(unittest.TestCase):
    def test_a_size_is_answered_with_one_frame_of_it_and_push_with_count(self):
        with connect(url()) as ws:
            ws.send("1024")
            self.assertEqual(len(ws.recv(timeout=10)), 1024)
            ws.send("push 10 3")
            self.assertEqual([len(ws.recv(timeout=10)) for _ in range(3)], [10, 10, 10])

    def close_code(self, send):
        with connect(url()) as ws:
            send(ws)
            with self.assertRaises(ConnectionClosed) as closed:
                ws.recv(timeout=10)
        return closed.exception.rcvd.code if closed.exception.rcvd else None

    def test_bad_input_gets_the_close_code_rfc_6455_gives_it(self):
        # §7.4.1: 1003 for a type of data the endpoint cannot accept (a binary frame), 1008 for a
        # message that violates its policy (a command that does not parse), 1009 for a message
        # too big to process (over 64 KiB).
        self.assertEqual(self.close_code(lambda ws: ws.send(b"\x00\x01")), 1003)
        self.assertEqual(self.close_code(lambda ws: ws.send("not a command")), 1008)
        self.assertEqual(self.close_code(lambda ws: ws.send("x" * (65 * 1024))), 1009)
        with connect(url()) as ws:
            ws.send("16")
            self.assertEqual(len(ws.recv(timeout=10)), 16, "others are still served")


if __name__ == "__main__":
    unittest.main()


class OurClientAgainstWebsockets(unittest.TestCase):
    """wirebench's websocket driver against the `websockets` server (another implementation of
    RFC 6455 than the one it is measured on): answers counted, messages fragmented by the server
    read as one, the server's pings answered (it closes a connection whose pong does not come),
    and the closing handshake completed."""

    @classmethod
    def setUpClass(cls):
        import threading

        from websockets.sync.server import serve

        def answer(ws):
            for request in ws:
                if request.startswith("push "):
                    _, size, count = request.split()
                    for _ in range(int(count)):
                        ws.send("x" * int(size))
                elif request.startswith("fragments "):
                    ws.send(iter(["ab"] * int(request.split()[1])))  # one message, a frame per piece
                else:
                    ws.send("x" * int(request))

        # A ping every 10 ms, closed with 1011 if its pong is not back within a second.
        cls.server = serve(answer, "127.0.0.1", 0, ping_interval=0.01, ping_timeout=1)
        cls.port = cls.server.socket.getsockname()[1]
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()

    def load(self, body, *args):
        cmd = [os.path.join(subjects.BIN, "wirebench"), "load", f"ws://127.0.0.1:{self.port}/", "--driver", "websocket",
               "--body", body, "-c", "2", "--json", *args]
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 0, run.stderr)
        return json.loads(run.stdout)

    def test_answers_fragments_and_pushes_are_counted(self):
        r = self.load("1000", "-n", "50", "--expect-bytes", "1000")
        self.assertEqual((r["requests"], r["errors"], r["messages"]), (50, 0, 50))
        r = self.load("fragments 7", "-n", "50", "--expect-bytes", "14")
        self.assertEqual((r["requests"], r["errors"], r["messages"]), (50, 0, 50))
        r = self.load("push 100 5", "-n", "50", "--param", "frames=5", "--expect-bytes", "500")
        self.assertEqual((r["requests"], r["errors"], r["messages"]), (50, 0, 250))

    def test_a_session_longer_than_many_pings_stays_open(self):
        # Two seconds against a ping every 10 ms: the server ends the session if one pong is late.
        r = self.load("10", "-d", "2", "--expect-bytes", "10")
        self.assertEqual(r["errors"], 0, r)
        self.assertGreater(r["requests"], 100)
