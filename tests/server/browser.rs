//! The browser seat in a real browser: headless Chromium, driven through chromedriver by
//! fantoccini, plays a whole game through the page served by a loopback server against two
//! bots. It clicks cards (and a target when asked), recovers by selecting cards,
//! passes, chats, presses the keys the page documents, reloads the page in the middle and
//! goes through a dropped connection (a proxy between the browser and the server cuts every
//! socket and refuses new ones until the test lets them through again), and saves
//! screenshots in `target/browser-artifacts/`.
//!
//! Without `chromium` and `chromedriver` on PATH (Debian: `apt-get install chromium
//! chromium-driver`) the test says plainly that it did not run and passes, unless
//! `DIVING_REQUIRE_BROWSER` is set (as `.ci/run` does): then a missing browser fails it.

use crate::server_support;

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use diving::server::net::{Server, ServerConfig};
use diving::server::room::{Room, RoomOptions, new_token};
use diving::table::session::{Seating, Session};
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;
use server_support::*;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// The longest the test waits for the page to reach a state (a hung page fails the test).
pub(crate) const PAGE_WAIT: Duration = Duration::from_secs(20);

/// Chromium's flags that work in a container without a display or a session bus.
const FLAGS: [&str; 10] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1100,1300",
];

fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|p| p.is_file())
}

/// The browser and its driver, or why they are missing.
fn browser() -> Result<(PathBuf, PathBuf), String> {
    let chromium = ["chromium", "chromium-browser", "google-chrome"].iter().find_map(|p| on_path(p));
    let driver = on_path("chromedriver");
    match (chromium, driver) {
        (Some(c), Some(d)) => Ok((c, d)),
        (c, d) => {
            let missing: Vec<&str> = [(c.is_none(), "chromium"), (d.is_none(), "chromedriver")]
                .iter()
                .filter(|(m, _)| *m)
                .map(|(_, n)| *n)
                .collect();
            Err(format!("{} not found on PATH", missing.join(" and ")))
        }
    }
}

/// chromedriver, stopped when dropped.
pub(crate) struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn start_driver(path: &Path) -> Driver {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = Command::new(path)
        .arg(format!("--port={port}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", path.display()));
    // chromedriver says when it listens; read up to that line.
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let driver = Driver { child, port };
    loop {
        match lines.next() {
            Some(Ok(line)) if line.contains("started successfully") => break,
            Some(Ok(_)) => continue,
            _ => panic!("chromedriver stopped before it listened"),
        }
    }
    // Keep draining its output so it never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    driver
}

/// A TCP proxy on loopback in front of the server; `cut` closes every connection through it
/// and refuses new ones until `open`; `hold` closes them too but keeps new ones waiting at the
/// door (accepted, nothing forwarded) until `open` lets them through; `point` sends new ones
/// to another server (one resumed from the first one's directory).
struct Proxy {
    addr: SocketAddr,
    gate: watch::Sender<Gate>,
    target: watch::Sender<SocketAddr>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gate {
    Open,
    Cut,
    Hold,
}

impl Proxy {
    async fn start(target: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (gate, state) = watch::channel(Gate::Open);
        let (target, to) = watch::channel(target);
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let mut state = state.clone();
                if *state.borrow() == Gate::Cut {
                    drop(inbound);
                    continue;
                }
                let to = to.clone();
                tokio::spawn(async move {
                    // A connection held at the door goes on once the gate opens (and is
                    // dropped if it is cut instead).
                    let open = matches!(state.wait_for(|g| *g != Gate::Hold).await.as_deref(), Ok(Gate::Open));
                    if !open {
                        return;
                    }
                    let target = *to.borrow();
                    let Ok(mut outbound) = TcpStream::connect(target).await else { return };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = state.wait_for(|g| *g != Gate::Open) => {}
                    }
                });
            }
        });
        Proxy { addr, gate, target }
    }

    fn point(&self, target: SocketAddr) {
        self.target.send_replace(target);
    }

    fn cut(&self) {
        self.gate.send_replace(Gate::Cut);
    }

    fn hold(&self) {
        self.gate.send_replace(Gate::Hold);
    }

    fn open(&self) {
        self.gate.send_replace(Gate::Open);
    }
}

fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let dir = target.join("browser-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) async fn screenshot(page: &Client, name: &str) {
    let png = page.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a screenshot is a PNG");
    let path = artifacts().join(name);
    std::fs::write(&path, png).unwrap();
    let _ = writeln!(std::io::stderr(), "browser test: saved {}", path.display());
}

