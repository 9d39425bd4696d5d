"""Server-Sent Events read by the WHATWG HTML standard's event-stream parser (§9.2.6, "Interpreting
an event stream"), written out here from the algorithm: what a browser's EventSource sees."""
import unittest

import httpx

import subjects


def events(stream: bytes):
    """The events a browser dispatches for `stream`, as (type, data) pairs."""
    text = stream.decode("utf-8")
    if text.startswith("\ufeff"):
        text = text[1:]  # "a single U+FEFF BYTE ORDER MARK character must be ignored"
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out, data, kind = [], "", ""
    for line in lines[:-1]:  # the last piece has no line end yet: not a line
        if line == "":
            # "If the data buffer is an empty string, set the data buffer and the event type
            # buffer to the empty string and return." Otherwise drop the last LF and dispatch.
            if data:
                out.append((kind or "message", data[:-1] if data.endswith("\n") else data))
            data, kind = "", ""
            continue
        if line.startswith(":"):
            continue  # a comment
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            data += value + "\n"
        elif field == "event":
            kind = value
    return out


class Sse(unittest.TestCase):
    def test_the_parser_follows_the_algorithm(self):
        self.assertEqual(events(b"data: a\ndata:b\n\n: c\nevent: e\ndata\n\n"), [("message", "a\nb"), ("e", "")])
        self.assertEqual(events(b"data: x\r\n\r\ndata: y\n"), [("message", "x")], "an unterminated event is not dispatched")

    def test_count_events_of_size_bytes_as_an_event_source_reads_them(self):
        plain, _ = subjects.rest()
        r = httpx.get(f"http://127.0.0.1:{plain}/sse?size=10&count=3")
        # §9.2.4: an event source's response must be text/event-stream.
        self.assertEqual(r.headers["content-type"].split(";")[0], "text/event-stream")
        got = events(r.content)
        self.assertEqual(len(got), 3, got)
        self.assertTrue(all(kind == "message" and len(data) == 10 for kind, data in got), got)


if __name__ == "__main__":
    unittest.main()
