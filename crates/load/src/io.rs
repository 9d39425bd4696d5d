//! Byte counting beneath every protocol: a wrapper around the socket (below TLS), so bytes sent
//! and received are what crossed the wire, the same way for every driver.

use std::cell::Cell;
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Opens a TCP connection to `target` with Nagle off (requests are small and latency-bound),
/// counting its bytes into `counters`.
pub async fn connect(
    target: &wirebench_core::runner::Target,
    counters: &Rc<Counters>,
) -> Result<Counted<tokio::net::TcpStream>, crate::error::LoadError> {
    let (host, port) = target.address();
    let tcp = tokio::net::TcpStream::connect((host.as_str(), port)).await.map_err(crate::error::LoadError::Connect)?;
    tcp.set_nodelay(true).map_err(crate::error::LoadError::Connect)?;
    Ok(Counted::new(tcp, counters.clone()))
}

/// Bytes counted on one load thread.
#[derive(Debug, Default)]
pub struct Counters {
    pub sent: Cell<u64>,
    pub received: Cell<u64>,
}

impl Counters {
    /// Bytes sent and received.
    pub fn moved(&self) -> u64 {
        self.sent.get() + self.received.get()
    }
}

/// A stream that adds what it reads and writes to `Counters`.
pub struct Counted<S> {
    inner: S,
    counters: Rc<Counters>,
}

impl<S> Counted<S> {
    pub fn new(inner: S, counters: Rc<Counters>) -> Self {
        Counted { inner, counters }
    }

    pub fn get_ref(&self) -> &S {
        &self.inner
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        let n = (buf.filled().len() - before) as u64;
        self.counters.received.set(self.counters.received.get() + n);
        if n > 0 {
            crate::cap::on_io(self.counters.moved());
        }
        r
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, data);
        if let Poll::Ready(Ok(n)) = r {
            self.counters.sent.set(self.counters.sent.get() + n as u64);
            crate::cap::on_io(self.counters.moved());
        }
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = r {
            self.counters.sent.set(self.counters.sent.get() + n as u64);
            crate::cap::on_io(self.counters.moved());
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// `io` read in large pieces for a reader that asks for small ones (tokio's `BufReader`): rustls
/// reads into its deframer's buffer, 4 KiB more than it holds and at most a record (16 KiB), so
/// a 1 MB answer over TLS took 68 `recvfrom` calls (`strace -c`), each with the kernel's fixed
/// cost per call. Beneath rustls the socket is read `READ_AHEAD` bytes at once and handed out
/// from memory: one copy more, 17 calls. The http1 and websocket drivers read TLS through it:
/// paired rounds at 1 MB, 0.71–0.79× the CPU per request over HTTP/1.1 and 0.65–0.68× over WSS,
/// with a shorter p99. On h2+TLS alone it saved less (0.91–0.96×) and lengthened the p99
/// (1.05–1.09×); http2 and grpc read through it since their DATA is counted where rustls holds
/// it (decision 0031).
pub fn read_ahead<S: AsyncRead>(io: S) -> tokio::io::BufReader<S> {
    tokio::io::BufReader::with_capacity(READ_AHEAD, io)
}

/// Reads of 256 KiB cost 1.04–1.17× the CPU of 64 KiB ones at 1 MB, with a longer p99 (paired
/// rounds; the buffers outgrow the L2 cache).
const READ_AHEAD: usize = 64 * 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// A reader over bytes that counts the reads it serves and gives at most `most` per read, as
    /// a socket gives what has arrived.
    struct Source {
        bytes: Vec<u8>,
        at: usize,
        most: usize,
        reads: usize,
    }

    impl AsyncRead for Source {
        fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, out: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
            let n = out.remaining().min(self.most).min(self.bytes.len() - self.at);
            out.put_slice(&self.bytes[self.at..self.at + n]);
            self.at += n;
            self.reads += 1;
            Poll::Ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn small_reads_get_the_same_bytes_from_few_large_ones() {
        let bytes: Vec<u8> = (0..1_000_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let mut ahead = read_ahead(Source { bytes: bytes.clone(), at: 0, most: usize::MAX, reads: 0 });
        let (mut got, mut piece) = (Vec::new(), [0u8; 4096]);
        loop {
            let n = ahead.read(&mut piece).await.unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&piece[..n]);
        }
        assert_eq!(got, bytes);
        // 16 reads of 64 KiB and the one that finds the end, where reads of 4 KiB would be 245.
        assert_eq!(ahead.get_ref().reads, bytes.len().div_ceil(READ_AHEAD) + 1);

        // A socket that gives less than asked: its piece is handed out in the reader's sizes and
        // never joined with the next one's (no read waits for more).
        let mut ahead = read_ahead(Source { bytes: bytes.clone(), at: 0, most: 10_000, reads: 0 });
        let n = ahead.read(&mut piece).await.unwrap();
        let m = ahead.read(&mut piece).await.unwrap();
        let k = ahead.read(&mut piece).await.unwrap();
        assert_eq!((n, m, k, ahead.get_ref().reads), (4096, 4096, 10_000 - 8192, 1));
    }
}
