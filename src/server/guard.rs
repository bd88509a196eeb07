//! The server's listener: the connection limits and the request deadline, at the door.
//!
//! Every TCP connection holds one of the server's permits (`Limits::connections`) from the
//! moment it is accepted until it closes, whatever it is used for: a WebSocket, the browser
//! seat's page, or a request that never ends. One past the limit is answered `503` and closed.
//! One address (an IPv6 address's /64 prefix: a [`Source`]) holds at most
//! `Limits::per_address` of them (one past that is answered `503` too): without it one
//! machine's idle connections took every permit and every new player was refused.
//! Until a connection becomes a WebSocket it must send each request within
//! `Limits::request_within_secs` of being accepted or of its last answer; one that does not
//! (a request sent a byte at a time, or never finished) is closed. Without this, a client
//! that opened connections and sent half a request on each held them all for ever, unlimited
//! by the connection limit, until the host ran out of file descriptors and nobody could join.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::extract::connect_info::Connected;
use axum::serve::{IncomingStream, Listener};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::{Instant, Sleep};

use super::fair::Source;

/// How long a refused connection is given to take its `503` before it is closed.
const REFUSAL_WITHIN: Duration = Duration::from_secs(2);

/// A TCP listener that gives each connection a permit, or refuses it.
pub struct Guarded {
    listener: TcpListener,
    permits: Arc<Semaphore>,
    /// The permits there are, for the refusal's words.
    limit: usize,
    /// The most one address holds, and how many each holds now.
    per_address: usize,
    held: Arc<Mutex<HashMap<Source, usize>>>,
    request_within: Duration,
}

impl Guarded {
    /// Admits at most `limit` connections at once, `per_address` of them from one address,
    /// each given `request_within` per request.
    pub fn new(listener: TcpListener, limit: usize, per_address: usize, request_within: Duration) -> Guarded {
        Guarded {
            listener,
            permits: Arc::new(Semaphore::new(limit)),
            limit,
            per_address,
            held: Arc::new(Mutex::new(HashMap::new())),
            request_within,
        }
    }

    /// One more connection from `from`, unless it holds its most already.
    fn take(&self, from: Source) -> Option<AddressPermit> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        let count = held.entry(from).or_insert(0);
        if *count >= self.per_address {
            return None;
        }
        *count += 1;
        Some(AddressPermit { from, held: Arc::clone(&self.held) })
    }
}

/// One of an address's connections, given back when dropped.
struct AddressPermit {
    from: Source,
    held: Arc<Mutex<HashMap<Source, usize>>>,
}

impl Drop for AddressPermit {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = held.get_mut(&self.from) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.from);
            }
        }
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
            let Some(mine) = self.take(Source::of(addr.ip())) else {
                let text = format!(
                    "this address holds {} connections, the most one address may; close some\n",
                    self.per_address
                );
                tokio::spawn(refuse(stream, text));
                continue;
            };
            match self.permits.clone().try_acquire_owned() {
                Ok(permit) => return (GuardedStream::new(stream, (permit, mine), self.request_within), addr),
                Err(_) => {
                    let text = format!("the server holds {} connections, its most; try again later\n", self.limit);
                    tokio::spawn(refuse(stream, text));
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
async fn refuse(mut stream: TcpStream, text: String) {
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\n{}connection: close\r\n\r\n{text}",
        text.len(),
        super::web::SECURITY_HEADERS.iter().map(|(name, value)| format!("{name}: {value}\r\n")).collect::<String>()
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
    _permit: (OwnedSemaphorePermit, AddressPermit),
    upgraded: Arc<AtomicBool>,
    within: Duration,
    deadline: Pin<Box<Sleep>>,
}

impl GuardedStream {
    fn new(stream: TcpStream, permit: (OwnedSemaphorePermit, AddressPermit), within: Duration) -> GuardedStream {
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

/// What a request handler knows of its connection ([`axum::extract::ConnectInfo`]): where it
/// comes from, and it says when the connection becomes a WebSocket, whose own limits then
/// apply.
#[derive(Debug, Clone)]
pub struct Door {
    upgraded: Arc<AtomicBool>,
    /// The address the connection came from (what limits per address count).
    pub peer: IpAddr,
}

impl Door {
    /// The connection is becoming a WebSocket: it no longer has a request deadline.
    pub fn upgrading(&self) {
        self.upgraded.store(true, Ordering::Relaxed);
    }
}

impl Connected<IncomingStream<'_, Guarded>> for Door {
    fn connect_info(stream: IncomingStream<'_, Guarded>) -> Door {
        Door { upgraded: Arc::clone(&stream.io().upgraded), peer: stream.remote_addr().ip() }
    }
}
