//! Pages everyone can use, in a real browser: the real `diving host` in lobby mode and two
//! Chromium profiles (as `browser_lobby.rs` starts them). Ann makes a table in the lobby and
//! Bob takes its other seat; Bob then opens Ann's seat link (a seat that is someone else's)
//! and a link with a wrong token: each opens a page that says what happened and why, with
//! links to the lobby and to watch the room, and his own link takes him back. Both play to
//! the end.
//!
//! axe-core (WCAG 2.2 AA) checks the lobby, a waiting table, a seat asking for a name, a seat
//! mid-game, both dead ends, the page of a closed table, a seat at the game's end, a rematch
//! asked, a seat another tab took and the leaderboard, and in dark colours a seat and the
//! lobby: a serious or critical violation
//! fails the test, listed with its rule, where, and what to do. axe-core is the npm package
//! pinned in `.ci/axe/package-lock.json`: `npm ci --prefix .ci/axe` installs it (`.ci/run`
//! does). Without it the test still checks the dead ends and says on stderr that the
//! accessibility check did not run, unless `DIVING_REQUIRE_BROWSER` is set: then it fails.

use crate::browser::{attr, browser_or_skip, open_browser_with, play_one, screenshot, start_driver, wait_for};
use crate::browser_lobby::{fill, play_to_the_end, text, two_people_at_a_host};
use crate::server_support::{room, serve, token};

use std::io::Write;
use std::path::PathBuf;

use diving::server::net::ServerConfig;
use diving::server::room::RoomOptions;
use fantoccini::{Client, Locator};
use serde_json::Value;

/// Where `npm ci --prefix .ci/axe` puts axe-core's browser script.
fn axe_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".ci/axe/node_modules/axe-core/axe.min.js")
}

/// axe-core's script, or `None` (said on stderr) when it is not installed and may be skipped.
fn axe_or_skip() -> Option<String> {
    let path = axe_path();
    match std::fs::read_to_string(&path) {
        Ok(script) => Some(script),
        Err(e) if std::env::var_os("DIVING_REQUIRE_BROWSER").is_some() => panic!(
            "the accessibility check must run (DIVING_REQUIRE_BROWSER is set), but {} cannot be read ({e}): \
             install axe-core with 'npm ci --prefix .ci/axe'",
            path.display()
        ),
        Err(e) => {
            let note = format!(
                "\naccessibility check NOT RUN: {} cannot be read ({e}) (install axe-core: npm ci --prefix .ci/axe)\n",
                path.display()
            );
            let _ = std::io::stderr().lock().write_all(note.as_bytes());
            None
        }
    }
}

/// The rules run: WCAG 2.0, 2.1 and 2.2 at levels A and AA, axe's best practices, and the
/// experimental label-in-name rule (WCAG 2.5.3), which axe leaves out unless asked.
const AXE_RUN: &str = r#"
const done = arguments[arguments.length - 1];
axe.run(document, {
  runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa", "best-practice"] },
  rules: { "label-content-name-mismatch": { enabled: true } },
  resultTypes: ["violations"],
}).then(
  (r) => done({
    violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) })),
    ran: [...r.passes, ...r.violations, ...r.incomplete, ...r.inapplicable].map((v) => v.id),
  }),
  (e) => done({ error: String(e) }),
);
"#;