/// The lines of "What happened", as the page shows them.
pub(crate) async fn log(page: &Client) -> Vec<String> {
    let mut lines = Vec::new();
    for li in page.find_all(Locator::Css("#log li")).await.unwrap() {
        lines.push(li.text().await.unwrap());
    }
    lines
}

pub(crate) async fn wait_for(page: &Client, css: &str) -> fantoccini::elements::Element {
    // A look made while the page navigates (the lobby's page opening a seat's) is aborted by
    // the navigation, not answered: look again on the new page (a few times at most).
    for _ in 0..5 {
        match page.wait().at_most(PAGE_WAIT).every(Duration::from_millis(25)).for_element(Locator::Css(css)).await {
            Ok(element) => return element,
            Err(e) if e.to_string().contains("aborted by navigation") => continue,
            Err(e) => panic!("the page never showed '{css}': {e}"),
        }
    }
    panic!("the page never showed '{css}': every look was aborted by a navigation")
}

pub(crate) async fn attr(page: &Client, css: &str, name: &str) -> String {
    page.find(Locator::Css(css)).await.unwrap().attr(name).await.unwrap().unwrap_or_default()
}

async fn visible(page: &Client, css: &str) -> Vec<fantoccini::elements::Element> {
    let mut shown = Vec::new();
    for e in page.find_all(Locator::Css(css)).await.unwrap() {
        if e.is_displayed().await.unwrap_or(false) {
            shown.push(e);
        }
    }
    shown
}

/// The first card that can be played in several ways (its title lists each play).
async fn choosy(cards: &[fantoccini::elements::Element]) -> Option<fantoccini::elements::Element> {
    for card in cards {
        let title = card.attr("title").await.unwrap().unwrap_or_default();
        if title.lines().filter(|l| l.starts_with("play ")).count() > 1 {
            return Some(card.clone());
        }
    }
    None
}

/// One move through the page, the way a person would make it: `style` picks clicking a card,
/// the card's key, or a recovery by selection. Returns what it did.
pub(crate) async fn play_one(page: &Client, style: usize) -> &'static str {
    let sent: u64 = attr(page, "body", "data-sent").await.parse().unwrap();
    let hand = visible(page, "#hand button.card.playable").await;
    let table = visible(page, "#table button.card.playable").await;
    let recover = page.find(Locator::Css("#recover-mode")).await.unwrap();
    let can_recover = recover.is_enabled().await.unwrap();
    let done = if style % 4 == 3 && can_recover {
        // Recover: select the first card of the hand, then confirm with Enter.
        recover.click().await.unwrap();
        page.find(Locator::Css("#hand button[data-index='1']")).await.unwrap().click().await.unwrap();
        if visible(page, "#choices-list button[data-recover]").await.is_empty() {
            // Not a legal recovery on its own: take the first one the page lists.
            page.find(Locator::Css("#choices-cancel")).await.unwrap().click().await.unwrap();
            page.find(Locator::Css("#recoveries summary")).await.unwrap().click().await.unwrap();
            page.find(Locator::Css("#recoveries-list button")).await.unwrap().click().await.unwrap();
            "recover (listed)"
        } else {
            page.active_element().await.unwrap().send_keys("\u{E007}").await.unwrap();
            "recover (selected)"
        }
    } else if let Some(card) = choosy(&hand).await.or(hand.first().cloned()).or(table.first().cloned()).as_ref() {
        let from_hand = !hand.is_empty();
        if style % 4 == 1 && from_hand {
            // The card's key: 1 to 9 pick a hand card.
            let index = card.attr("data-index").await.unwrap().unwrap();
            page.active_element().await.unwrap().send_keys(&index).await.unwrap();
        } else {
            card.click().await.unwrap();
        }
        // A card with several ways to play (a target): the page asks; take the first.
        match visible(page, "#choices-list button").await.first() {
            Some(choice) => {
                choice.click().await.unwrap();
                "play (chose a target)"
            }
            None if style % 4 == 1 && from_hand => "play (by its key)",
            None => "play",
        }
    } else if can_recover {
        recover.click().await.unwrap();
        page.find(Locator::Css("#hand button[data-index='1']")).await.unwrap().click().await.unwrap();
        match visible(page, "#choices-list button[data-recover]").await.first() {
            Some(go) => go.click().await.unwrap(),
            None => {
                page.find(Locator::Css("#choices-cancel")).await.unwrap().click().await.unwrap();
                page.find(Locator::Css("#recoveries summary")).await.unwrap().click().await.unwrap();
                page.find(Locator::Css("#recoveries-list button")).await.unwrap().click().await.unwrap();
            }
        }
        "recover"
    } else {
        page.find(Locator::Css("#pass")).await.unwrap().click().await.unwrap();
        "pass"
    };
    // The page counts the commands it sent.
    wait_for(page, &format!("body[data-sent='{}']", sent + 1)).await;
    done
}

