//! A ruleset brought to the lobby in a real browser (issue 43 item 6): the real `diving host`
//! binary (uploads are on by default), two headless Chromium profiles. Ann and Bob each pick
//! the sharks example's files (its TOML and its Lua file, at once) in the lobby's *Bring a
//! ruleset*; the host checks Ann's and offers it, with what its mod reads and reveals, and
//! knows Bob's for the same ruleset. Ann makes a table of it with a greedy bot in the last
//! seat, Bob takes the other seat by its code, both play to the end by clicking, and the
//! leaderboard of the ruleset, under its own name, shows both. Screenshots go to
//! `target/browser-artifacts/upload-*.png`.
//!
//! Skipped (and said on stderr) without chromium and chromedriver, unless
//! `DIVING_REQUIRE_BROWSER` is set: see `browser.rs`.

use crate::browser::{attr, play_one, screenshot, wait_for};
use crate::browser_lobby::{fill, text, two_people_at_a_host};

use std::time::{Duration, Instant};

use fantoccini::{Client, Locator};

/// The sharks example's files, as a person picks them.
const SHARKS: [&str; 2] = [
    concat!(env!("CARGO_MANIFEST_DIR"), "/rulesets/examples/sharks/ruleset.toml"),
    concat!(env!("CARGO_MANIFEST_DIR"), "/rulesets/examples/sharks/sharks.lua"),
];

/// The longest the game may take through the two pages (a greedy bot ends it).
const GAME_WAIT: Duration = Duration::from_secs(120);

#[test]
fn two_people_bring_the_sharks_example_play_it_and_find_it_on_the_leaderboard() {
    two_people_at_a_host(bring_and_play);
}

async fn arrive(page: &Client, addr: &str, name: &str) {
    page.goto(&format!("http://{addr}/")).await.unwrap();
    wait_for(page, "body[data-conn='open'] #name-form:not([hidden])").await;
    fill(page, "#name", name).await;
    page.find(Locator::Css("#name-go")).await.unwrap().click().await.unwrap();
    wait_for(page, &format!("body[data-conn='open'][data-you='{name}']")).await;
}

/// Picks the sharks files and brings them; what the page then says.
async fn bring_sharks(page: &Client) -> String {
    wait_for(page, "#upload-box:not([hidden])").await;
    let input = page.find(Locator::Css("#upload-files")).await.unwrap();
    input.send_keys(&SHARKS.join("\n")).await.unwrap();
    page.find(Locator::Css("#upload-go")).await.unwrap().click().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let said = text(page, "#upload-result").await;
        if said.starts_with("The host offers") || said.starts_with("The host refused") {
            return said;
        }
        assert!(Instant::now() < deadline, "the page says {said:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn bring_and_play(ann: &Client, bob: &Client, addr: &str) {
    arrive(ann, addr, "ann").await;
    let said = bring_sharks(ann).await;
    assert!(said.starts_with("The host offers your ruleset as Sharks (sharks@"), "{said}");
    let id = said.split_once("(").unwrap().1.split_once(")").unwrap().0.to_string();
    // The new-table form has picked it, with its line and what its mod reads and reveals.
    let chosen = ann.find(Locator::Css("#create-ruleset")).await.unwrap().prop("value").await.unwrap();
    assert_eq!(chosen.as_deref(), Some(id.as_str()));
    let mods = text(ann, "#create-mods").await;
    assert!(mods.contains("mod sharks: reads no hidden card; reveals cards to the table"), "{mods}");
    assert!(text(ann, "#create-balance").await.contains("greedy"));
    screenshot(ann, "upload-offered.png").await;

    // Bob brings the same files: the host has it already.
    arrive(bob, addr, "bob").await;
    let said = bring_sharks(bob).await;
    assert!(said.contains(&id) && said.contains("had already"), "{said}");

    // Ann's table: three seats, a greedy bot in the last; Bob takes seat 2 by its code.
    fill(ann, "#create-seats", "3").await;
    fill(ann, "#create-bots", "1").await;
    wait_for(ann, "#create-bot-list select[data-seat='3']").await;
    ann.find(Locator::Css("#create-go")).await.unwrap().click().await.unwrap();
    let code = wait_for(ann, "#seated:not([hidden]) #invites li[data-seat='2'] .invite-code").await;
    let code = code.text().await.unwrap();
    ann.find(Locator::Css("#seated-go")).await.unwrap().click().await.unwrap();
    wait_for(ann, "body[data-conn='open'][data-phase='seats']").await;
    fill(bob, "#code", &code).await;
    bob.find(Locator::Css("#code-go")).await.unwrap().click().await.unwrap();
    wait_for(bob, "body[data-conn='open'] #divers li[data-seat='3']").await;

    // Both play to the end by clicking.
    let deadline = Instant::now() + GAME_WAIT;
    let mut moves = 0;
    loop {
        let (a, b) = (attr(ann, "body", "data-phase").await, attr(bob, "body", "data-phase").await);
        if a == "over" && b == "over" {
            break;
        }
        if a == "yours" {
            play_one(ann, moves).await;
            moves += 1;
        } else if b == "yours" {
            play_one(bob, moves).await;
            moves += 1;
        }
        assert!(Instant::now() < deadline, "the game was not over after {GAME_WAIT:?} ({moves} moves)");
        tokio::task::yield_now().await;
    }
    screenshot(ann, "upload-over.png").await;

    // The leaderboard of the ruleset, under its own name: both people and the bot.
    ann.find(Locator::Css("#to-lobby")).await.unwrap().click().await.unwrap();
    wait_for(ann, "body[data-phase='lobby'][data-conn='open'][data-you='ann']").await;
    let boards = ann.find(Locator::Css("#ratings-ruleset")).await.unwrap();
    boards.select_by_value(&id).await.expect("a leaderboard for the ruleset brought");
    for name in ["ann", "bob"] {
        wait_for(ann, &format!("#ratings-rows tr[data-player='{name}'][data-games='1']")).await;
    }
    screenshot(ann, "upload-leaderboard.png").await;
}