/// Runs axe-core in `page` (injected through the driver's script execution, which the page's
/// content security policy does not govern) and fails listing every serious or critical
/// violation; the lesser ones are printed.
async fn check(page: &Client, axe: Option<&str>, what: &str) {
    names_hold_labels(page, what).await;
    let Some(script) = axe else { return };
    // Once per document: a navigation drops it.
    let loaded = page.execute("return typeof window.axe === 'object'", vec![]).await.unwrap();
    if loaded != Value::Bool(true) {
        page.execute(&format!("{script}\n;return typeof window.axe;"), vec![]).await.unwrap();
    }
    let found = page.execute_async(AXE_RUN, vec![]).await.unwrap();
    assert!(found.get("error").is_none(), "axe-core failed on {what}: {found}");
    let mut serious = Vec::new();
    let mut lesser = Vec::new();
    let ran: Vec<&str> = found["ran"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    for rule in
        ["label-content-name-mismatch", "listitem", "scrollable-region-focusable", "color-contrast", "target-size"]
    {
        assert!(ran.contains(&rule), "axe-core did not run {rule} on {what}: {ran:?}");
    }
    for v in found["violations"].as_array().unwrap() {
        let line = format!(
            "{} ({}): {} — at {}",
            v["id"].as_str().unwrap_or("?"),
            v["impact"].as_str().unwrap_or("?"),
            v["help"].as_str().unwrap_or("?"),
            v["targets"]
                .as_array()
                .map(|t| t.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(", "))
                .unwrap_or_default()
        );
        match v["impact"].as_str() {
            Some("serious" | "critical") => serious.push(line),
            _ => lesser.push(line),
        }
    }
    let _ = writeln!(
        std::io::stderr(),
        "accessibility check: {what}: {} serious or critical, {} lesser{}",
        serious.len(),
        lesser.len(),
        lesser.iter().map(|l| format!("\n  {l}")).collect::<String>()
    );
    assert!(
        serious.is_empty(),
        "axe-core finds {} serious or critical violations on {what}:\n{}",
        serious.len(),
        serious.join("\n")
    );
}

/// Checks axe-core passes over, run without it too: every shown control named apart from its
/// text has a name that begins with the words it shows (label in name, as WCAG 2.5.3
/// advises: its visible label's letters and digits, in order, as a voice would say them),
/// and each diver's gauges are named by the diver.
async fn names_hold_labels(page: &Client, what: &str) {
    let script = r##"
      const words = (t) => t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
      const shown = (n) => n.getClientRects().length > 0;
      const bad = [];
      for (const n of document.querySelectorAll("button[aria-label], a[aria-label], [role='button'][aria-label], [role='link'][aria-label]")) {
        const seen = words(n.innerText);
        if (shown(n) && seen && !words(n.getAttribute("aria-label")).startsWith(seen))
          bad.push(`${n.id || n.className}: shows "${n.innerText.replace(/\s+/g, " ")}", named "${n.getAttribute("aria-label")}"`);
      }
      for (const diver of document.querySelectorAll("#divers li.diver")) {
        const name = diver.querySelector(".name").firstChild.textContent.trim();
        for (const meter of diver.querySelectorAll("[role='meter']"))
          if (!/^[^:]+: (depth|oxygen)$/.test(meter.getAttribute("aria-label")) || !meter.getAttribute("aria-label").startsWith(name + ": "))
            bad.push(`a gauge of ${name} is named "${meter.getAttribute("aria-label")}"`);
      }
      return bad;
    "##;
    let bad = page.execute(script, vec![]).await.unwrap();
    assert_eq!(bad, serde_json::json!([]), "names that do not hold what {what} shows");
}

#[test]
fn the_lobby_a_seat_and_its_dead_ends_for_everyone() {
    if browser_or_skip().is_none() {
        return;
    }
    let axe = axe_or_skip();
    two_people_at_a_host(async |ann: &Client, bob: &Client, addr: &str| {
        let axe = axe.as_deref();
        // Ann's first visit: the lobby asks for her name.
        ann.goto(&format!("http://{addr}/")).await.unwrap();
        wait_for(ann, "body[data-conn='open'] #name-form:not([hidden])").await;
        check(ann, axe, "the lobby, asking for a name").await;
        fill(ann, "#name", "ann").await;
        ann.find(Locator::Css("#name-go")).await.unwrap().click().await.unwrap();
        wait_for(ann, "body[data-conn='open'][data-you='ann']").await;
        ann.find(Locator::Css("#create-ruleset")).await.unwrap().select_by_value("short").await.unwrap();
        fill(ann, "#create-seats", "2").await;
        fill(ann, "#create-bots", "0").await;
        ann.find(Locator::Css("#create-go")).await.unwrap().click().await.unwrap();
        let invite = wait_for(ann, "#seated:not([hidden]) #invites li[data-seat='2'] .invite-link").await;
        let link = invite.prop("value").await.unwrap().unwrap_or_default();
        wait_for(ann, "#tables li.table[data-state='waiting']").await;
        check(ann, axe, "the lobby, with a table and its invites").await;

        // Ann at her seat, waiting; Bob takes the other by the invite, and the game starts.
        ann.find(Locator::Css("#seated-go")).await.unwrap().click().await.unwrap();
        wait_for(ann, "body[data-conn='open'][data-phase='seats']").await;
        check(ann, axe, "a table waiting for its players").await;
        let ann_link = ann.current_url().await.unwrap().to_string();
        bob.goto(&link).await.unwrap();
        wait_for(bob, "#seat-name:not([hidden])").await;
        check(bob, axe, "a seat asking for a name").await;
        fill(bob, "#seat-name-input", "bob").await;
        bob.find(Locator::Css("#seat-name-go")).await.unwrap().click().await.unwrap();
        wait_for(ann, "body[data-conn='open'][data-phase='yours']").await;
        wait_for(bob, "body[data-conn='open'][data-phase='waiting']").await;
        let room = ann_link.split('#').next().unwrap().rsplit('/').next().unwrap().to_string();

        // A few moves, so that the log, the chat and the cards in front have something in them.
        ann.find(Locator::Css("#chat-text")).await.unwrap().send_keys("good luck").await.unwrap();
        ann.find(Locator::Css("#chat-form button")).await.unwrap().click().await.unwrap();
        wait_for(bob, "#chat li").await;
        // One move each: the lobby deals at random, and at the short ruleset's depth of 30 a
        // diver's second move may already win (four moves ended a game before its check).
        play_moves(ann, bob, 2).await;
        // The history and the chat scroll in boxes that Tab reaches, each named by its title.
        for (feed, title) in [("#log-box", "log-title"), ("#chat-box", "chat-title")] {
            let reached = format!(
                "const f = document.querySelector('{feed}'); return [f.tabIndex, f.getAttribute('aria-labelledby')];"
            );
            assert_eq!(ann.execute(&reached, vec![]).await.unwrap(), serde_json::json!([0, title]), "{feed}");
        }
        check(ann, axe, "a seat mid-game").await;
        // At a phone's width too (the targets' sizes, the boxes that scroll).
        ann.set_window_size(360, 740).await.unwrap();
        check(ann, axe, "a seat mid-game at 360 px").await;
        ann.set_window_size(1100, 1300).await.unwrap();
        check(bob, axe, "a seat mid-game, waiting for the other's move").await;
        screenshot(ann, "a11y-mid-game.png").await;

        // Bob opens Ann's seat link: the seat is hers, and his browser is not hers.
        bob.goto(&ann_link).await.unwrap();
        dead_end(bob, addr, &room, "seat").await;
        let said = text(bob, "#dead-end").await;
        assert!(said.contains("seat 1") && said.contains("another player's"), "{said}");
        check(bob, axe, "the page of a seat that is someone else's").await;
        screenshot(bob, "a11y-taken-seat.png").await;
        // A link with a wrong token (cut short, or another table's).
        bob.goto(&format!("http://{addr}/{room}#seat=2&token=0123456789abcdef")).await.unwrap();
        dead_end(bob, addr, &room, "token").await;
        let said = text(bob, "#dead-end").await;
        assert!(said.contains("wrong token for seat 2"), "{said}");
        check(bob, axe, "the page of a wrong token").await;
        screenshot(bob, "a11y-wrong-token.png").await;
        // Its Watch link shows the game, without a seat.
        bob.find(Locator::Css("#dead-end-watch")).await.unwrap().click().await.unwrap();
        wait_for(bob, "body[data-conn='open'][data-phase='waiting'], body[data-conn='open'][data-phase='yours']").await;
        assert!(text(bob, "#who").await.contains("watching"), "{}", text(bob, "#who").await);
        assert!(bob.find(Locator::Css("#dead-end")).await.unwrap().attr("hidden").await.unwrap().is_some());
        // A table that is no more (the page the host serves itself).
        bob.goto(&format!("http://{addr}/4242")).await.unwrap();
        wait_for(bob, "main#dead-end h1").await;
        check(bob, axe, "the page of a closed table").await;
        // His own link takes him back to his seat.
        bob.goto(&link).await.unwrap();
        wait_for(bob, "body[data-conn='open'][data-phase='waiting'], body[data-conn='open'][data-phase='yours']").await;
        assert!(text(bob, "#who").await.contains("you are bob (seat 2)"), "{}", text(bob, "#who").await);

        play_to_the_end(ann, bob).await;
        check(ann, axe, "a seat at the game's end").await;
        check(bob, axe, "the other seat at the game's end").await;
        screenshot(ann, "a11y-end.png").await;
        // Rematch asked, and the lobby with the leaderboard's rows and the recent results.
        wait_for(ann, "#after:not([hidden]) #rematch:not([disabled])").await;
        ann.find(Locator::Css("#rematch")).await.unwrap().click().await.unwrap();
        wait_for(bob, "#rematch-status:not(:empty)").await;
        check(bob, axe, "a seat asked for a rematch").await;
        // Bob opens his seat in another tab: this one says so, and takes it back when asked.
        let first = bob.window().await.unwrap();
        let tab = bob.new_window(true).await.unwrap();
        bob.switch_to_window(tab.handle.clone()).await.unwrap();
        bob.goto(&link).await.unwrap();
        wait_for(bob, "body[data-conn='open'][data-phase='over']").await;
        bob.switch_to_window(first.clone()).await.unwrap();
        let view = wait_for(bob, "body[data-conn='closed'] #dead-end:not([hidden])[data-kind='replaced']").await;
        let said = view.text().await.unwrap();
        assert!(said.contains("open somewhere else") && said.contains("taken by a new connection"), "{said}");
        assert!(!said.contains("10 minutes"), "{said}");
        check(bob, axe, "a seat another tab took").await;
        screenshot(bob, "a11y-replaced.png").await;
        bob.find(Locator::Css("#dead-end-back")).await.unwrap().click().await.unwrap();
        wait_for(bob, "body[data-conn='open'][data-phase='over'] #dead-end[hidden]").await;
        bob.switch_to_window(tab.handle).await.unwrap();
        wait_for(bob, "#dead-end:not([hidden])[data-kind='replaced']").await;
        bob.close_window().await.unwrap();
        bob.switch_to_window(first).await.unwrap();
        ann.find(Locator::Css("#to-lobby")).await.unwrap().click().await.unwrap();
        wait_for(ann, "body[data-phase='lobby'][data-conn='open'][data-you='ann']").await;
        ann.find(Locator::Css("#ratings-ruleset")).await.unwrap().select_by_value("short").await.unwrap();
        wait_for(ann, "#ratings-rows tr[data-player='bob']").await;
        wait_for(ann, "#recent li").await;
        check(ann, axe, "the lobby with its leaderboard").await;
    });
}

/// The same pages for a person whose system asks for dark pages (the page's own dark colours):
/// a seat mid-game and at the end against a bot, and the lobby.
#[test]
fn the_pages_in_dark_colours() {
    let Some((chromium, chromedriver)) = browser_or_skip() else { return };
    let axe = axe_or_skip();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let driver = start_driver(&chromedriver);
        let profile = tempfile::tempdir().unwrap();
        let config =
            ServerConfig { lobby: Some(diving::server::offers(&[], None).unwrap()), ..ServerConfig::default() };
        let server = serve(vec![room("1", &["alice", "bot:greedy"], 20_261_205, RoomOptions::default())], config).await;
        let seat = format!("http://{}/1#seat=1&token={}", server.addr, token(&server, "1", 0));
        let lobby = format!("http://{}/", server.addr);
        let page =
            open_browser_with(&chromium, &driver, profile.path(), &["--blink-settings=preferredColorScheme=0"]).await;
        let result = {
            use futures_util::FutureExt;
            std::panic::AssertUnwindSafe(async {
                let axe = axe.as_deref();
                page.goto(&seat).await.unwrap();
                wait_for(&page, "body[data-conn='open'][data-phase='yours']").await;
                let dark =
                    page.execute("return matchMedia('(prefers-color-scheme: dark)').matches", vec![]).await.unwrap();
                assert_eq!(dark, Value::Bool(true), "the browser does not ask for dark pages");
                for turn in 0..3 {
                    play_one(&page, turn).await;
                    wait_for(&page, "body[data-phase='yours'], body[data-phase='over']").await;
                }
                check(&page, axe, "a seat mid-game, in dark colours").await;
                screenshot(&page, "a11y-dark-mid-game.png").await;
                for turn in 3..400 {
                    let phase = wait_for(&page, "body[data-phase='yours'], body[data-phase='over']").await;
                    if phase.attr("data-phase").await.unwrap().as_deref() == Some("over") {
                        break;
                    }
                    play_one(&page, turn).await;
                }
                // A whole game to the depth of 100 (a seeded deal): the history scrolls in its
                // box, and the check covers a scrolling one.
                let scrolls = "const f = document.getElementById('log-box'); return f.scrollHeight > f.clientHeight;";
                assert_eq!(
                    page.execute(scrolls, vec![]).await.unwrap(),
                    Value::Bool(true),
                    "the history does not scroll"
                );
                check(&page, axe, "a seat at the game's end, in dark colours").await;
                page.goto(&format!("{seat}x")).await.unwrap();
                wait_for(&page, "#dead-end:not([hidden])").await;
                check(&page, axe, "a wrong token, in dark colours").await;
                page.goto(&lobby).await.unwrap();
                wait_for(&page, "body[data-conn='open'] #name-form:not([hidden])").await;
                check(&page, axe, "the lobby, in dark colours").await;
            })
            .catch_unwind()
            .await
        };
        let _ = page.close().await;
        server.stop().await.unwrap();
        drop(driver);
        if let Err(panic) = result {
            std::panic::resume_unwind(panic);
        }
    });
}

