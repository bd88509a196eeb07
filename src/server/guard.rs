//! The server's listener: the connection limit and the request deadline, at the door.
//!
//! Every TCP connection holds one of the server's permits (`Limits::connections`) from the
//! moment it is accepted until it closes, whatever it is used for: a WebSocket, the browser
//! seat's page, or a request that never ends. One past the limit is answered `503` and closed.
//! Until a connection becomes a WebSocket it must send each request within
//! `Limits::request_within_secs` of being accepted or of its last answer; one that does not
//! (a request sent a byte at a time, or never finished) is closed. Without this, a client
//! that opened connections and sent half a request on each held them all for ever, unlimited
//! by the connection limit, until the host ran out of file descriptors and nobody could join.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

/// How long a refused connection is given to take its `503` before it is closed.
const REFUSAL_WITHIN: Duration = Duration::from_secs(2);

/// A TCP listener that gives each connection a permit, or refuses it.
pub struct Guarded {
    listener: TcpListener,
    permits: Arc<Semaphore>,
    /// The permits there are, for the refusal's words.
    limit: usize,
    request_within: Duration,
}

impl Guarded {
    /// Admits at most `limit` connections at once, each given `request_within` per request.
    pub fn new(listener: TcpListener, limit: usize, request_within: Duration) -> Guarded {
        Guarded { listener, permits: Arc::new(Semaphore::new(limit)), limit, request_within }
    }
}

impl Listener for Guarded {
    type Io = GuardedStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (GuardedStream, SocketAddr) {
        loop {
            let (stream, addr) = Listener::accept(&mut self.listener).await;
            // Messages are small and often come two in a row (an output, then a terminal's
            // screen): without TCP_NODELAY the second waits for the client's delayed
            // acknowledgement.
            let _ = stream.set_nodelay(true);
            match self.permits.clone().try_acquire_owned() {
                Ok(permit) => return (GuardedStream::new(stream, permit, self.request_within), addr),
                Err(_) => {
                    tokio::spawn(refuse(stream, self.limit));
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

/// Answers a connection past the limit with `503` and closes it. What the client sent is
/// read first (for at most [`REFUSAL_WITHIN`]): closing a socket with unread bytes resets
/// it, and the reset can overtake the answer.
async fn refuse(mut stream: TcpStream, limit: usize) {
    let text = format!("the server holds {limit} connections, its most; try again later\n");
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    );
    let _ = tokio::time::timeout(REFUSAL_WITHIN, async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 1024];
        while stream.read(&mut sink).await? > 0 {}
        io::Result::Ok(())
    })
    .await;
}

/// An accepted connection: its permit, and its request deadline until it is a WebSocket.
pub struct GuardedStream {
    stream: TcpStream,
    _permit: OwnedSemaphorePermit,
    upgraded: Arc<AtomicBool>,
    within: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl GuardedStream {
    fn new(stream: TcpStream, permit: OwnedSemaphorePermit, within: Duration) -> GuardedStream {
        let deadline = Box::pin(tokio::time::sleep(within));
        GuardedStream { stream, _permit: permit, upgraded: Arc::new(AtomicBool::new(false)), within, deadline }
    }

    /// Whether the deadline has passed (it is not kept once the connection is a WebSocket).
    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        !self.upgraded.load(Ordering::Relaxed) && self.deadline.as_mut().poll(cx).is_ready()
    }
}

fn too_slow() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "no whole request in time")
}

impl AsyncRead for GuardedStream {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        if self.expired(cx) {
            return Poll::Ready(Err(too_slow()));
        }
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for GuardedStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.expired(cx) {
            return Poll::Ready(Err(too_slow()));
        }
        let written = ready!(Pin::new(&mut self.stream).poll_write(cx, buf));
        if matches!(written, Ok(n) if n > 0) {
            // An answer is on its way: the next request has its own time.
            let next = Instant::now() + self.within;
            self.deadline.as_mut().reset(next);
        }
        Poll::Ready(written)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// What a request handler knows of its connection ([`axum::extract::ConnectInfo`]): it says
/// when the connection becomes a WebSocket, whose own limits then apply.
#[derive(Debug, Clone)]
pub struct Door {
    upgraded: Arc<AtomicBool>,
}

impl Door {
    /// The connection is becoming a WebSocket: it no longer has a request deadline.
    pub fn upgrading(&self) {
        self.upgraded.store(true, Ordering::Relaxed);
    }
}

impl Connected<IncomingStream<'_, Guarded>> for Door {
    fn connect_info(stream: IncomingStream<'_, Guarded>) -> Door {
        Door { upgraded: Arc::clone(&stream.io().upgraded) }
    }
}
