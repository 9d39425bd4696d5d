//! Server-Sent Events (the WHATWG `text/event-stream` format) over HTTP/1.1, as a browser's
//! `EventSource` reads them: the http1 driver sends the GET (with `Accept: text/event-stream`)
//! and hands the body, chunk by chunk, to `event_stream::SseParser`. A reply's `messages` are the
//! events dispatched, its `body_len` and body their data (data lines joined by `\n`, as
//! `event.data`).

use crate::driver::Driver;

pub fn new() -> Box<dyn Driver> {
    super::http1::with_events()
}
