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
        r
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, data);
        if let Poll::Ready(Ok(n)) = r {
            self.counters.sent.set(self.counters.sent.get() + n as u64);
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

/// Reads the socket in large pieces for a reader that asks for small ones: rustls reads into
/// its deframer's buffer, 4 KiB more than it holds and at most a record (16 KiB), so a 1 MB
/// answer over TLS took 68 `recvfrom` calls (`strace -c`), each with the kernel's fixed cost per
/// call. Beneath rustls this reads up to `READ_AHEAD` bytes at once and hands them out from
/// memory: one copy more, 17 calls. The http1 and websocket drivers read TLS through it: paired
/// rounds at 1 MB, 0.71–0.79× the CPU per request over HTTP/1.1 and 0.65–0.68× over WSS, with a
/// shorter p99. On h2+TLS it saved less (0.91–0.96×) and lengthened the p99 (1.05–1.09×), so
/// http2 and grpc read as rustls does (decision 0027).
pub struct ReadAhead<S> {
    inner: S,
    buf: Box<[u8]>,
    /// Bytes read but not yet handed out are `buf[start..end]`.
    start: usize,
    end: usize,
}

/// The buffer's first size, and the most it grows to. It grows fourfold when a read fills it:
/// a handshake's flights and 1 KB answers never do, so a connection that only handshakes
/// (`--reconnect`) allocates and zeroes 16 KiB. Reads of 256 KiB cost 1.04–1.17× the CPU of
/// 64 KiB ones at 1 MB, with a longer p99 (paired rounds; the buffers outgrow the L2 cache).
const FIRST: usize = 16 * 1024;
const READ_AHEAD: usize = 64 * 1024;

impl<S> ReadAhead<S> {
    pub fn new(inner: S) -> Self {
        ReadAhead { inner, buf: Box::default(), start: 0, end: 0 }
    }

    pub fn get_ref(&self) -> &S {
        &self.inner
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for ReadAhead<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, out: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.start == this.end {
            if out.remaining() >= READ_AHEAD {
                return Pin::new(&mut this.inner).poll_read(cx, out);
            }
            // Allocated at the first read, not at connect; larger once a read has filled it.
            let size = match this.buf.len() {
                0 => FIRST,
                n if this.end == n => (n * 4).min(READ_AHEAD),
                n => n,
            };
            if size != this.buf.len() {
                this.buf = vec![0; size].into_boxed_slice();
            }
            this.start = 0;
            this.end = 0;
            let mut fill = ReadBuf::new(&mut this.buf);
            std::task::ready!(Pin::new(&mut this.inner).poll_read(cx, &mut fill))?;
            this.end = fill.filled().len();
        }
        let n = out.remaining().min(this.end - this.start);
        out.put_slice(&this.buf[this.start..this.start + n]);
        this.start += n;
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for ReadAhead<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, data)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
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
        let mut ahead = ReadAhead::new(Source { bytes: bytes.clone(), at: 0, most: usize::MAX, reads: 0 });
        let (mut got, mut piece) = (Vec::new(), [0u8; 4096]);
        loop {
            let n = ahead.read(&mut piece).await.unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&piece[..n]);
        }
        assert_eq!(got, bytes);
        // One of 16 KiB, then 64 KiB each (the buffer grows fourfold once), and the one that
        // finds the end: 18, where reads of 4 KiB would be 245.
        assert_eq!(ahead.get_ref().reads, 1 + (bytes.len() - FIRST).div_ceil(READ_AHEAD) + 1);
        assert_eq!(ahead.get_ref().reads, 18);
        assert_eq!(ahead.buf.len(), READ_AHEAD);

        // A socket that gives less than asked: each of its pieces is handed out whole or in the
        // reader's sizes, never joined with the next one's (no read waits for more).
        let mut ahead = ReadAhead::new(Source { bytes: bytes.clone(), at: 0, most: 10_000, reads: 0 });
        let n = ahead.read(&mut piece).await.unwrap();
        let m = ahead.read(&mut piece).await.unwrap();
        let k = ahead.read(&mut piece).await.unwrap();
        assert_eq!((n, m, k, ahead.get_ref().reads), (4096, 4096, 10_000 - 8192, 1));
        // Reads that never fill the buffer leave it at its first size.
        let _ = ahead.read(&mut piece).await.unwrap();
        assert_eq!((ahead.get_ref().reads, ahead.buf.len()), (2, FIRST));
        // A reader asking for more than READ_AHEAD reads the socket straight into its buffer.
        let mut big = vec![0u8; READ_AHEAD];
        let _ = ahead.read(&mut piece).await.unwrap();
        let _ = ahead.read(&mut piece).await.unwrap();
        let n = ahead.read(&mut big).await.unwrap();
        assert_eq!((n, &big[..n], ahead.get_ref().reads), (10_000, &bytes[20_000..30_000], 3));
    }
}
