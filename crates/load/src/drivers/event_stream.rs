//! The WHATWG `text/event-stream` parser the http1 driver feeds an event stream's body to (the
//! sse driver is http1 with it switched on).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// At the start of a line.
    LineStart,
    /// In a field name (up to 4 bytes are kept: only `data` matters).
    Name,
    /// Just after `data:`: one space may follow.
    DataStart,
    /// In a `data` field's value.
    Data,
    /// In another field's value, or a comment (`:` line).
    Skip,
}

/// Counts events and their data bytes as a stream arrives, without buffering a line: a 1 MB
/// event costs no copy unless the data is kept.
#[derive(Debug)]
pub struct SseParser {
    state: State,
    /// A `\r` ended the last line: a `\n` right after it belongs to it.
    after_cr: bool,
    name: [u8; 4],
    name_len: usize,
    /// Data lines and bytes of the event being read.
    lines: u64,
    bytes: u64,
    pub events: u64,
    pub data_bytes: u64,
    /// Every event's data, when kept.
    pub data: Option<Vec<u8>>,
    /// When the first event was dispatched.
    pub first_at: Option<std::time::Instant>,
    /// The data of the event being read (kept only when `data` is).
    pending: Vec<u8>,
}

impl SseParser {
    pub fn new(keep: bool) -> SseParser {
        SseParser {
            state: State::LineStart,
            after_cr: false,
            name: [0; 4],
            name_len: 0,
            lines: 0,
            bytes: 0,
            events: 0,
            data_bytes: 0,
            data: keep.then(Vec::new),
            first_at: None,
            pending: Vec::new(),
        }
    }

    pub fn feed(&mut self, mut input: &[u8]) {
        while let Some((&b, rest)) = input.split_first() {
            if std::mem::take(&mut self.after_cr) && b == b'\n' {
                input = rest;
                continue;
            }
            match self.state {
                State::Data => {
                    // The value runs to the line's end: take it in one piece, found with SIMD
                    // (a byte-at-a-time search was most of the client's CPU on 1 MB events).
                    let end = memchr::memchr2(b'\n', b'\r', input).unwrap_or(input.len());
                    self.bytes += end as u64;
                    if self.data.is_some() {
                        self.pending.extend_from_slice(&input[..end]);
                    }
                    input = &input[end..];
                    if let Some(&c) = input.first() {
                        self.end_line(c);
                        input = &input[1..];
                    }
                    continue;
                }
                _ if b == b'\n' || b == b'\r' => self.end_line(b),
                State::LineStart | State::Name => {
                    if b == b':' {
                        let is_data = self.state == State::Name && self.name_is_data();
                        self.state = if is_data { self.begin_data() } else { State::Skip };
                    } else {
                        if self.state == State::LineStart {
                            self.name_len = 0;
                        }
                        if self.name_len < 4 {
                            self.name[self.name_len] = b;
                        }
                        self.name_len += 1;
                        self.state = State::Name;
                    }
                }
                State::DataStart => {
                    self.state = State::Data;
                    if b != b' ' {
                        continue; // not consumed: it is the value's first byte
                    }
                }
                State::Skip => {}
            }
            input = &input[1..];
        }
    }

    fn name_is_data(&self) -> bool {
        self.name_len == 4 && &self.name == b"data"
    }

    /// A data line starts: a second one joins the first with `\n`.
    fn begin_data(&mut self) -> State {
        if self.lines > 0 {
            self.bytes += 1;
            if self.data.is_some() {
                self.pending.push(b'\n');
            }
        }
        self.lines += 1;
        State::DataStart
    }

    fn end_line(&mut self, terminator: u8) {
        self.after_cr = terminator == b'\r';
        match self.state {
            // A blank line dispatches the event, if it had data.
            State::LineStart => {
                if self.lines > 0 {
                    self.events += 1;
                    if self.events == 1 {
                        self.first_at = Some(std::time::Instant::now());
                    }
                    self.data_bytes += self.bytes;
                    if let Some(d) = &mut self.data {
                        d.append(&mut self.pending);
                    }
                }
                self.lines = 0;
                self.bytes = 0;
            }
            // `data` alone on a line is a data line with an empty value.
            State::Name if self.name_is_data() => {
                self.begin_data();
            }
            _ => {}
        }
        self.state = State::LineStart;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(stream: &[u8], chunk: usize) -> SseParser {
        let mut p = SseParser::new(true);
        for c in stream.chunks(chunk) {
            p.feed(c);
        }
        p
    }

    #[test]
    fn events_are_counted_with_their_data_across_any_split() {
        let stream =
            b": comment\nid: 1\ndata: hello\ndata:world\n\nevent: x\r\ndata\r\n\r\ndata: xyz\rretry: 5\r\r\ndata: cut";
        for chunk in [1, 2, 3, 5, stream.len()] {
            let p = parse(stream, chunk);
            // "hello\nworld", "", "xyz"; the last event has no blank line: not dispatched.
            assert_eq!((p.events, p.data_bytes), (3, 14), "chunks of {chunk}");
            assert_eq!(p.data.as_deref(), Some(&b"hello\nworldxyz"[..]), "chunks of {chunk}");
        }
    }

    #[test]
    fn lines_without_data_dispatch_nothing() {
        let p = parse(b"id: 3\n\n: ping\n\ndatum: no\n\n", 4);
        assert_eq!((p.events, p.data_bytes), (0, 0));
        let p = parse(&[b"data: ".as_slice(), &vec![b'x'; 1 << 20], b"\n\n"].concat(), 4096);
        assert_eq!((p.events, p.data_bytes), (1, 1 << 20));
    }
}
