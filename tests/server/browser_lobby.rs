//! The lobby in a real browser, as two people meet it: the real `diving host` binary in lobby
//! mode (no `--players` or `--seats`), two headless Chromium profiles. Ann picks her name on
//! the lobby page, makes a two-seat table and reads the invite link for seat 2; Bob opens it,
//! is asked for a name at the seat (a look-alike of Ann's is refused, in the host's words),
//! and both play to the end by clicking. Both press Rematch: a new game starts at the same
//! table with the seats turned one on (the page's link says the new seat, its history is the
//! new game's, a reload keeps it). The leaderboard, opened from the lobby, shows both with one
//! game and the winner rated above the loser. Then Ann makes a second table with a bot in its
//! last seat, and Bob takes its other seat by the invite code, from the lobby, where his name
//! picked at the seat is his too. The host is stopped with SIGTERM and must exit 0.
//! Screenshots go to `target/browser-artifacts/lobby-*.png`.
//!
//! Skipped (and said on stderr) without chromium and chromedriver, unless
//! `DIVING_REQUIRE_BROWSER` is set: see `browser.rs`.

use crate::browser::{
    PAGE_WAIT, attr, browser_or_skip, log, open_browser, play_one, screenshot, start_driver, wait_for,
};

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};
use serde_json::Value;

/// The ruleset the host offers besides the shipped ones: the bottom at depth 30, so that a
/// game between two people clicking takes a few turns.
const SHORT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/rulesets/short.toml");

/// The longest a whole game may take through the two pages.
const GAME_WAIT: Duration = Duration::from_secs(40);

/// `diving host` as a person starts it, with its stdout read on a thread (a host whose output
/// is closed stops at its next line) and its exit waited for on another. Killed if dropped
/// before [`Host::stop`].
pub(crate) struct Host {
    pid: u32,
    exited: mpsc::Receiver<ExitStatus>,
    /// Its exit was seen ([`Host::stop`]): the pid may be another process's now.
    stopped: bool,
    lines: mpsc::Receiver<String>,
    /// `HOST:PORT`, from the `listening` line.
    pub(crate) addr: String,
}

impl Host {
    pub(crate) fn start(dir: &Path) -> Host {
        let mut child = Command::new(env!("CARGO_BIN_EXE_diving"))
            .args(["host", "--json", "--bind", "127.0.0.1", "--port", "0", "--dir"])
            .arg(dir.join("games"))
            .arg("--ruleset")
            .arg(SHORT)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("diving host starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let pid = child.id();
        let (tx, exited) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait().expect("the host is waited for"));
        });
        let mut host = Host { pid, exited, stopped: false, lines, addr: String::new() };
        let deadline = Instant::now() + PAGE_WAIT;
        let listening: Value = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = host.lines.recv_timeout(left).expect("the host prints its listening line");
            if let Ok(value) = serde_json::from_str::<Value>(&line)
                && value.get("listening").is_some()
            {
                break value;
            }
        };
        let browser = listening["listening"]["browser"].as_str().expect("listening.browser");
        host.addr = browser.trim_start_matches("http://").trim_end_matches('/').to_string();
        host
    }

    fn signal(&self, name: &str) {
        let _ = Command::new("kill").arg(name).arg(self.pid.to_string()).status();
    }

    /// SIGTERM, then the exit status (within 20 s) and what the host printed after `listening`.
    pub(crate) fn stop(mut self) -> (ExitStatus, Vec<String>) {
        self.signal("-TERM");
        let status = self.exited.recv_timeout(Duration::from_secs(20)).expect("the host exits within 20 s of SIGTERM");
        self.stopped = true;
        (status, self.lines.try_iter().collect())
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        if !self.stopped && self.exited.try_recv().is_err() {
            self.signal("-KILL");
            let _ = self.exited.recv_timeout(Duration::from_secs(10));
        }
    }
}

#[test]
fn two_people_make_a_table_in_the_lobby_play_it_rematch_and_see_the_leaderboard() {
    two_people_at_a_host(meet_play_and_rematch);
}