/// `moves` moves, each made by whichever page says it is its move.
async fn play_moves(ann: &Client, bob: &Client, moves: usize) {
    for turn in 0..moves {
        let deadline = std::time::Instant::now() + crate::browser::PAGE_WAIT;
        let mover = loop {
            if attr(ann, "body", "data-phase").await == "yours" {
                break ann;
            }
            if attr(bob, "body", "data-phase").await == "yours" {
                break bob;
            }
            let over = attr(ann, "body", "data-phase").await == "over";
            assert!(
                !over && std::time::Instant::now() < deadline,
                "neither page says it is its move (the game is over: {over})"
            );
            tokio::task::yield_now().await;
        };
        play_one(mover, turn).await;
    }
}

/// The page shows the dead end of `kind`: what happened and why (the idle minutes the host
/// states), a link to the lobby and one to watch the room; the game's own sections stay hidden.
async fn dead_end(page: &Client, addr: &str, room: &str, kind: &str) {
    let view = wait_for(page, &format!("#dead-end:not([hidden])[data-kind='{kind}']")).await;
    let said = view.text().await.unwrap();
    assert!(said.contains("10 minutes"), "the idle time is not said: {said}");
    assert_eq!(attr(page, "body", "data-conn").await, "closed");
    let lobby = page.find(Locator::Css("#dead-end-lobby")).await.unwrap().prop("href").await.unwrap().unwrap();
    assert_eq!(lobby, format!("http://{addr}/"));
    let watch = page.find(Locator::Css("#dead-end-watch")).await.unwrap().prop("href").await.unwrap().unwrap();
    assert_eq!(watch, format!("http://{addr}/{room}"));
    for hidden in ["#game", "#waiting", "#seat-name"] {
        assert!(
            page.find(Locator::Css(hidden)).await.unwrap().attr("hidden").await.unwrap().is_some(),
            "{hidden} is shown"
        );
    }
}
