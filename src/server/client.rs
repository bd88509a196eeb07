//! `diving join`: the game shell over the network. It reads lines like `play` does, sends
//! them to the server, and prints what the server made for its seat: the narration and board
//! as text, or with `--json` the same JSON Lines objects local `--json` play prints. It holds
//! no game: the commands are parsed and checked on the server.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::{Context, bail};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use super::protocol::{PROTOCOL, RulesetId};

/// What `diving join` was asked.
#[derive(Debug, Clone, Default)]
pub struct JoinOptions {
    /// `HOST:PORT/ROOM` (or a `ws://` URL).
    pub target: String,
    /// The seat (1-based) and its token; neither: watch.
    pub seat: Option<usize>,
    pub token: Option<String>,
    pub json: bool,
    /// The ruleset the player expects (from `--ruleset`).
    pub ruleset: Option<RulesetId>,
}

/// The WebSocket URL of an invite's `HOST:PORT/ROOM`.
pub fn url(target: &str) -> anyhow::Result<String> {
    if target.starts_with("wss://") {
        bail!(
            "this diving speaks plain ws://; put a TLS proxy in front of the server and join it with ws:// through a tunnel, or use the host's address"
        );
    }
    let rest = target.strip_prefix("ws://").unwrap_or(target);
    match rest.split_once('/') {
        Some((host, room)) if !host.is_empty() && !room.is_empty() && !room.contains('/') => {
            Ok(format!("ws://{host}/{room}"))
        }
        _ => bail!("'{target}' is not HOST:PORT/ROOM (as the host's invite prints it)"),
    }
}

/// Runs `diving join`.
pub fn join(options: &JoinOptions) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(run(options))
}

async fn run(options: &JoinOptions) -> anyhow::Result<ExitCode> {
    let url = url(&options.target)?;
    let hello = match (options.seat, &options.token) {
        (Some(seat), Some(token)) => {
            json!({ "type": "join", "protocol": PROTOCOL, "seat": seat, "token": token, "ruleset": options.ruleset.as_ref().map(RulesetId::to_json) })
        }
        (None, None) => {
            json!({ "type": "watch", "protocol": PROTOCOL, "ruleset": options.ruleset.as_ref().map(RulesetId::to_json) })
        }
        _ => bail!("--seat and --token go together (the host's invite has both); without them you watch"),
    };
    let (socket, _) =
        tokio_tungstenite::connect_async(url.as_str()).await.with_context(|| format!("cannot connect to {url}"))?;
    let (mut sink, mut stream) = socket.split();
    sink.send(Message::text(hello.to_string())).await?;

    // Lines are read with the shell's limits, and at most a few wait to be sent: a pipe that
    // pours lines faster than the server answers waits instead of filling memory.
    let (lines_tx, mut lines) = tokio::sync::mpsc::channel::<String>(16);
    std::thread::spawn(move || {
        let mut input = crate::limits::Lines::new(io::stdin().lock());
        while let Ok(Some(line)) = input.next_line() {
            let line = match line {
                crate::limits::Line::Text(text) => text,
                refused => {
                    let message = refused.refusal(input.number()).unwrap_or_default();
                    let _ = writeln!(io::stderr(), "diving join: {message}");
                    continue;
                }
            };
            if lines_tx.blocking_send(line).is_err() {
                break;
            }
        }
    });

    let mut out = io::stdout().lock();
    let mut input_open = true;
    let mut over = false;
    loop {
        tokio::select! {
            message = stream.next() => {
                let text = match message {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(_))) | None => break,
                    Some(Ok(_)) => continue,
                    Some(Err(e)) => bail!("the connection to {url} broke: {e}"),
                };
                let value: Value = serde_json::from_str(&text).context("the server sent something that is not JSON")?;
                match value["type"].as_str() {
                    Some("hello") => {
                        let version = value["protocol"].as_u64().unwrap_or(0);
                        if version != PROTOCOL as u64 {
                            bail!("the server speaks protocol {version}, this diving speaks {PROTOCOL}: use the same version of diving");
                        }
                        show_hello(&mut out, &value, options.json)?;
                    }
                    Some("output") => over |= show_output(&mut out, &value, options.json)?,
                    Some("error") => {
                        let message = value["message"].as_str().unwrap_or("error");
                        let code = value["code"].as_str().unwrap_or("");
                        if matches!(code, "protocol" | "ruleset" | "seat" | "token" | "full" | "replaced" | "timeout" | "dropped") {
                            bail!("{message}");
                        }
                        if options.json {
                            writeln!(out, "{}", json!({ "error": message, "code": code }))?;
                        } else {
                            writeln!(out, "error: {message}")?;
                        }
                    }
                    _ => {}
                }
                out.flush()?;
                if over && !input_open {
                    break;
                }
            }
            line = lines.recv(), if input_open => {
                let Some(line) = line else {
                    input_open = false;
                    if over {
                        break;
                    }
                    continue;
                };
                let trimmed = line.trim();
                if trimmed.eq_ignore_ascii_case("quit") || trimmed.eq_ignore_ascii_case("q") {
                    break;
                }
                let message = json!({ "type": "command", "line": line });
                sink.send(Message::text(message.to_string())).await?;
            }
        }
    }
    let _ = sink.send(Message::Close(None)).await;
    Ok(ExitCode::SUCCESS)
}

fn show_hello(out: &mut impl Write, hello: &Value, json: bool) -> io::Result<()> {
    let ruleset = &hello["ruleset"];
    if json {
        let joined = json!({ "joined": {
            "room": hello["room"], "seat": hello["seat"], "player": hello["player"],
            "players": hello["players"], "bots": hello["bots"], "ruleset": ruleset, "protocol": hello["protocol"],
        }});
        return writeln!(out, "{joined}");
    }
    let players: Vec<&str> = hello["players"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    let who = match hello["player"].as_str() {
        Some(name) => format!("as {name} (seat {} of {})", hello["seat"], players.len()),
        None => "to watch".to_string(),
    };
    writeln!(
        out,
        "joined room {} {who}: {}; ruleset {} ({})",
        hello["room"].as_str().unwrap_or("?"),
        players.join(", "),
        ruleset["name"].as_str().unwrap_or("?"),
        ruleset["hash"].as_str().unwrap_or("?")
    )?;
    writeln!(out, "type 'help' for the commands, 'say TEXT' to chat, 'quit' to leave")
}

/// Prints an `output` message; whether it tells that the game ended.
fn show_output(out: &mut impl Write, output: &Value, json: bool) -> io::Result<bool> {
    let lines = output["json"].as_array().map(Vec::as_slice).unwrap_or_default();
    let over = lines.iter().any(|l| matches!(l["event"].as_str(), Some("won" | "draw")));
    if json {
        for line in lines {
            writeln!(out, "{}", serde_json::to_string(line).unwrap_or_default())?;
        }
    } else {
        for line in output["text"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            writeln!(out, "{line}")?;
        }
    }
    Ok(over)
}