/// Issue 46's done-when for item 4: Ann closes her tab mid-game and gets back to her seat from
/// the lobby (*Back to your seat*, listed to her alone), with the game as it stands; then she
/// makes a transfer code and opens its link in a second browser (the other profile), which is
/// her from then on and plays on at her seat. The code works once.
#[test]
fn a_closed_tab_gets_back_to_its_seat_from_the_lobby_and_a_second_browser_continues_by_a_transfer_code() {
    two_people_at_a_host(back_and_across);
}

/// Starts a lobby host and two Chromium profiles, runs `visit` with Ann's page, Bob's and the
/// host's `HOST:PORT`, then closes the pages and stops the host, which must exit 0 on SIGTERM.
/// A panic in `visit` is raised again once all of that is done, so a failed test leaves no
/// browser or host behind. Skipped without a browser, as [`browser_or_skip`] says.
pub(crate) fn two_people_at_a_host(visit: impl AsyncFnOnce(&Client, &Client, &str)) {
    let Some((chromium, chromedriver)) = browser_or_skip() else { return };
    let dir = tempfile::tempdir().unwrap();
    let host = Host::start(dir.path());
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let result = runtime.block_on(async {
        let driver = start_driver(&chromedriver);
        let (ann_profile, bob_profile) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let ann = open_browser(&chromium, &driver, ann_profile.path()).await;
        let bob = open_browser(&chromium, &driver, bob_profile.path()).await;
        let result = {
            use futures_util::FutureExt;
            std::panic::AssertUnwindSafe(visit(&ann, &bob, &host.addr)).catch_unwind().await
        };
        let _ = ann.close().await;
        let _ = bob.close().await;
        drop(driver);
        result
    });
    let (status, rest) = host.stop();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
    assert!(status.success(), "the host exits 0 on SIGTERM: {status:?}, it printed {rest:#?}");
}

pub(crate) async fn text(page: &Client, css: &str) -> String {
    page.find(Locator::Css(css)).await.unwrap().text().await.unwrap()
}

/// Types `value` into the input `css` in place of what it holds.
pub(crate) async fn fill(page: &Client, css: &str, value: &str) {
    let input = page.find(Locator::Css(css)).await.unwrap();
    input.clear().await.unwrap();
    input.send_keys(value).await.unwrap();
}

/// The `seat` of the page's own link (`#seat=N&token=T`), as the page keeps it.
async fn seat_in_link(page: &Client) -> String {
    let url = page.current_url().await.unwrap();
    let fragment = url.fragment().unwrap_or_default().to_string();
    fragment.split('&').find_map(|kv| kv.strip_prefix("seat=")).unwrap_or_default().to_string()
}

/// Both pages play until both show the game over, each moving when its page says it is its
/// move. Returns the moves made.
pub(crate) async fn play_to_the_end(ann: &Client, bob: &Client) -> usize {
    let deadline = Instant::now() + GAME_WAIT;
    let mut moves = 0;
    loop {
        let (a, b) = (attr(ann, "body", "data-phase").await, attr(bob, "body", "data-phase").await);
        if a == "over" && b == "over" {
            return moves;
        }
        if a == "yours" {
            play_one(ann, moves).await;
            moves += 1;
        } else if b == "yours" {
            play_one(bob, moves).await;
            moves += 1;
        }
        assert!(
            Instant::now() < deadline,
            "the game was not over after {GAME_WAIT:?} ({moves} moves; ann {a}, bob {b})"
        );
        tokio::task::yield_now().await;
    }
}

