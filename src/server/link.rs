//! A connection's writer ([`spawn_writer`]) and the handle the host's parts send through
//! ([`Link`]): each message is written to text once, in the writer, and the close frame says
//! why the connection ends ([`Close`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::extract::ws::{CloseFrame, Message, WebSocket};
use futures_util::SinkExt;
use tokio::sync::mpsc;

use crate::wire::{Close, ServerMessage};

/// The most messages that wait for a connection's writer: a reader further behind is sent
/// nothing more (PROTOCOL.md, *Limits*).
pub(super) const QUEUED: usize = 256;

/// What a connection's writer is asked to do.
pub(super) enum Out {
    Message(Box<ServerMessage>),
    /// Close with this cause, after what was queued before.
    Close(Close),
}

/// A connection's writer, as the messages made for it reach it.
#[derive(Clone)]
pub(super) struct Link {
    tx: mpsc::Sender<Out>,
    /// Set once a message could not be queued (a reader 256 messages behind): it is sent
    /// nothing more, so what it was sent has no gap.
    behind: Arc<AtomicBool>,
}

impl Link {
    /// A new writer's handle, and what its writer reads: at most [`QUEUED`] messages wait.
    pub(super) fn new() -> (Link, mpsc::Receiver<Out>) {
        let (tx, rx) = mpsc::channel(QUEUED);
        (Link { tx, behind: Arc::new(AtomicBool::new(false)) }, rx)
    }

    pub(super) fn send(&self, out: Out) {
        if self.behind.load(Ordering::Relaxed) {
            return;
        }
        if self.tx.try_send(out).is_err() {
            self.behind.store(true, Ordering::Relaxed);
        }
    }

    pub(super) fn message(&self, message: ServerMessage) {
        self.send(Out::Message(Box::new(message)));
    }

    pub(super) fn close(&self, why: Close) {
        self.send(Out::Close(why));
    }
}

/// Sends a connection's messages until it closes (or is told to close), then its close frame:
/// each message is written to text here, once.
pub(super) fn spawn_writer(
    mut sink: futures_util::stream::SplitSink<WebSocket, Message>,
    mut rx: mpsc::Receiver<Out>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut why = Close::Stopping;
        while let Some(out) = rx.recv().await {
            match out {
                Out::Message(message) => {
                    if sink.send(Message::Text(message.to_text().into())).await.is_err() {
                        return;
                    }
                }
                Out::Close(cause) => {
                    why = cause;
                    break;
                }
            }
        }
        let (code, reason) = why.status();
        let frame = CloseFrame { code, reason: reason.into() };
        let _ = sink.send(Message::Close(Some(frame))).await;
    })
}
