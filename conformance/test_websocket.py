"""WebSocket with the `websockets` client (RFC 6455): the subject's commands answered, and bad
input closed with the close code §7.4.1 assigns, the server going on for others."""
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