async fn meet_play_and_rematch(ann: &Client, bob: &Client, addr: &str) {
    // Ann's first visit: the lobby asks for her name, and keeps it with a new key.
    ann.goto(&format!("http://{addr}/")).await.unwrap();
    wait_for(ann, "body[data-conn='open'] #name-form:not([hidden])").await;
    fill(ann, "#name", "ann").await;
    ann.find(Locator::Css("#name-go")).await.unwrap().click().await.unwrap();
    wait_for(ann, "body[data-conn='open'][data-you='ann']").await;
    let kept = ann.execute("return JSON.parse(localStorage.getItem('diving.player'))", vec![]).await.unwrap();
    assert_eq!(kept["name"], "ann", "{kept}");
    let key = kept["key"].as_str().unwrap_or_default();
    assert!(key.len() == 64 && key.chars().all(|c| c.is_ascii_hexdigit()), "{kept}");
    assert!(text(ann, "#you").await.contains("ann"));

    // A new table: the short ruleset (with its line), two seats, no bots.
    let rulesets = ann.find(Locator::Css("#create-ruleset")).await.unwrap();
    rulesets.select_by_value("short").await.expect("the lobby offers the --ruleset file");
    wait_for(ann, "#create-about").await;
    assert!(text(ann, "#create-about").await.contains("depth 30"), "{}", text(ann, "#create-about").await);
    fill(ann, "#create-seats", "2").await;
    fill(ann, "#create-bots", "0").await;
    ann.find(Locator::Css("#create-hints")).await.unwrap().click().await.unwrap();
    ann.find(Locator::Css("#create-go")).await.unwrap().click().await.unwrap();
    let invite = wait_for(ann, "#seated:not([hidden]) #invites li[data-seat='2'] .invite-link").await;
    let link = invite.prop("value").await.unwrap().unwrap_or_default();
    assert!(link.starts_with(&format!("http://{addr}/")) && link.contains("#seat=2&token="), "{link}");
    let code = text(ann, "#invites li[data-seat='2'] .invite-code").await;
    assert!(!code.trim().is_empty(), "the invite has a code");
    // The table is in the lobby, waiting for its second seat.
    wait_for(ann, "#tables li.table[data-state='waiting']").await;
    let watch =
        wait_for(ann, "#tables li.table[data-state='waiting'] a.button").await.prop("href").await.unwrap().unwrap();
    screenshot(ann, "lobby-invites.png").await;

    // Ann goes to her seat: the table waits for Bob.
    ann.find(Locator::Css("#seated-go")).await.unwrap().click().await.unwrap();
    wait_for(ann, "body[data-conn='open'][data-phase='seats']").await;
    let waiting = text(ann, "#waiting-text").await;
    assert!(waiting.starts_with("waiting for players: 1 of 2 seats open"), "{waiting}");
    assert_eq!(seat_in_link(ann).await, "1");
    screenshot(ann, "lobby-waiting.png").await;

    // Bob opens the invite with no name yet: the seat asks for one. A name that only looks
    // like Ann's is refused in the host's words, next to the field; his own is taken.
    // Watching first (the table's Watch link): the waiting table, no seat.
    bob.goto(&watch).await.unwrap();
    wait_for(bob, "body[data-conn='open'][data-phase='seats']").await;
    assert!(text(bob, "#waiting-text").await.starts_with("waiting for players: 1 of 2 seats open"));
    assert!(text(bob, "#who").await.ends_with(": watching"), "{}", text(bob, "#who").await);
    bob.goto(&link).await.unwrap();
    wait_for(bob, "#seat-name:not([hidden])").await;
    fill(bob, "#seat-name-input", "Ann").await;
    bob.find(Locator::Css("#seat-name-go")).await.unwrap().click().await.unwrap();
    let refused = wait_for(bob, "#seat-name:not([hidden]) #seat-name-error").await;
    let deadline = Instant::now() + PAGE_WAIT;
    while refused.text().await.unwrap().is_empty() || attr(bob, "body", "data-conn").await != "naming" {
        assert!(Instant::now() < deadline, "the look-alike name was not refused");
        tokio::task::yield_now().await;
    }
    screenshot(bob, "lobby-name-refused.png").await;
    fill(bob, "#seat-name-input", "bob").await;
    bob.find(Locator::Css("#seat-name-go")).await.unwrap().click().await.unwrap();

    // The last seat is taken: both pages start the game; Ann (seat 1) moves first.
    wait_for(ann, "body[data-conn='open'][data-phase='yours']").await;
    wait_for(bob, "body[data-conn='open'][data-phase='waiting']").await;
    assert!(text(bob, "#who").await.contains("you are bob (seat 2)"), "{}", text(bob, "#who").await);
    // The table was made with hints: Ann asks for one on her turn, and the log shows it.
    wait_for(ann, "#hint-button:not([disabled])").await;
    ann.find(Locator::Css("#hint-button")).await.unwrap().click().await.unwrap();
    let asked = ann
        .wait()
        .at_most(PAGE_WAIT)
        .for_element(Locator::XPath("//ol[@id='log']/li[starts-with(normalize-space(.), 'hint for ann')]"))
        .await;
    assert!(asked.is_ok(), "no hint in Ann's log: {:?}", log(ann).await);
    let moves = play_to_the_end(ann, bob).await;
    let result = text(ann, "#turn").await;
    let (winner, loser) = if result.contains("you won") { ("ann", "bob") } else { ("bob", "ann") };
    assert!(result.contains("you won") || result.contains("bob won"), "{result}");
    let _ = writeln!(std::io::stderr(), "browser lobby test: {moves} moves through the pages, {winner} won");
    screenshot(ann, "lobby-over.png").await;

    // Rematch: Ann asks, both pages say whom it waits for; Bob agrees and the next game starts.
    wait_for(ann, "#after:not([hidden]) #rematch:not([disabled])").await;
    wait_for(bob, "#after:not([hidden]) #rematch:not([disabled])").await;
    let old_history = log(bob).await;
    ann.find(Locator::Css("#rematch")).await.unwrap().click().await.unwrap();
    for page in [ann, bob] {
        let deadline = Instant::now() + PAGE_WAIT;
        loop {
            let said = text(page, "#rematch-status").await;
            if said == "ann asked for a rematch; waiting for bob" {
                break;
            }
            assert!(Instant::now() < deadline, "the page says {said:?}");
            tokio::task::yield_now().await;
        }
    }
    bob.find(Locator::Css("#rematch")).await.unwrap().click().await.unwrap();
    // The seats turned one on: Bob is seat 1 and moves first, Ann is seat 2; each page's link
    // says its new seat, and its history is the new game's alone.
    wait_for(bob, "body[data-game='2'][data-conn='open'][data-phase='yours']").await;
    wait_for(ann, "body[data-game='2'][data-conn='open'][data-phase='waiting']").await;
    assert_eq!(seat_in_link(bob).await, "1");
    assert_eq!(seat_in_link(ann).await, "2");
    assert!(text(ann, "#who").await.contains("you are ann (seat 2)"), "{}", text(ann, "#who").await);
    assert_eq!(attr(ann, "body", "data-reconnects").await, "0", "a new game is no reconnection");
    let new_history = log(bob).await;
    assert!(!new_history.is_empty() && new_history.len() < old_history.len(), "{new_history:#?}");
    assert!(!new_history.iter().any(|l| l.contains("wins")), "the old game's end is still shown: {new_history:#?}");
    play_one(bob, 0).await;
    wait_for(ann, "body[data-phase='yours']").await;
    // A reload of the new seat's link: the same history, told once.
    let before = log(ann).await;
    ann.refresh().await.unwrap();
    wait_for(ann, "body[data-conn='open'][data-phase='yours']").await;
    assert_eq!(log(ann).await, before, "the history after a reload in the second game");
    screenshot(ann, "lobby-rematch.png").await;

    // The leaderboard, opened from the lobby: both players, one game each, the winner above.
    ann.find(Locator::Css("#to-lobby")).await.unwrap().click().await.unwrap();
    wait_for(ann, "body[data-phase='lobby'][data-conn='open'][data-you='ann']").await;
    wait_for(ann, "#tables li.table[data-game='2'][data-state='playing']").await;
    let boards = ann.find(Locator::Css("#ratings-ruleset")).await.unwrap();
    boards.select_by_value("short").await.expect("a leaderboard for the --ruleset file");
    for name in [winner, loser] {
        wait_for(ann, &format!("#ratings-rows tr[data-player='{name}'][data-games='1']")).await;
    }
    let rating = |name: &'static str| async move {
        let row = format!("#ratings-rows tr[data-player='{name}']");
        let value: f64 = attr(ann, &row, "data-rating").await.parse().unwrap();
        (value, attr(ann, &row, "data-wins").await)
    };
    let (won, lost) = (rating(winner).await, rating(loser).await);
    assert!(won.0 > lost.0, "the winner {winner} is rated {} and the loser {loser} {}", won.0, lost.0);
    assert_eq!((won.1.as_str(), lost.1.as_str()), ("1", "0"));
    let recent = wait_for(ann, "#recent li[data-game='1']").await.text().await.unwrap();
    assert!(recent.contains(&format!("1. {winner}")) && recent.contains(&format!("2. {loser}")), "{recent}");
    screenshot(ann, "lobby-leaderboard.png").await;
    // At a phone's width the lobby does not scroll sideways (the invites' links, the board).
    ann.set_window_size(360, 800).await.unwrap();
    let widths = ann
        .execute("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]", vec![])
        .await
        .unwrap();
    assert!(widths[0].as_f64() <= widths[1].as_f64(), "the lobby scrolls sideways at 360 px: {widths}");
    screenshot(ann, "lobby-phone.png").await;
    ann.set_window_size(1100, 1300).await.unwrap();

    // A second table, of three seats with a bot in the last, taken by its code: Bob's name,
    // picked at a seat, is his in the lobby too (the same key), and the code's seat starts
    // the game at once (the bot needs no one).
    fill(ann, "#create-seats", "3").await;
    fill(ann, "#create-bots", "1").await;
    wait_for(ann, "#create-bot-list select[data-seat='3']").await;
    ann.find(Locator::Css("#create-go")).await.unwrap().click().await.unwrap();
    let code = wait_for(ann, "#seated:not([data-room='1']) #invites li[data-seat='2'] .invite-code").await;
    let code = code.text().await.unwrap();
    assert!(wait_for(ann, "#seated").await.text().await.unwrap().contains("seat 2"));
    assert!(ann.find_all(Locator::Css("#invites li")).await.unwrap().len() == 1, "the bot's seat has no invite");
    bob.goto(&format!("http://{addr}/")).await.unwrap();
    wait_for(bob, "body[data-conn='open'][data-you='bob']").await;
    // In the lobby too, a name another key owns is refused next to the field, in the host's
    // words, and the page looks on without a name until Bob takes his own back.
    bob.find(Locator::Css("#rename")).await.unwrap().click().await.unwrap();
    fill(bob, "#name", "ANN").await;
    bob.find(Locator::Css("#name-go")).await.unwrap().click().await.unwrap();
    let refused = wait_for(bob, "body[data-conn='open'][data-you=''] #name-form:not([hidden]) #name-error").await;
    let deadline = Instant::now() + PAGE_WAIT;
    while refused.text().await.unwrap().is_empty() {
        assert!(Instant::now() < deadline, "the lobby did not say why ANN was refused");
        tokio::task::yield_now().await;
    }
    fill(bob, "#name", "bob").await;
    bob.find(Locator::Css("#name-go")).await.unwrap().click().await.unwrap();
    wait_for(bob, "body[data-conn='open'][data-you='bob']").await;
    // A code that names no seat: the host's refusal in the status line.
    fill(bob, "#code", "nope").await;
    bob.find(Locator::Css("#code-go")).await.unwrap().click().await.unwrap();
    let status = wait_for(bob, "#status:not([hidden])").await.text().await.unwrap();
    assert!(!status.is_empty(), "the status line is empty");
    fill(bob, "#code", &code).await;
    bob.find(Locator::Css("#code-go")).await.unwrap().click().await.unwrap();
    wait_for(bob, "body[data-conn='open'] #divers li[data-seat='3']").await;
    assert!(text(bob, "#who").await.contains("you are bob (seat 2)"), "{}", text(bob, "#who").await);
    assert!(text(bob, "#divers").await.contains("bot: greedy"), "{}", text(bob, "#divers").await);
    screenshot(bob, "lobby-by-code.png").await;
}