/// The browser and its driver, or `None` (said on stderr) when they are missing and the test
/// may be skipped.
pub(crate) fn browser_or_skip() -> Option<(PathBuf, PathBuf)> {
    match browser() {
        Ok(found) => Some(found),
        Err(why) if std::env::var_os("DIVING_REQUIRE_BROWSER").is_some() => {
            panic!("the browser test must run (DIVING_REQUIRE_BROWSER is set), but {why}")
        }
        Err(why) => {
            // Straight to stderr, past the test harness's capture: this must be seen.
            let note =
                format!("\nbrowser tests NOT RUN: {why} (install them: apt-get install chromium chromium-driver)\n");
            let _ = std::io::stderr().lock().write_all(note.as_bytes());
            None
        }
    }
}

#[test]
fn a_whole_game_in_the_browser_against_a_bot_with_a_reconnect() {
    let Some((chromium, chromedriver)) = browser_or_skip() else { return };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(play_a_game(&chromium, &chromedriver));
}

/// A headless Chromium session through `driver`, with a profile in `profile`.
pub(crate) async fn open_browser(chromium: &Path, driver: &Driver, profile: &Path) -> Client {
    open_browser_with(chromium, driver, profile, &[]).await
}

/// [`open_browser`] with more of Chromium's flags (`--blink-settings=preferredColorScheme=0`:
/// a person who asked their system for dark pages).
pub(crate) async fn open_browser_with(chromium: &Path, driver: &Driver, profile: &Path, flags: &[&str]) -> Client {
    let mut args: Vec<String> = FLAGS.iter().chain(flags).map(|f| f.to_string()).collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    let capabilities = json!({
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": chromium, "args": args },
    });
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities.as_object().unwrap().clone())
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("chromedriver starts a browser session")
}

/// Presses one key, as a keyboard does (the page gets the real key events, and Tab moves the
/// focus as it would for a person).
async fn press(page: &Client, key: Key) {
    let code: char = key.into();
    let keys = KeyActions::new("keyboard".to_string())
        .then(KeyAction::Down { value: code })
        .then(KeyAction::Up { value: code });
    page.perform_actions(keys).await.unwrap();
}

/// What has the focus: `group:ID|label` for a cell of a group (`data-rove`), `#ID|…` or the
/// tag otherwise, `body` for none.
async fn focused(page: &Client) -> String {
    let script = "const a = document.activeElement; if (!a || a === document.body) return 'body'; \
                  const g = a.closest('[data-rove]'); \
                  const where = g ? 'group:' + g.id : (a.id ? '#' + a.id : a.tagName.toLowerCase()); \
                  return where + '|' + (a.getAttribute('aria-label') || a.textContent.trim().slice(0, 80));";
    page.execute(script, vec![]).await.unwrap().as_str().unwrap().to_string()
}

/// Presses Tab until the focus is in `group` (at most 40 times); how many it took.
async fn tab_to(page: &Client, group: &str) -> usize {
    for tabs in 0..40 {
        if focused(page).await.starts_with(&format!("group:{group}|")) {
            return tabs;
        }
        press(page, Key::Tab).await;
    }
    panic!("40 Tabs never reached the group #{group}: the focus is on {}", focused(page).await)
}

/// Every cell of the focused group, read by going through it with the right arrow (until it
/// comes back to where it began).
async fn arrow_through(page: &Client) -> Vec<String> {
    let first = focused(page).await;
    let mut seen = vec![first.clone()];
    for _ in 0..80 {
        press(page, Key::Right).await;
        let now = focused(page).await;
        if now == first {
            return seen;
        }
        seen.push(now);
    }
    panic!("the arrow keys never came back to {first}: {seen:#?}")
}

