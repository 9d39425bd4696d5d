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
