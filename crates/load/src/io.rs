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

/// Reads the socket in large pieces for a reader that asks for small ones: rustls reads at most
/// 4 KiB per `read_tls` (its deframer's `READ_SIZE`), so a 1 MB answer over TLS took about 260
/// `recvfrom` calls, each with the kernel's fixed cost per call. Beneath rustls this reads up
/// to `READ_AHEAD` bytes at once and hands them out from memory: one copy more, far fewer calls.
pub struct ReadAhead<S> {
    inner: S,
    buf: Box<[u8]>,
    /// Bytes read but not yet handed out are `buf[start..end]`.
    start: usize,
    end: usize,
}

/// What one read from the socket may take: a quarter of a 1 MB answer.
const READ_AHEAD: usize = 256 * 1024;

impl<S> ReadAhead<S> {
    pub fn new(inner: S) -> Self {
        ReadAhead { inner, buf: Vec::new().into_boxed_slice(), start: 0, end: 0 }
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
            if this.buf.is_empty() {
                // Allocated at the first read, not at connect: the handshake's flights are small
                // and a connection that never reads keeps nothing.
                this.buf = vec![0; READ_AHEAD].into_boxed_slice();
            }
            let mut fill = ReadBuf::new(&mut this.buf);
            std::task::ready!(Pin::new(&mut this.inner).poll_read(cx, &mut fill))?;
            this.start = 0;
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
        // 4 reads of 256 KiB and the one that finds the end, where rustls would have made 245.
        assert_eq!(ahead.get_ref().reads, bytes.len().div_ceil(READ_AHEAD) + 1);

        // A socket that gives less than asked: each of its pieces is handed out whole or in the
        // reader's sizes, never joined with the next one's (no read waits for more).
        let mut ahead = ReadAhead::new(Source { bytes: bytes.clone(), at: 0, most: 10_000, reads: 0 });
        let n = ahead.read(&mut piece).await.unwrap();
        let m = ahead.read(&mut piece).await.unwrap();
        let k = ahead.read(&mut piece).await.unwrap();
        assert_eq!((n, m, k, ahead.get_ref().reads), (4096, 4096, 10_000 - 8192, 1));
        // A reader asking for more than READ_AHEAD reads the socket straight into its buffer.
        let mut big = vec![0u8; READ_AHEAD];
        let n = ahead.read(&mut big).await.unwrap();
        assert_eq!((n, &big[..n], ahead.get_ref().reads), (10_000, &bytes[10_000..20_000], 2));
    }
}