/// A layout fact measured in the page at the window's size: `[scrollWidth, innerWidth, the
/// hand's top, innerHeight]`.
async fn layout(page: &Client, width: u32, height: u32) -> Vec<f64> {
    // The window's size counts the browser's own frame: the page gets `height` once that is
    // added. The page learns of a new size a little later (on a busy machine it read the old
    // one), so the frame is measured again until the page has the size asked for.
    let inner_height = || async {
        page.execute("return [window.innerWidth, window.innerHeight]", vec![]).await.unwrap().as_array().unwrap()[1]
            .as_f64()
            .unwrap() as u32
    };
    let mut outer = height;
    let deadline = std::time::Instant::now() + PAGE_WAIT;
    loop {
        page.set_window_size(width, outer).await.unwrap();
        let inner = inner_height().await;
        if inner == height {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the page never got {width}x{height} (it has {inner} px)");
        // Grow or shrink the window by what the page lacks or has too much of.
        outer = (outer + height).saturating_sub(inner).max(height);
        tokio::task::yield_now().await;
    }
    let script = "window.scrollTo(0, 0); \
                  const hand = document.getElementById('hand').getBoundingClientRect(); \
                  return [document.documentElement.scrollWidth, window.innerWidth, hand.top, window.innerHeight];";
    let numbers = page.execute(script, vec![]).await.unwrap();
    numbers.as_array().unwrap().iter().map(|n| n.as_f64().unwrap()).collect()
}

/// A whole game played with the keyboard alone (Tab, Enter and the arrow keys), four divers,
/// one with a name of 32 letters; the table, the discard, the deck, every diver and every card
/// in front reachable in one Tab each group; and the page measured at phone widths.
#[test]
fn a_keyboard_only_game_and_the_page_at_phone_widths() {
    let Some((chromium, chromedriver)) = browser_or_skip() else { return };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let driver = start_driver(&chromedriver);
        let profile = tempfile::tempdir().unwrap();
        let long = "abcdefghijklmnopqrstuvwxyzabcdef";
        assert_eq!(long.chars().count(), 32);
        // The person has the long name: the header, the divers, the chat and the turn line show it.
        let seat = |name: &str, bot: Option<&str>| Seating { name: name.into(), bot: bot.map(str::to_string) };
        let seating = vec![
            seat(long, None),
            seat("ann", Some("greedy")),
            seat("bob", Some("random")),
            seat("cy", Some("greedy")),
        ];
        let session = Session::new("standard", seating, 20_261_202, None).unwrap();
        let room = Room::new("1", session, vec![Some(new_token()), None, None, None], RoomOptions::default());
        let server = serve(vec![room], ServerConfig::default()).await;
        let token = token(&server, "1", 0);
        let page = open_browser(&chromium, &driver, profile.path()).await;
        let result = keyboard_game(&page, &server, &token, long).await;
        let _ = page.close().await;
        server.stop().await.unwrap();
        drop(driver);
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
    });
}

