// Diving Suits, the lobby's page (`/`): the host's tables, a new table, invite codes and the
// leaderboard, a ruleset brought (`upload`: its files picked at once), over
// `ws://HOST:PORT/lobby`. It sends `create`, `sit`, `code`, `ratings`, `upload` and the
// transfer codes' `transfer`, `revoke` and `redeem` (a link `/#transfer=CODE` redeems its code),
// and shows the host's answers and refusals in the host's words: what a name, a table or a
// seat may be is the host's to say.

import { WIRE } from "./wire.js";
import { $, adopt, body, el, identity, onName, player, setConn } from "./page.js";

const { protocol: PROTOCOL, refusesName } = WIRE;

/** Starts the lobby's page. */
export function startLobby() {
  // ----- the lobby (`/`) -----
  // What the host offers and holds, as its last `lobby` message said; this page sends
  // `create`, `sit`, `code` and `ratings`, and shows the host's answers and refusals.
  const lobby = {
    ws: null,
    attempts: 0,
    timer: null,
    last: null,
    // The host refused the name this browser keeps: look only until another is picked.
    refused: false,
    // What the last `seated` answered (`create`, `sit` or `code`).
    asked: null,
    // The rulesets and bots the new-table form was drawn for (redrawn only when they change).
    offered: "",
    // The leaderboard asked for (a ruleset id), and the one `#ratings=…` names at the start.
    board: null,
    // How many games each listed table has finished (room → [ruleset, count]).
    ended: new Map(),
    wanted: new URLSearchParams(location.hash.slice(1)).get("ratings"),
    // The ruleset this page brought (its id, once the host offers it): the new-table form
    // picks it.
    brought: null,
    // A transfer code this page was opened to redeem (`#transfer=CODE`), until it is sent.
    redeem: new URLSearchParams(location.hash.slice(1)).get("transfer"),
  };

  function connectLobby() {
    clearTimeout(lobby.timer);
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const ws = new WebSocket(scheme + location.host + "/lobby");
    lobby.ws = ws;
    setConn("connecting", "connecting…");
    ws.onopen = () => {
      const me = lobby.refused ? null : player();
      lobbySend({ type: "lobby", protocol: PROTOCOL, ...(me ? { name: me.name, key: me.key } : {}) });
    };
    ws.onmessage = (e) => {
      let message;
      try {
        message = JSON.parse(e.data);
      } catch (_) {
        return;
      }
      if (lobby.ws === ws) lobbyReceive(message);
    };
    ws.onclose = () => {
      if (lobby.ws !== ws) return;
      lobby.ws = null;
      lobby.attempts += 1;
      const delay = Math.min(5000, 400 * 2 ** Math.min(lobby.attempts - 1, 4));
      setConn("reconnecting", `${lobby.last ? "connection lost" : "cannot reach the host"} — reconnecting in ${Math.round(delay / 100) / 10}s…`);
      lobby.timer = setTimeout(connectLobby, delay);
    };
  }

  function lobbySend(message) {
    if (!lobby.ws || lobby.ws.readyState !== WebSocket.OPEN) {
      status("not connected to the host: try again in a moment");
      return false;
    }
    lobby.ws.send(JSON.stringify(message));
    return true;
  }

  /** The status line: the host's own words for what it refused (empty hides it). */
  function status(text) {
    $("status").textContent = text;
    $("status").hidden = !text;
  }

  function lobbyReceive(m) {
    switch (m.type) {
      case "lobby":
        lobby.attempts = 0;
        lobby.last = m;
        setConn("open", "connected");
        drawLobby(m);
        if (lobby.redeem) {
          redeem(lobby.redeem);
          lobby.redeem = null;
          history.replaceState(null, "", location.pathname + location.search);
        }
        break;
      case "transfer":
        drawTransfer(m.transfer);
        break;
      case "identity":
        // The code was good: this browser is that player now (its name and key kept here).
        lobby.asked = null;
        lobby.refused = false;
        adopt(m);
        $("name-form").hidden = true;
        $("redeem-code").value = "";
        $("transfer-result").textContent = `You are ${m.name} in this browser now: the transfer code is used.`;
        break;
      case "seated":
        status("");
        seated(m, lobby.asked);
        break;
      case "ratings":
        drawRatings(m);
        break;
      case "uploaded":
        broughtRuleset(m);
        break;
      case "error":
        if (refusesName(m.code)) {
          // The name is another's (or only looks like it): say so by the name, and look on
          // without one until another is picked.
          lobby.refused = true;
          openNameForm(m.message);
          if (lobby.ws) lobby.ws.close();
          connectLobby();
        } else if (lobby.asked === "redeem" || lobby.asked === "transfer") {
          lobby.asked = null;
          $("transfer-result").textContent = m.message;
        } else if (lobby.asked === "upload") {
          lobby.asked = null;
          $("upload-result").textContent = `The host refused it: ${m.message}`;
        } else {
          status(m.message);
        }
        break;
    }
  }

  /** `uploaded`: the ruleset brought is offered; the new-table form picks it (before the next
   * `lobby` lists it). */
  function broughtRuleset(m) {
    lobby.asked = null;
    const r = m.ruleset;
    lobby.brought = r.id;
    $("upload-result").textContent = `The host offers your ruleset as ${r.name} (${r.id})${m.known ? ", which it had already" : ""}: make a table with it below.`;
    if (lobby.last) {
      const offered = lobby.last.rulesets || [];
      if (!offered.some((o) => o.id === r.id)) lobby.last.rulesets = [...offered, r];
      lobby.offered = JSON.stringify([lobby.last.rulesets, lobby.last.bots]);
      drawCreate(lobby.last.rulesets, lobby.last.bots || []);
      drawBoardChoice(lobby.last.rulesets);
    }
  }

  function rulesetName(id) {
    const found = ((lobby.last && lobby.last.rulesets) || []).find((r) => r.id === id);
    return found ? found.name : id;
  }

  function drawLobby(m) {
    body.dataset.phase = "lobby";
    body.dataset.you = m.you ? m.you.name : "";
    drawIdentity(m.you);
    drawTables(m.tables || [], m.more_tables || 0);
    $("upload-box").hidden = !m.uploads;
    const offered = JSON.stringify([m.rulesets, m.bots]);
    const shown = lobby.board;
    if (offered !== lobby.offered) {
      lobby.offered = offered;
      drawCreate(m.rulesets || [], m.bots || []);
      drawBoardChoice(m.rulesets || []);
    }
    // A game that ended changed its ruleset's ratings: the board shown is asked for again
    // (not at every change of the listing, which a busy host sends many times a second).
    const ended = endedGames(m.tables || []);
    const more = [...ended].some(([room, [ruleset, n]]) => ruleset === shown && n > ((lobby.ended.get(room) || [])[1] || 0));
    lobby.ended = ended;
    if (shown && shown === lobby.board && more) lobbySend({ type: "ratings", ruleset: lobby.board });
  }

  /** The games each table has finished: all of them once it is over, else all but the one
   * being played (or waited for). */
  function endedGames(tables) {
    return new Map(tables.map((t) => [t.room, [t.ruleset, t.state === "over" ? t.game : t.game - 1]]));
  }

  function drawIdentity(you) {
    const editing = !$("name-form").hidden && document.activeElement === $("name");
    $("you-line").hidden = !you;
    $("transfer-make-line").hidden = !you;
    if (you) {
      $("you").textContent = `You play as ${you.name}.`;
      if (!editing && !lobby.refused) $("name-form").hidden = true;
    } else if (!lobby.refused) {
      openNameForm("");
    }
    $("name-cancel").hidden = !you;
  }

  function openNameForm(error) {
    $("name-form").hidden = false;
    $("name-error").textContent = error;
    const known = identity();
    if (!$("name").value && known) $("name").value = known.name;
    if (error) $("name").focus();
  }

  function drawTables(tables, more) {
    if (!tables.length) {
      $("tables").replaceChildren(el("li", { class: "dim" }, "no table yet: make one below"));
      return;
    }
    const items = tables.map((t) => {
      const seats = (t.seats || []).map((s) =>
        el(
          "li",
          { class: s.player ? "taken" : "open" },
          `${s.seat}: `,
          s.bot ? `${s.player || s.bot} (bot)` : s.player || "open",
        ),
      );
      const taken = (t.seats || []).length - t.open;
      // Your own seat here (the host lists its token to you alone): the way back to it.
      const back = t.yours
        ? el("a", { class: "button back", href: t.yours.path, "data-seat": t.yours.seat }, `Back to your seat (seat ${t.yours.seat})`)
        : null;
      const sitDown =
        !back && t.state === "waiting" && t.open > 0
          ? el("button", { type: "button", class: "sit", "data-room": t.room, onclick: () => sit(t.room) }, "Sit")
          : null;
      return el(
        "li",
        { class: "table", "data-room": t.room, "data-state": t.state, "data-game": t.game, "data-yours": t.yours ? t.yours.seat : null },
        el("div", { class: "what" }, el("strong", {}, rulesetName(t.ruleset)), t.about ? ` — ${t.about}` : ""),
        el(
          "div",
          { class: "dim" },
          `table ${t.room} · game ${t.game} · ${t.state}` +
            (t.state === "waiting" ? ` · ${taken - (t.invited || 0)} of ${(t.seats || []).length} seats taken, ${t.open} open` : "") +
            (t.invited ? `, ${t.invited} kept for invites` : ""),
        ),
        el("ul", { class: "seats", "aria-label": "seats" }, seats),
        el("div", { class: "table-actions" }, el("a", { class: "button", href: t.watch || `/${encodeURIComponent(t.room)}` }, "Watch"), back, sitDown),
      );
    });
    // The host lists so many (waiting ones first) and counts the rest.
    if (more > 0) items.push(el("li", { class: "dim" }, `and ${more} more table${more === 1 ? "" : "s"}`));
    $("tables").replaceChildren(...items);
  }

  function ruleset(id) {
    return ((lobby.last && lobby.last.rulesets) || []).find((r) => r.id === id) || null;
  }

  function drawCreate(rulesets, bots) {
    const select = $("create-ruleset");
    const chosen = select.value;
    // A ruleset a player brought is shown with its id, which tells two of one name apart.
    select.replaceChildren(...rulesets.map((r) => el("option", { value: r.id }, r.hash ? `${r.name} (${r.id})` : r.name)));
    if (rulesets.some((r) => r.id === chosen)) select.value = chosen;
    if (lobby.brought && rulesets.some((r) => r.id === lobby.brought)) select.value = lobby.brought;
    $("create-bots").closest("label").hidden = bots.length === 0;
    createChanged();
  }

  /** The form follows the ruleset: its line, its balance, its seats; and one bot choice per
   * bot. `settle` puts the seats and bots in the ruleset's bounds (a new ruleset, a submit);
   * while a number is being typed it is left as typed. */
  function createChanged(settle = true) {
    const r = ruleset($("create-ruleset").value);
    const bots = (lobby.last && lobby.last.bots) || [];
    $("create-about").textContent = r ? r.about || "" : "";
    $("create-balance").hidden = !(r && r.balance);
    $("create-balance").textContent = r && r.balance ? `balance: ${r.balance}` : "";
    $("create-mods").replaceChildren(
      ...((r && r.mods) || []).map((mod) =>
        el("li", {}, `mod ${mod.name}: reads ${mod.reads}; ${mod.reveals ? "reveals cards to the table" : "reveals nothing"}`),
      ),
    );
    const [min, max] = r && r.seats ? r.seats : [2, 8];
    const seats = $("create-seats");
    seats.min = String(min);
    seats.max = String(max);
    const n = Math.min(max, Math.max(min, Number(seats.value) || min));
    const count = $("create-bots");
    count.max = String(n - 1);
    const b = bots.length ? Math.min(n - 1, Math.max(0, Number(count.value) || 0)) : 0;
    if (settle) {
      seats.value = String(n);
      count.value = String(b);
    }
    const list = $("create-bot-list");
    const kept = [...list.querySelectorAll("select")].map((sel) => sel.value);
    const rows = [];
    for (let i = 0; i < b; i++) {
      const at = n - b + i + 1;
      const pick = el("select", { "aria-label": `seat ${at}: which bot`, "data-seat": at }, bots.map((name) => el("option", { value: name }, name)));
      if (kept[i] && bots.includes(kept[i])) pick.value = kept[i];
      rows.push(el("li", {}, el("label", {}, `seat ${at}: bot `, pick)));
    }
    list.replaceChildren(...rows);
  }

  function needName() {
    if (lobby.last && lobby.last.you) return false;
    openNameForm("pick a name first: a seat is a player's");
    $("name").focus();
    return true;
  }

  function sit(id) {
    if (needName()) return;
    status("");
    lobby.asked = "sit";
    lobbySend({ type: "sit", room: id });
  }

  /** The host's URL of a seat, on the address this page was opened from (the same origin
   * keeps this browser's name and key). */
  function here(link) {
    try {
      const url = new URL(link, location.href);
      return location.origin + url.pathname + url.hash;
    } catch (_) {
      return link;
    }
  }

  const SEATED = "diving.seated";

  /** `seated`: the seat is this player's. The invites (a new table's) stay on show, this
   * tab remembering them if the player goes to the seat and comes back; with none to hand out
   * the page goes to the seat at once. */
  function seated(m, asked, restored = false) {
    $("seated").hidden = false;
    $("seated").dataset.room = m.room;
    $("seated-text").textContent = `You have seat ${m.seat} at table ${m.room}.`;
    const go = here(m.browser);
    $("seated-go").href = go;
    $("seated-join").textContent = m.join || "";
    const invites = m.invites || [];
    $("invites-box").hidden = invites.length === 0;
    $("invites").replaceChildren(
      ...invites.map((inv) => {
        const link = el("input", { class: "invite-link", readOnly: true, value: inv.browser, "aria-label": `seat ${inv.seat}'s link` });
        const copy = el("button", { type: "button", class: "copy" }, "Copy");
        copy.addEventListener("click", () => copyText(link, copy));
        return el(
          "li",
          { "data-seat": inv.seat },
          el("span", { class: "label" }, `seat ${inv.seat}`),
          el("div", { class: "field" }, link, copy),
          el("span", { class: "dim" }, "code: ", el("code", { class: "invite-code" }, inv.code)),
        );
      }),
    );
    if (restored) return;
    try {
      sessionStorage.setItem(SEATED, JSON.stringify(m));
    } catch (_) {
      // Not kept: the invites are on show until the page is left.
    }
    if (asked !== "create" || invites.length === 0) location.href = go;
    else $("seated-go").focus();
  }

  /** `transfer`: the code this player made, with its link and command, or none (revoked). */
  function drawTransfer(t) {
    lobby.asked = null;
    $("transfer-shown").hidden = !t;
    if (!t) {
      $("transfer-result").textContent = "Revoked: your transfer code no longer works.";
      return;
    }
    $("transfer-result").textContent = "";
    $("transfer-code").textContent = t.code;
    const minutes = Math.ceil(t.expires_secs / 60);
    $("transfer-expires").textContent = `(works once, for ${minutes} minute${minutes === 1 ? "" : "s"})`;
    $("transfer-link").value = here(t.browser);
    $("transfer-join").textContent = t.join;
    $("transfer-copy").textContent = "Copy";
  }

  function redeem(code) {
    $("transfer-result").textContent = "";
    lobby.asked = "redeem";
    lobbySend({ type: "redeem", code });
  }

  async function copyText(input, button) {
    try {
      await navigator.clipboard.writeText(input.value);
    } catch (_) {
      // No clipboard permission (a page over plain HTTP on another machine): select it for Ctrl-C.
      input.select();
      if (!document.execCommand("copy")) {
        button.textContent = "Selected: press Ctrl-C";
        return;
      }
    }
    button.textContent = "Copied";
  }

  function drawBoardChoice(rulesets) {
    const select = $("ratings-ruleset");
    const chosen = lobby.board;
    select.replaceChildren(...rulesets.map((r) => el("option", { value: r.id }, r.name)));
    const wanted = lobby.wanted && lobby.wanted.toLowerCase();
    const named = wanted && rulesets.find((r) => r.id.toLowerCase() === wanted || r.name.toLowerCase() === wanted);
    const pick = named ? named.id : rulesets.some((r) => r.id === chosen) ? chosen : rulesets.length ? rulesets[0].id : null;
    if (named) {
      lobby.wanted = null;
      $("ratings-box").scrollIntoView();
    }
    if (pick === null) return;
    select.value = pick;
    if (pick !== lobby.board) askBoard(pick);
  }

  function askBoard(id) {
    lobby.board = id;
    $("ratings-box").dataset.ruleset = id;
    lobbySend({ type: "ratings", ruleset: id });
  }

  function fixed(n, digits = 1) {
    return typeof n === "number" ? n.toFixed(digits) : "";
  }

  /** When a result was finished: a number is taken as Unix seconds, anything else shown as sent. */
  function when(finished) {
    if (typeof finished === "number") return new Date(finished * 1000).toLocaleString();
    return finished ? String(finished) : "";
  }

  function drawRatings(m) {
    if (m.ruleset !== lobby.board) return;
    const rows = (m.rows || []).map((r) =>
      el(
        "tr",
        { "data-player": r.player, "data-games": r.games, "data-wins": r.wins, "data-rating": r.rating },
        el("td", {}, String(r.rank)),
        el("td", {}, r.player, r.bot ? el("span", { class: "dim" }, " (bot)") : null),
        el("td", { class: "number" }, fixed(r.rating)),
        el("td", { class: "number dim" }, fixed(r.uncertainty)),
        el("td", { class: "number" }, String(r.games)),
        el("td", { class: "number" }, String(r.wins)),
      ),
    );
    if (!rows.length) rows.push(el("tr", {}, el("td", { colSpan: 6, class: "dim" }, "no game of this ruleset has ended yet")));
    $("ratings-rows").replaceChildren(...rows);
    const recent = (m.recent || []).map((g) =>
      el(
        "li",
        { "data-room": g.room, "data-game": g.game },
        `table ${g.room}, game ${g.game}${g.finished ? ` (${when(g.finished)})` : ""}: `,
        (g.places || [])
          .slice()
          .sort((a, b) => a.place - b.place)
          .map((p) => `${p.place}. ${p.player}`)
          .join(", "),
      ),
    );
    $("recent").replaceChildren(...(recent.length ? recent : [el("li", { class: "dim" }, "none yet")]));
    $("ratings-box").dataset.shown = m.ruleset;
  }

  function start() {
    $("lobby").hidden = false;
    $("join").hidden = false;
    body.dataset.phase = "lobby";
    try {
      const kept = JSON.parse(sessionStorage.getItem(SEATED));
      if (kept && kept.room) seated(kept, null, true);
    } catch (_) {
      // No table made from this tab.
    }
    onName("name-form", "name", "name-error", () => {
      lobby.refused = false;
      $("name-form").hidden = true;
      // The name is said in the lobby's hello: a new connection says the new one.
      if (lobby.ws) lobby.ws.onclose = null;
      if (lobby.ws) lobby.ws.close();
      lobby.last = null;
      connectLobby();
    });
    $("rename").addEventListener("click", () => {
      openNameForm("");
      $("name").focus();
      $("name").select();
    });
    $("name-cancel").addEventListener("click", () => {
      $("name-form").hidden = true;
      $("name-error").textContent = "";
    });
    $("create-ruleset").addEventListener("change", () => createChanged());
    for (const id of ["create-seats", "create-bots"]) {
      $(id).addEventListener("input", () => createChanged(false));
      $(id).addEventListener("change", () => createChanged(false));
    }
    $("create-form").addEventListener("submit", (e) => {
      e.preventDefault();
      if (needName()) return;
      createChanged();
      const bots = [...$("create-bot-list").querySelectorAll("select")].map((sel) => sel.value);
      status("");
      lobby.asked = "create";
      const create = { type: "create", ruleset: $("create-ruleset").value, seats: Number($("create-seats").value), bots, hints: $("create-hints").checked };
      // Unchecked, every open seat is kept for an invite (the host's default).
      if ($("create-open").checked) create.invites = 0;
      lobbySend(create);
    });
    $("upload-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      if (needName()) return;
      const picked = [...$("upload-files").files];
      const limits = (lobby.last && lobby.last.limits) || {};
      if (limits.upload_files && picked.length > limits.upload_files) {
        $("upload-result").textContent = `A ruleset has at most ${limits.upload_files} files; you picked ${picked.length}.`;
        return;
      }
      const files = await Promise.all(picked.map(async (f) => ({ name: f.name, text: await f.text() })));
      status("");
      lobby.asked = "upload";
      $("upload-result").textContent = "The host is checking it…";
      lobbySend({ type: "upload", files });
    });
    $("code-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const code = $("code").value.trim();
      if (!code || needName()) return;
      status("");
      lobby.asked = "code";
      lobbySend({ type: "code", code });
    });
    $("transfer-make").addEventListener("click", () => {
      lobby.asked = "transfer";
      lobbySend({ type: "transfer" });
    });
    $("transfer-revoke").addEventListener("click", () => {
      lobby.asked = "transfer";
      lobbySend({ type: "revoke" });
    });
    $("transfer-copy").addEventListener("click", () => copyText($("transfer-link"), $("transfer-copy")));
    $("redeem-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const code = $("redeem-code").value.trim();
      if (code) redeem(code);
    });
    $("ratings-ruleset").addEventListener("change", () => askBoard($("ratings-ruleset").value));
    $("ratings-refresh").addEventListener("click", () => lobby.board && askBoard(lobby.board));
    $("seated-close").addEventListener("click", () => {
      $("seated").hidden = true;
      try {
        sessionStorage.removeItem(SEATED);
      } catch (_) {
        // Nothing was kept.
      }
    });
    connectLobby();
  }

  // ----- start -----
  start();
  const go = (watch) => {
    const r = $("join-room").value.trim();
    if (!r) return;
    const hash = watch ? "" : `#seat=${encodeURIComponent($("join-seat").value.trim())}&token=${encodeURIComponent($("join-token").value.trim())}`;
    location.href = "/" + encodeURIComponent(r) + hash;
  };
  $("join-form").addEventListener("submit", (e) => {
    e.preventDefault();
    go(false);
  });
  $("watch-go").addEventListener("click", () => go(true));
}
