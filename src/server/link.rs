//! A connection's writer ([`spawn_writer`]) and the handle the host's parts send through
//! ([`Link`]): each message is written to text once, in the writer, and the close frame says
//! why the connection ends ([`Close`]): a reader [`QUEUED`] messages behind is closed as
//! such (1013 `behind`), not left open and told nothing more.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::extract::ws::{CloseFrame, Message};
use futures_util::{Sink, SinkExt};
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
    /// nothing more, so what it was sent has no gap, and its writer closes it.
    behind: Arc<AtomicBool>,
}

/// What a connection's writer reads: the messages queued for it, and whether its reader fell
/// behind.
pub(super) struct Queue {
    rx: mpsc::Receiver<Out>,
    behind: Arc<AtomicBool>,
}

impl Link {
    /// A new writer's handle, and what its writer reads: at most [`QUEUED`] messages wait.
    pub(super) fn new() -> (Link, Queue) {
        let (tx, rx) = mpsc::channel(QUEUED);
        let behind = Arc::new(AtomicBool::new(false));
        (Link { tx, behind: behind.clone() }, Queue { rx, behind })
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

/// Sends a connection's messages until it closes (or is told to close, or its reader fell
/// behind), then its close frame: each message is written to text here, once.
pub(super) fn spawn_writer<S>(mut sink: S, queue: Queue) -> tokio::task::JoinHandle<()>
where
    S: Sink<Message> + Unpin + Send + 'static,
{
    let Queue { mut rx, behind } = queue;
    tokio::spawn(async move {
        let mut why = Close::Stopping;
        while let Some(out) = rx.recv().await {
            if behind.load(Ordering::Relaxed) {
                why = Close::Behind;
                break;
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What a writer writes of what `send` queues on its link (before the writer runs: the
    /// test's runtime has one thread), until it ends.
    async fn written(send: impl FnOnce(&Link)) -> Vec<Message> {
        let written = Arc::new(std::sync::Mutex::new(Vec::new()));
        let to = written.clone();
        let sink = Box::pin(futures_util::sink::unfold((), move |(), message: Message| {
            to.lock().unwrap().push(message);
            async { Ok::<_, std::convert::Infallible>(()) }
        }));
        let (link, queue) = Link::new();
        send(&link);
        drop(link);
        spawn_writer(sink, queue).await.unwrap();
        let written = written.lock().unwrap();
        written.clone()
    }

    fn close_of(message: &Message) -> Option<(u16, String)> {
        match message {
            Message::Close(Some(frame)) => Some((frame.code, frame.reason.to_string())),
            _ => None,
        }
    }

    /// A reader that stopped reading is closed once its writer's queue is full, with the
    /// cause (it was left open and sent nothing more, and never knew).
    #[tokio::test]
    async fn a_reader_too_far_behind_is_closed_as_such() {
        let message = || ServerMessage::error(crate::wire::Code::Rate, "x", None);
        // The queue fills, and one more is too many.
        let behind = written(|link| (0..=QUEUED).for_each(|_| link.message(message()))).await;
        let closes: Vec<_> = behind.iter().filter_map(close_of).collect();
        assert_eq!(closes, [(1013, "behind".to_string())], "{} written", behind.len());
        // A reader that keeps up is sent all, then closed as asked.
        let kept = written(|link| {
            link.message(message());
            link.close(Close::Bye);
        })
        .await;
        assert_eq!(kept.len(), 2);
        assert_eq!(close_of(&kept[1]), Some((1000, "bye".to_string())));
    }
}
