//! gRPC's length-prefixed messages (a flag byte, a four-byte big-endian length, the message):
//! framed once per connection, deframed from DATA as it arrives. The gRPC driver frames its
//! requests; the HTTP/2 connection deframes a gRPC stream's answer.

use bytes::{BufMut, Bytes, BytesMut};

use crate::error::LoadError;

/// One message with its five-byte prefix (uncompressed).
pub fn frame(message: &[u8]) -> Result<Bytes, LoadError> {
    let len = u32::try_from(message.len())
        .map_err(|_| LoadError::Unsupported(format!("a gRPC message is at most 4 GiB, not {} bytes", message.len())))?;
    let mut b = BytesMut::with_capacity(5 + message.len());
    b.put_u8(0);
    b.put_u32(len);
    b.put_slice(message);
    Ok(b.freeze())
}

/// Splits received DATA chunks into messages, counting them and their bytes (and keeping the
/// bytes when asked); a message may span chunks and a chunk may hold several.
#[derive(Debug, Default)]
pub struct Deframer {
    prefix: [u8; 5],
    have: usize,
    /// Bytes of the current message still to come; `None` between messages.
    left: Option<u64>,
    pub messages: u64,
    pub bytes: u64,
    pub body: Option<Vec<u8>>,
    /// When the first message was complete.
    pub first_at: Option<std::time::Instant>,
}

impl Deframer {
    pub fn new(keep_body: bool) -> Deframer {
        Deframer { body: keep_body.then(Vec::new), ..Deframer::default() }
    }

    pub fn feed(&mut self, mut chunk: &[u8]) -> Result<(), LoadError> {
        while !chunk.is_empty() {
            match self.left {
                Some(left) => {
                    let n = (left as usize).min(chunk.len());
                    if let Some(b) = &mut self.body {
                        b.extend_from_slice(&chunk[..n]);
                    }
                    self.bytes += n as u64;
                    chunk = &chunk[n..];
                    self.left = Some(left - n as u64);
                }
                None => {
                    let n = (5 - self.have).min(chunk.len());
                    self.prefix[self.have..self.have + n].copy_from_slice(&chunk[..n]);
                    self.have += n;
                    chunk = &chunk[n..];
                    if self.have == 5 {
                        self.have = 0;
                        if self.prefix[0] != 0 {
                            return Err(LoadError::Protocol(format!(
                                "gRPC message with flags {:#04x}: compression was not negotiated",
                                self.prefix[0]
                            )));
                        }
                        let len = u32::from_be_bytes([self.prefix[1], self.prefix[2], self.prefix[3], self.prefix[4]]);
                        self.left = Some(u64::from(len));
                    }
                }
            }
            if self.left == Some(0) {
                self.left = None;
                self.messages += 1;
                if self.messages == 1 {
                    self.first_at = Some(std::time::Instant::now());
                }
            }
        }
        Ok(())
    }

    /// The stream ended: an error if it ended inside a message.
    pub fn finish(&self) -> Result<(), LoadError> {
        match (self.have, self.left) {
            (0, None) => Ok(()),
            _ => Err(LoadError::Protocol("gRPC stream ended inside a message".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deframer_counts_messages_split_and_joined_across_chunks() {
        let mut wire = Vec::new();
        for m in [&b"hello"[..], b"", b"world!"] {
            wire.extend_from_slice(&frame(m).unwrap());
        }
        // Every split point, one byte at a time, and all at once.
        for size in [1, 2, 3, 7, wire.len()] {
            let mut d = Deframer::new(true);
            for chunk in wire.chunks(size) {
                d.feed(chunk).unwrap();
            }
            d.finish().unwrap();
            assert_eq!((d.messages, d.bytes), (3, 11), "chunks of {size}");
            assert_eq!(d.body.as_deref(), Some(&b"helloworld!"[..]));
        }
    }

    #[test]
    fn deframer_rejects_compressed_and_truncated_messages() {
        let mut d = Deframer::new(false);
        assert!(d.feed(&[1, 0, 0, 0, 1, b'x']).unwrap_err().to_string().contains("compression"));
        let mut d = Deframer::new(false);
        d.feed(&[0, 0, 0, 0, 4, b'a']).unwrap();
        assert!(d.finish().is_err());
        let mut d = Deframer::new(false);
        d.feed(&[0, 0]).unwrap();
        assert!(d.finish().is_err());
    }
}