async fn keyboard_game(
    page: &Client,
    server: &Server,
    token: &str,
    long: &str,
) -> Result<(), Box<dyn std::any::Any + Send>> {
    use futures_util::FutureExt;
    std::panic::AssertUnwindSafe(async {
        page.goto(&format!("http://{}/1#seat=1&token={token}", server.addr)).await.unwrap();
        wait_for(page, "body[data-conn='open'][data-phase='yours']").await;

        // Phones: no sideways scroll with the 32-letter name at 390 px, and the hand on the
        // first screen with four divers at 320 to 360 px.
        for (width, height) in [(320, 568), (360, 640), (390, 844)] {
            let [scroll, inner, hand, tall] = layout(page, width, height).await[..] else { unreachable!() };
            screenshot(page, &format!("keyboard-phone-{width}.png")).await;
            assert!(scroll <= inner, "at {width} px the page scrolls sideways: {scroll} > {inner}");
            assert!(hand < tall, "at {width}x{height} the hand begins below the first screen ({hand} px of {tall})");
        }
        let _ = layout(page, 320, 568).await;
        // A 200-character chat line and a 300-character line of narration wrap inside their
        // boxes (the narration's is added as the page adds one, with its classes).
        let word = "w".repeat(200);
        page.find(Locator::Css("#chat-text")).await.unwrap().send_keys(&word).await.unwrap();
        page.find(Locator::Css("#chat-form button")).await.unwrap().click().await.unwrap();
        wait_for(page, "#chat li").await;
        let script = "const li = document.createElement('li'); li.textContent = 'm'.repeat(300); \
                      const block = document.createElement('li'); block.className = 'block'; block.textContent = 'b'.repeat(300) + '\\n' + 'c'.repeat(300); \
                      document.getElementById('log').append(li, block); \
                      return [...document.querySelectorAll('#chat li, #log li')].filter(n => n.scrollWidth > n.clientWidth + 1).map(n => n.textContent.slice(0, 40));";
        let overflowing = page.execute(script, vec![]).await.unwrap();
        assert_eq!(overflowing, json!([]), "lines cut instead of wrapped at 320 px");
        let scroll = page.execute("return document.documentElement.scrollWidth <= window.innerWidth", vec![]).await.unwrap();
        assert_eq!(scroll, json!(true), "the long lines scroll the page sideways at 320 px");
        // Wide screens: the gauges keep a bounded width.
        page.set_window_size(2400, 1200).await.unwrap();
        let widest = page
            .execute("return Math.max(...[...document.querySelectorAll('.gauge .bar')].map(b => b.getBoundingClientRect().width))", vec![])
            .await
            .unwrap()
            .as_f64()
            .unwrap();
        assert!(widest > 0.0 && widest <= 600.0, "a gauge is {widest} px wide at 2400 px");
        page.set_window_size(1100, 1300).await.unwrap();
        assert!(page.find(Locator::Css("#divers")).await.unwrap().text().await.unwrap().contains(long));

        // The page's Tab stops, from the top: each group is one stop.
        // From the turn line (the page's first focusable place, not a Tab stop itself).
        page.execute("document.getElementById('turn').focus();", vec![]).await.unwrap();
        let mut stops: Vec<String> = Vec::new();
        for _ in 0..40 {
            press(page, Key::Tab).await;
            let at = focused(page).await;
            if stops.first() == Some(&at) || at == "body" {
                break;
            }
            stops.push(at);
        }
        let groups: Vec<&str> = stops.iter().filter_map(|s| s.strip_prefix("group:")).map(|s| s.split('|').next().unwrap()).collect();
        for group in ["board", "hand", "divers", "moves"] {
            assert_eq!(groups.iter().filter(|g| **g == group).count(), 1, "#{group} is not one Tab stop: {stops:#?}");
        }
        assert!(stops.len() <= 16, "{} Tab stops: {stops:#?}", stops.len());
        // The table, the discard and the deck, read with the arrow keys.
        tab_to(page, "board").await;
        let board = arrow_through(page).await;
        let slots = server.with_room("1", |r| r.session().game().table().len()).unwrap();
        assert_eq!(board.len(), slots + 2, "{board:#?}");
        for (i, cell) in board.iter().take(slots).enumerate() {
            // Named first by what it shows (t1), then what it is.
            assert!(cell.contains(&format!("|t{} ", i + 1)) && cell.contains(&format!("table slot {}", i + 1)), "{cell}");
        }
        assert!(board[slots].contains("discard"), "{board:#?}");
        assert!(board[slots + 1].contains("deck: "), "{board:#?}");
        tab_to(page, "divers").await;
        let divers = arrow_through(page).await;
        assert_eq!(divers.len(), 4, "{divers:#?}");
        assert!(divers[0].contains(&format!("{long} (you")) && divers[0].contains("depth ") && divers[0].contains("oxygen "), "{divers:#?}");

        let mut fronts_read = false;
        let mut reason_heard = false;
        let mut recover_cancelled = false;
        let mut made: Vec<&str> = Vec::new();
        for turn in 0..400 {
            let phase = wait_for(page, "body[data-phase='yours'], body[data-phase='over']").await;
            if phase.attr("data-phase").await.unwrap().as_deref() == Some("over") {
                break;
            }
            let sent: u64 = attr(page, "body", "data-sent").await.parse().unwrap();
            // Cards in front of the divers, once there are some: each one read in the divers'
            // group, with whose it is and its suit.
            let fronts = page.find_all(Locator::Css("#divers .front-card .card")).await.unwrap().len();
            if fronts > 0 && !fronts_read {
                tab_to(page, "divers").await;
                let cells = arrow_through(page).await;
                let read: Vec<&String> = cells.iter().filter(|c| c.contains("|in front of ")).collect();
                assert_eq!(read.len(), fronts, "{cells:#?}");
                assert!(read.iter().all(|c| c.contains(" of ")), "{read:#?}");
                fronts_read = true;
            }
            if !reason_heard {
                // A card of the hand that has no move now: Enter on it says why, in the host's
                // words (the page said only "cannot be played now").
                let cards = page.find_all(Locator::Css("#hand button.card")).await.unwrap();
                let mut blocked = None;
                for (i, card) in cards.iter().enumerate() {
                    if !card.attr("class").await.unwrap().unwrap_or_default().contains("playable") {
                        blocked = Some((i, card.attr("data-card").await.unwrap().unwrap()));
                        break;
                    }
                }
                if let Some((i, card)) = blocked {
                    tab_to(page, "hand").await;
                    press(page, Key::Home).await;
                    for _ in 0..i {
                        press(page, Key::Right).await;
                    }
                    press(page, Key::Enter).await;
                    let hint = wait_for(page, "#hint.error").await.text().await.unwrap();
                    assert!(hint.contains(&card) && hint.contains(": "), "{card}: {hint}");
                    wait_for(page, &format!("body[data-sent='{}'][data-phase='yours']", sent + 1)).await;
                    reason_heard = true;
                    continue;
                }
            }
            if !recover_cancelled && page.find(Locator::Css("#recover-mode")).await.unwrap().is_enabled().await.unwrap() {
                // Recover… opened and closed again by keyboard leaves no text in the hidden box.
                for _ in 0..40 {
                    if focused(page).await.starts_with("#recover-mode") {
                        break;
                    }
                    press(page, Key::Tab).await;
                }
                press(page, Key::Enter).await;
                wait_for(page, "#choices:not([hidden])").await;
                assert!(focused(page).await.starts_with("#recover-mode"), "{}", focused(page).await);
                press(page, Key::Enter).await;
                wait_for(page, "#choices[hidden]").await;
                let stale = page.find(Locator::Css("#choices")).await.unwrap().html(true).await.unwrap();
                assert!(!stale.contains("recover"), "the hidden box keeps: {stale}");
                recover_cancelled = true;
            }
            let recoveries = page.find(Locator::Css("#recoveries")).await.unwrap().attr("hidden").await.unwrap().is_none();
            let playable = !page.find_all(Locator::Css("#hand button.playable")).await.unwrap().is_empty();
            if turn % 3 == 2 && recoveries {
                // A recovery from the list: its summary opens with Enter, Tab goes into it.
                for _ in 0..40 {
                    if focused(page).await.starts_with("#recoveries-title") {
                        break;
                    }
                    press(page, Key::Tab).await;
                }
                assert!(focused(page).await.starts_with("#recoveries-title"), "{}", focused(page).await);
                // Open stays open from an earlier recovery: Enter would close it.
                if page.find(Locator::Css("#recoveries")).await.unwrap().attr("open").await.unwrap().is_none() {
                    press(page, Key::Enter).await;
                }
                tab_to(page, "recoveries-list").await;
                press(page, Key::Enter).await;
                made.push("recovery");
            } else if turn % 3 == 0 && playable {
                // A card of the hand: the arrow keys to a playable one, Enter; a card with a
                // choice (a target) opens it with the focus on its first button: Enter.
                tab_to(page, "hand").await;
                for _ in 0..20 {
                    if page.execute("return document.activeElement.classList.contains('playable')", vec![]).await.unwrap() == json!(true) {
                        break;
                    }
                    press(page, Key::Right).await;
                }
                press(page, Key::Enter).await;
                if attr(page, "body", "data-sent").await == sent.to_string() {
                    wait_for(page, "#choices:not([hidden]) #choices-list button").await;
                    assert!(focused(page).await.starts_with("group:choices-list|"), "{}", focused(page).await);
                    press(page, Key::Enter).await;
                    made.push("card with a choice");
                } else {
                    made.push("card");
                }
            } else {
                // A move of the list: Tab to it, down the arrow a few, Enter.
                tab_to(page, "moves").await;
                for _ in 0..turn % 4 {
                    press(page, Key::Down).await;
                }
                press(page, Key::Enter).await;
                made.push("listed move");
            }
            wait_for(page, &format!("body[data-sent='{}']", sent + 1)).await;
            wait_for(page, "body[data-phase='yours'], body[data-phase='over']").await;
            assert_ne!(focused(page).await, "body", "the focus fell to the page after move {turn}");
        }
        wait_for(page, "body[data-phase='over']").await;
        assert!(server.with_room("1", |r| r.is_over()).unwrap(), "the server's game is over");
        for kind in ["card", "listed move"] {
            assert!(made.contains(&kind), "no {kind} was made by keyboard: {made:?}");
        }
        assert!(reason_heard && recover_cancelled && fronts_read, "{reason_heard} {recover_cancelled} {fronts_read}");
        let _ = writeln!(std::io::stderr(), "browser test: a keyboard-only game of {} moves: {made:?}", made.len());
        screenshot(page, "keyboard-end.png").await;
    })
    .catch_unwind()
    .await
}