/// Waits until `page` shows its own move (the bot has moved) and returns its log.
async fn at_own_move(page: &Client) -> Vec<String> {
    wait_for(page, "body[data-conn='open'][data-phase='yours']").await;
    log(page).await
}

async fn back_and_across(ann: &Client, second: &Client, addr: &str) {
    ann.goto(&format!("http://{addr}/")).await.unwrap();
    wait_for(ann, "body[data-conn='open'] #name-form:not([hidden])").await;
    fill(ann, "#name", "ann").await;
    ann.find(Locator::Css("#name-go")).await.unwrap().click().await.unwrap();
    wait_for(ann, "body[data-conn='open'][data-you='ann']").await;
    // A table against a bot: no invites, so the page goes to the seat at once.
    fill(ann, "#create-seats", "2").await;
    fill(ann, "#create-bots", "1").await;
    wait_for(ann, "#create-bot-list select[data-seat='2']").await;
    ann.find(Locator::Css("#create-go")).await.unwrap().click().await.unwrap();
    at_own_move(ann).await;
    play_one(ann, 0).await;
    let before = at_own_move(ann).await;
    assert!(before.len() >= 2, "ann's move and the bot's: {before:#?}");

    // The tab is closed: a new one opens the lobby, which keeps nothing of the old tab.
    ann.goto(&format!("http://{addr}/")).await.unwrap();
    ann.execute("sessionStorage.clear()", vec![]).await.unwrap();
    ann.refresh().await.unwrap();
    let back =
        wait_for(ann, "body[data-conn='open'] #tables li.table[data-state='playing'][data-yours='1'] a.back").await;
    assert!(!wait_for(ann, "#seated").await.is_displayed().await.unwrap(), "the old tab's seat box is gone");
    screenshot(ann, "lobby-back-to-your-seat.png").await;
    back.click().await.unwrap();
    let again = at_own_move(ann).await;
    assert_eq!(again, before, "back at the seat: the game as it stands");
    assert!(text(ann, "#who").await.contains("you are ann (seat 1)"), "{}", text(ann, "#who").await);

    // A transfer code, made in the lobby and opened as a link in the second browser.
    ann.find(Locator::Css("#to-lobby")).await.unwrap().click().await.unwrap();
    wait_for(ann, "body[data-phase='lobby'][data-conn='open'][data-you='ann']").await;
    ann.find(Locator::Css("#transfer-make")).await.unwrap().click().await.unwrap();
    wait_for(ann, "#transfer-shown:not([hidden])").await;
    let link = wait_for(ann, "#transfer-link").await.prop("value").await.unwrap().unwrap_or_default();
    let code = text(ann, "#transfer-code").await;
    assert!(link == format!("http://{addr}/#transfer={code}") && code.len() == 14, "{link} {code}");
    assert!(text(ann, "#transfer-join").await.ends_with(&format!("--transfer {code}")));
    screenshot(ann, "lobby-transfer.png").await;
    second.goto(&link).await.unwrap();
    wait_for(second, "body[data-conn='open'][data-you='ann']").await;
    assert!(text(second, "#transfer-result").await.contains("You are ann in this browser now"));
    let keys = "return JSON.parse(localStorage.getItem('diving.player'))";
    let (mine, moved) = (ann.execute(keys, vec![]).await.unwrap(), second.execute(keys, vec![]).await.unwrap());
    assert_eq!(moved, mine, "the second browser keeps ann's name and key");
    // Her seat, from the second browser's lobby: the game goes on there.
    wait_for(second, "#tables li.table[data-yours='1'] a.back").await.click().await.unwrap();
    assert_eq!(at_own_move(second).await, before, "the second browser sees the game as it stands");
    play_one(second, 0).await;
    let after = at_own_move(second).await;
    assert!(after.len() > before.len(), "the game went on from the second browser: {after:#?}");
    screenshot(second, "lobby-second-browser.png").await;

    // The link again: the code worked once, and the page says so.
    second.goto(&link).await.unwrap();
    let said = wait_for(second, "body[data-conn='open'] #transfer-result").await;
    let deadline = Instant::now() + PAGE_WAIT;
    while !said.text().await.unwrap().contains("used already") {
        assert!(Instant::now() < deadline, "the page did not say the code was used: {:?}", said.text().await);
        tokio::task::yield_now().await;
    }
}
