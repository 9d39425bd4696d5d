//! HTTP/2 frames (RFC 9113 §4, §6): the frame types and flags, and the writers and readers of
//! frame bytes the connection and the driver share.

// Frame types (RFC 9113 §6) and flags.
pub(super) const DATA: u8 = 0x0;
pub(super) const HEADERS: u8 = 0x1;
pub(super) const RST_STREAM: u8 = 0x3;
pub(super) const SETTINGS: u8 = 0x4;
pub(super) const PUSH_PROMISE: u8 = 0x5;
pub(super) const PING: u8 = 0x6;
pub(super) const GOAWAY: u8 = 0x7;
pub(super) const WINDOW_UPDATE: u8 = 0x8;
pub(super) const CONTINUATION: u8 = 0x9;
pub(super) const END_STREAM: u8 = 0x1;
pub(super) const ACK: u8 = 0x1;
pub(super) const END_HEADERS: u8 = 0x4;
pub(super) const PADDED: u8 = 0x8;
pub(super) const PRIORITY: u8 = 0x20;

/// A frame's 9-byte header.
pub(super) fn frame_head(out: &mut Vec<u8>, len: usize, kind: u8, flags: u8, stream: u32) {
    let len = (len as u32).to_be_bytes();
    out.extend_from_slice(&[len[1], len[2], len[3], kind, flags]);
    out.extend_from_slice(&stream.to_be_bytes());
}

pub(super) fn window_update(out: &mut Vec<u8>, stream: u32, increment: u32) {
    frame_head(out, 4, WINDOW_UPDATE, 0, stream);
    out.extend_from_slice(&increment.to_be_bytes());
}

/// RST_STREAM with CANCEL: a stream we no longer want (given up by the worker's timeout, an
/// answer that ended before the request, or one we cannot read).
pub(super) fn cancel(out: &mut Vec<u8>, stream: u32) {
    const CANCEL: u32 = 0x8;
    frame_head(out, 4, RST_STREAM, 0, stream);
    out.extend_from_slice(&CANCEL.to_be_bytes());
}

/// A header block as HEADERS and, past the server's frame size, CONTINUATION frames.
pub(super) fn header_frames(out: &mut Vec<u8>, block: &[u8], max_frame: usize, id: u32, end_stream: bool) {
    let mut chunks = block.chunks(max_frame).peekable();
    let mut kind = HEADERS;
    let mut flags = if end_stream { END_STREAM } else { 0 };
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        frame_head(out, chunk.len(), kind, flags | if last { END_HEADERS } else { 0 }, id);
        out.extend_from_slice(chunk);
        kind = CONTINUATION;
        flags = 0;
    }
}

/// The big-endian u32 at `at` in a frame's bytes; 0 when the frame is too short for it (a short
/// RST_STREAM, GOAWAY or WINDOW_UPDATE reads as code 0 or no increment).
pub(super) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    bytes.get(at..at + 4).map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// A DATA or HEADERS frame's payload without its padding.
pub(super) fn unpad(payload: &[u8], flags: u8) -> Result<&[u8], String> {
    if flags & PADDED == 0 {
        return Ok(payload);
    }
    let pad = *payload.first().ok_or("PROTOCOL_ERROR: a padded frame without its pad length")? as usize;
    payload
        .get(1..payload.len().saturating_sub(pad))
        .filter(|_| pad < payload.len())
        .ok_or_else(|| "PROTOCOL_ERROR: padding longer than the frame".to_string())
}