async fn play_a_game(chromium: &Path, chromedriver: &Path) {
    let driver = start_driver(chromedriver);
    let profile = tempfile::tempdir().unwrap();
    let room = room("1", &["alice", "bot:greedy", "bot:random"], 20_261_201, RoomOptions::default());
    let games = tempfile::tempdir().unwrap();
    let config = ServerConfig { dir: Some(games.path().to_path_buf()), ..ServerConfig::default() };
    let mut server = Some(serve(vec![room], config.clone()).await);
    let proxy = Proxy::start(server.as_ref().unwrap().addr).await;
    let token = token(server.as_ref().unwrap(), "1", 0);
    let page = open_browser(chromium, &driver, profile.path()).await;
    let result = drive(&page, &mut server, &config, &proxy, &token).await;
    let _ = page.close().await;
    if let Some(server) = server {
        server.stop().await.unwrap();
    }
    drop(driver);
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
}

/// The game itself; a failure is carried out so the browser and the driver are closed first.
async fn drive(
    page: &Client,
    host: &mut Option<Server>,
    config: &ServerConfig,
    proxy: &Proxy,
    token: &str,
) -> Result<(), Box<dyn std::any::Any + Send>> {
    use futures_util::FutureExt;
    std::panic::AssertUnwindSafe(async {
        let mut server = host.take().unwrap();
        let invite = format!("http://{}/1#seat=1&token={token}", proxy.addr);
        page.goto(&invite).await.unwrap();
        wait_for(page, "body[data-conn='open'][data-phase='yours']").await;
        assert!(page.find(Locator::Css("#who")).await.unwrap().text().await.unwrap().contains("you are alice"));
        assert_eq!(page.find_all(Locator::Css("#divers li")).await.unwrap().len(), 3);
        // The tab title says it is this seat's move.
        assert!(page.title().await.unwrap().starts_with("▶ your move"), "{}", page.title().await.unwrap());
        screenshot(page, "start.png").await;

        // Chat reaches the table and comes back.
        page.find(Locator::Css("#chat-text")).await.unwrap().send_keys("hello from the browser").await.unwrap();
        page.find(Locator::Css("#chat-form button")).await.unwrap().click().await.unwrap();
        let said = wait_for(page, "#chat li").await.text().await.unwrap();
        assert_eq!(said, "alice: hello from the browser");

        let mut played = Vec::new();
        for turn in 0..400 {
            let phase = wait_for(page, "body[data-phase='yours'], body[data-phase='over']").await;
            if phase.attr("data-phase").await.unwrap().as_deref() == Some("over") {
                break;
            }
            if turn == 3 {
                // A reload: the page comes back to the same seat with its token, and shows
                // what happened as before (it was wiped: 26 lines became 2).
                let before = log(page).await;
                assert!(before.len() > 5, "{before:#?}");
                page.refresh().await.unwrap();
                wait_for(page, "body[data-conn='open'][data-phase='yours']").await;
                assert_eq!(log(page).await, before, "the history after a reload");
            }
            if turn == 6 {
                // The network drops: the page says so, retries, and is back once it can.
                let before = log(page).await;
                let at = server.with_room("1", |r| r.session().entries().len()).unwrap();
                proxy.cut();
                wait_for(page, "body[data-conn='reconnecting']").await;
                let banner = page.find(Locator::Css("#conn")).await.unwrap().text().await.unwrap();
                assert!(banner.contains("connection lost"), "{banner}");
                screenshot(page, "reconnecting.png").await;
                proxy.open();
                wait_for(page, "body[data-conn='open'][data-reconnects='1'][data-phase='yours']").await;
                assert_eq!(server.with_room("1", |r| r.session().entries().len()).unwrap(), at, "no move was lost");
                // One line says so; nothing is told twice, and no terminal board is added.
                let mut expected = before;
                expected.push("welcome back, alice: nothing was played while you were away".to_string());
                assert_eq!(log(page).await, expected, "the history after a reconnection");
            }
            if turn == 9 {
                // The host stops and is resumed from its directory: the page gets back in and
                // is sent nothing twice (the whole narration was appended again).
                let before = log(page).await;
                proxy.cut();
                server.stop().await.unwrap();
                wait_for(page, "body[data-conn='reconnecting']").await;
                server = serve(resumed(&config.dir.clone().unwrap()), config.clone()).await;
                proxy.point(server.addr);
                proxy.open();
                wait_for(page, "body[data-conn='open'][data-reconnects='2'][data-phase='yours']").await;
                let mut expected = before;
                expected.push("welcome back, alice: nothing was played while you were away".to_string());
                assert_eq!(log(page).await, expected, "the history after a resume");
            }
            played.push(play_one(page, turn).await);
            if turn < 12 {
                // The focus stays in the game after a move (it fell to the page every time).
                wait_for(page, "body[data-phase='yours'], body[data-phase='over']").await;
                let focused: String = page
                    .execute("return document.activeElement === document.body ? 'body' : document.activeElement.outerHTML", vec![])
                    .await
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string();
                assert_ne!(focused, "body", "the focus fell to the page after move {turn}");
            }
        }
        wait_for(page, "body[data-phase='over']").await;
        let (winner, moves) = server
            .with_room("1", |r| {
                let game = r.session().game();
                (game.winner().map(|w| game.name(w).to_string()), r.session().entries().len())
            })
            .unwrap();
        assert!(server.with_room("1", |r| r.is_over()).unwrap(), "the server's game is over");
        let turn = page.find(Locator::Css("#turn")).await.unwrap().text().await.unwrap();
        match winner.as_deref() {
            Some("alice") => assert!(turn.contains("you won"), "{turn}"),
            Some(w) => assert!(turn.contains(&format!("{w} won")), "{turn}"),
            None => assert!(turn.contains("draw"), "{turn}"),
        }
        for kind in ["play", "play (chose", "play (by its key", "recover (selected"] {
            assert!(played.iter().any(|p| p.starts_with(kind)), "the page made no {kind}: {played:?}");
        }
        // The page drew the server's last state: every diver's depth.
        let depths: Vec<String> = server
            .with_room("1", |r| r.session().game().players().iter().map(|p| p.depth.to_string()).collect())
            .unwrap();
        for (seat, depth) in depths.iter().enumerate() {
            assert_eq!(&attr(page, &format!("#divers li[data-seat='{}']", seat + 1), "data-depth").await, depth);
        }
        let _ = writeln!(
            std::io::stderr(),
            "browser test: {} moves in all, {} through the page ({played:?}); winner {winner:?}",
            moves,
            played.len()
        );
        // Each turn's line once (the page keeps the last 300 lines).
        let turns: Vec<String> = log(page).await.into_iter().filter(|l| l.starts_with("-- turn ")).collect();
        let once: std::collections::HashSet<&String> = turns.iter().collect();
        assert!(turns.len() > 10 && once.len() == turns.len(), "a turn told twice: {turns:#?}");
        screenshot(page, "end.png").await;
        // "What happened" and the chat are announced; the discard top is read with its suit.
        for feed in ["#log-box", "#chat-box"] {
            assert_eq!(attr(page, feed, "role").await, "log", "{feed}");
            assert_eq!(attr(page, feed, "aria-live").await, "polite", "{feed}");
        }
        let top = attr(page, "#discard .card", "aria-label").await;
        assert!(top.contains(" of ") || top.contains("empty"), "{top}");
        page.set_window_size(390, 844).await.unwrap();
        screenshot(page, "end-phone.png").await;
        // At a phone's width nothing scrolls sideways, and every button is a 44 px target.
        let layout = page
            .execute(
                "return [document.documentElement.scrollWidth, document.documentElement.clientWidth, \
                 Math.min(...[...document.querySelectorAll('button')].filter(b => b.offsetParent).map(b => b.getBoundingClientRect().height))]",
                vec![],
            )
            .await
            .unwrap();
        let numbers: Vec<f64> = layout.as_array().unwrap().iter().map(|n| n.as_f64().unwrap()).collect();
        assert!(numbers[0] <= numbers[1], "the page scrolls sideways at 390 px: {numbers:?}");
        assert!(numbers[2] >= 44.0, "a button is {} px tall", numbers[2]);
        page.set_window_size(1100, 1300).await.unwrap();

        // Once the game is over a dropped connection is tried once more (a table may stay for
        // a rematch): held at the door, the page says it tries, and it is back once let in.
        let back: u32 = attr(page, "body", "data-reconnects").await.parse().unwrap();
        proxy.hold();
        wait_for(page, "body[data-conn='reconnecting']").await;
        let banner = page.find(Locator::Css("#conn")).await.unwrap().text().await.unwrap();
        assert!(banner.contains("the game is over: reconnecting once"), "{banner}");
        proxy.open();
        wait_for(page, &format!("body[data-conn='open'][data-reconnects='{}'][data-phase='over']", back + 1)).await;
        // With the host out of reach that one try fails, and the page stops and says why.
        proxy.cut();
        wait_for(page, "body[data-conn='closed']").await;
        let banner = page.find(Locator::Css("#conn")).await.unwrap().text().await.unwrap();
        assert_eq!(banner, "the game is over and the host has closed the connection");
        proxy.open();

        // A seat link that names no seat shows the host's refusal, and the page stops trying
        // (it said "cannot reach the host — reconnecting" for ever).
        for bad in ["abc", "-1", "1.5", "99999999999999999999999", "0"] {
            page.goto(&format!("http://{}/1#seat={bad}&token={token}", proxy.addr)).await.unwrap();
            wait_for(page, "body[data-conn='closed']").await;
            let banner = page.find(Locator::Css("#conn")).await.unwrap().text().await.unwrap();
            assert!(banner.contains("seat"), "#seat={bad}: {banner}");
            assert!(!banner.contains("reconnecting"), "#seat={bad}: {banner}");
        }
        *host = Some(server);
    })
    .catch_unwind()
    .await
}
