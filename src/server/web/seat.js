// Diving Suits, a seat's page (`/ROOM`). It holds no rule: it joins a seat (or watches) over
// the protocol of PROTOCOL.md, draws the view the host pushes with every change (it never
// asks for one), and sends the move the view lists (`move`: its place in the listing and the
// state it was listed at), or a line of the shell where the player writes one (a question's
// answer, `hint`, a recovery in the order picked). What a move may be is the host's to say,
// and the page shows the host's words when it refuses one.

import { WIRE } from "./wire.js";
import { $, body, el, identity, onName, player, setConn } from "./page.js";

// The wire as this host speaks it: its version, and what each error code means to a client.
const { protocol: PROTOCOL, isFinal, asksWho, refusesName, refusesSeat, refusesToken, movedElsewhere } = WIRE;
const SUITS = { S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"] };

/** Starts the page of the seat (or the watcher) the address and its fragment name. */
export function startSeat() {
  // ----- where we are -----
  const room = decodeURIComponent(location.pathname.replace(/^\/+/, "").replace(/\/+$/, ""));
  const params = new URLSearchParams(location.hash.slice(1));
  // The seat moves on at each rematch (`new_game`); the token stays the seat's.
  let seat = params.get("seat");
  const token = params.get("token");

  const app = {
    ws: null,
    view: null,
    joined: false,
    everJoined: false,
    reconnects: 0,
    // The \`at\` of the last \`output\`: a reconnection says it (\`since\`), and the host sends the
    // rest, nothing twice. A reload starts again from nothing, and is sent the whole history.
    seen: null,
    attempts: 0,
    timer: null,
    stopped: null,
    // The `id` of the command sent and not yet answered (the host gives it back on its
    // answer), or false.
    commandPending: false,
    sent: 0,
    recovering: false,
    selected: [],
    // Said after the host's refusal of a card clicked that has no move (what to do instead).
    instead: "",
    // The table's seats while it waits for people (`waiting`), until its game is dealt.
    gathering: null,
    // The host asked who is sitting down (a table made in the lobby): the page asks for a name.
    askingName: false,
    // This seat asked for a rematch of the game that is over.
    rematchAsked: false,
    // A `new_game` came: the `hello` that follows starts it, and is no reconnection.
    newGame: false,
    // The ruleset's name from `hello`, for the link to its leaderboard.
    ruleset: null,
    // The connection closed once the game was over, and the page tried once to get back.
    overTried: false,
    // The host refused this seat link for good (`token`, `seat`) or the seat moved to another
    // connection (`replaced`): the page says why, and what can be done.
    deadEnd: null,
  };

  // ----- the connection -----
  function connect() {
    clearTimeout(app.timer);
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const ws = new WebSocket(scheme + location.host + "/" + encodeURIComponent(room));
    app.ws = ws;
    app.joined = false;
    ws.onopen = () => {
      const since = app.seen === null ? {} : { since: app.seen };
      // The seat as the link gives it: the host says what is wrong with one that is not a seat.
      const asked = /^[0-9]+$/.test(seat || "") && Number.isSafeInteger(Number(seat)) ? Number(seat) : seat;
      // Who sits down, when this browser has a name (a table made in the lobby needs one).
      const me = player();
      const who = me ? { player: { name: me.name, key: me.key } } : {};
      // The page shows what each move would do: its views come with previews.
      if (seat !== null) send({ type: "join", protocol: PROTOCOL, seat: asked, token: token || "", previews: true, ...since, ...who });
      else send({ type: "watch", protocol: PROTOCOL, ...since });
    };
    ws.onmessage = (e) => {
      let message;
      try {
        message = JSON.parse(e.data);
      } catch (_) {
        return;
      }
      receive(message);
    };
    ws.onclose = () => {
      if (app.ws !== ws) return;
      const wasJoined = app.joined;
      app.ws = null;
      app.joined = false;
      app.commandPending = false;
      draw();
      if (app.askingName) {
        // Not a failure: the page waits for the name (and is not greyed out like a lost one).
        setConn("naming", "pick a name to take the seat");
        return;
      }
      if (app.stopped) {
        setConn("closed", app.stopped);
        return;
      }
      if (app.view && app.view.state.over) {
        // A table may stay for a rematch (a lobby's does): one try to get back to it. A host
        // whose games are all over and that has gone answers no more, and the page stops.
        if (app.overTried || !wasJoined) {
          setConn("closed", "the game is over and the host has closed the connection");
          return;
        }
        app.overTried = true;
        setConn("reconnecting", "connection lost — the game is over: reconnecting once for a rematch…");
        app.timer = setTimeout(connect, 400);
        return;
      }
      app.attempts += 1;
      const delay = Math.min(5000, 400 * 2 ** Math.min(app.attempts - 1, 4));
      setConn(
        "reconnecting",
        (app.everJoined || app.gathering ? "connection lost — " : "cannot reach the host — ") +
          `reconnecting (attempt ${app.attempts}) in ${Math.round(delay / 100) / 10}s…`,
      );
      app.timer = setTimeout(connect, delay);
    };
  }

  function send(message) {
    if (!app.ws || app.ws.readyState !== WebSocket.OPEN) return false;
    app.ws.send(JSON.stringify(message));
    return true;
  }

  /** Sends `message` (a command or a move) with the next id, and waits for its answer. */
  function ask(message) {
    if (!app.joined || app.commandPending) return;
    // Taken before the choices close: their button may hold the focus.
    const key = focusKey();
    const id = app.sent + 1;
    if (send({ ...message, id })) {
      app.commandPending = id;
      // How many commands this page has sent: lets a watcher (or a test) tell one move from the next.
      app.sent = id;
      body.dataset.sent = String(app.sent);
      closeChoices();
      hint("");
      draw(key);
    }
  }

  /** A line of the shell (a question's answer, hint, a recovery in the order picked). */
  function command(line) {
    ask({ type: "command", line });
  }

  /** A move the view lists, by its place in the listing of the state the view shows: the host
   * makes it as listed (or says the game has moved on). */
  function play(m) {
    const v = app.view;
    if (!v) return;
    ask({ type: "move", at: v.at, game: v.game, index: m.index });
  }

  function receive(m) {
    switch (m.type) {
      case "hello": {
        app.joined = true;
        app.overTried = false;
        app.answered = false;
        app.attempts = 0;
        app.gathering = null;
        app.ruleset = m.ruleset && m.ruleset.name;
        $("waiting").hidden = true;
        if (app.newGame) {
          // The next game at the same table: the same connection, no return.
          app.newGame = false;
          setConn("open", "connected");
        } else if (app.everJoined) {
          app.reconnects += 1;
          body.dataset.reconnects = String(app.reconnects);
          setConn("open", "back — reconnected");
          setTimeout(() => {
            if (body.dataset.conn === "open") setConn("open", "connected");
          }, 5000);
        } else {
          setConn("open", "connected");
        }
        app.everJoined = true;
        $("who").textContent =
          m.seat === null
            ? `room ${m.room}: watching ${m.players.join(", ")}`
            : `room ${m.room}: you are ${m.player} (seat ${m.seat}) · ruleset ${m.ruleset.name}`;
        // The output that follows carries the view: nothing to ask for.
        break;
      }
      case "error":
        if (m.id !== undefined && m.id === app.commandPending) app.commandPending = false;
        if (asksWho(m.code) && !app.joined && seat !== null) {
          // The table wants to know who sits down, or refused the name: ask, then join again.
          askName(m.code, m.message);
          break;
        }
        // Refused before the host let us in (a seat link that is no seat): trying again
        // would be refused the same way.
        if (isFinal(m.code) || (!app.joined && !app.gathering)) {
          app.stopped = m.message;
          setConn("closed", m.message);
          if (!app.joined && refusesSeat(m.code)) deadEnd(m.code, m.message);
          else if (movedElsewhere(m.code)) deadEnd(m.code, m.message);
          if (app.ws && !isFinal(m.code)) app.ws.close();
        } else {
          hint(m.message, true);
        }
        break;
      case "output":
        output(m);
        break;
      case "waiting":
        gathering(m);
        break;
      case "rematch":
        rematchSaid(m);
        break;
      case "new_game":
        newGame(m);
        break;
    }
  }

  // ----- a seat this page cannot take -----
  /** A seat link the host refused for good, a wrong `token` or a `seat` that is not this
   * player's to take (someone else's, a bot's, or none), or a seat `replaced` by a new
   * connection (opened in another tab or device): what happened in the host's words, why,
   * when tables close (the host's times, on the page's body), and the ways on: the lobby,
   * watching this room, and for a seat opened elsewhere, taking it back here. */
  function deadEnd(code, message) {
    app.deadEnd = code;
    const token = refusesToken(code);
    const elsewhere = movedElsewhere(code);
    const view = $("dead-end");
    view.dataset.kind = code;
    $("dead-end-title").textContent = elsewhere
      ? "Your seat is open somewhere else now"
      : token
        ? "This link opens no seat here"
        : "This seat is not yours to take";
    $("dead-end-what").textContent = `The host says: ${message}.`;
    $("dead-end-back").hidden = !elsewhere;
    $("dead-end-why").textContent = elsewhere
      ? "This seat was opened in another tab, browser or terminal, and a seat plays in one place at a time. " +
        "Go on there, or take it back here: the other place then stops."
      : token
      ? "Each seat has its own token, in its invite link: this one was made for another seat or another table, " +
        "or part of it was lost when it was copied. Ask whoever invited you to send the link again."
      : "A seat at a table made in the lobby is its player's from the moment they sit down: it opens again only " +
        "for them (the browser that keeps their key, or their terminal), whoever else has the link. If the seat " +
        "is yours, open the link where you first sat down, or bring yourself here first: in the lobby there, " +
        "Use on another device gives a code to enter in this browser's lobby. A link to a bot's seat, or to a seat the table does " +
        "not have, is refused too.";
    const idle = !elsewhere && body.dataset.idle;
    $("dead-end-close").hidden = !idle;
    $("dead-end-close").textContent = idle
      ? `A table made in the lobby closes once no one has been at it for ${idle} while it waits for players or ` +
        `after its game, and ${body.dataset.abandoned} after everyone left a game unfinished: its links then open nothing.`
      : "";
    $("dead-end-watch").href = "/" + encodeURIComponent(room);
    for (const id of ["game", "waiting", "seat-name"]) $(id).hidden = true;
    view.hidden = false;
    body.dataset.phase = phase();
    $("dead-end-title").setAttribute("tabindex", "-1");
    $("dead-end-title").focus();
  }

  // ----- a table that waits, and the next game -----
  /** `waiting`: the table's seats until every one is taken; the game is dealt then, and its
   * `hello` comes (on this connection, or on a later one). */
  function gathering(m) {
    app.gathering = m;
    app.attempts = 0;
    // The `hello` to come deals the game: it is no return.
    app.newGame = true;
    setConn("open", "connected");
    const seats = m.seats || [];
    const mine = seat === null ? null : seats.find((s) => String(s.seat) === String(seat));
    $("who").textContent =
      seat === null ? `room ${m.room}: watching` : `room ${m.room}: you are ${mine && mine.player ? mine.player : "?"} (seat ${seat})`;
    $("waiting").hidden = false;
    $("game").hidden = true;
    $("waiting-text").textContent =
      `waiting for players: ${m.open} of ${seats.length} seat${seats.length === 1 ? "" : "s"} open` +
      (seats.some((s) => s.player && !s.bot) ? ` (here: ${seats.filter((s) => s.player && !s.bot).map((s) => s.player).join(", ")})` : "");
    $("waiting-seats").replaceChildren(
      ...seats.map((s) =>
        el(
          "li",
          { "data-seat": s.seat, class: s.player ? "taken" : "open" },
          `seat ${s.seat}: `,
          s.bot ? `${s.player || s.bot} (bot: ${s.bot})` : s.player ? s.player : "open",
          String(s.seat) === String(seat) ? " (you)" : "",
        ),
      ),
    );
    draw();
  }

  function rematchSaid(m) {
    const asked = m.asked || [];
    const waiting = m.waiting_for || [];
    const me = app.view && app.view.seat !== null ? app.view.state.players[app.view.seat - 1] : null;
    if (me && asked.includes(me.name)) app.rematchAsked = true;
    const list = (names) => (names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0] || "");
    $("rematch-status").textContent =
      `${list(asked)} asked for a rematch; ` + (waiting.length ? `waiting for ${list(waiting)}` : "the next game starts");
    draw();
  }

  /** `new_game`: the table's next game. The seat may have moved on (the link says the new
   * one, without a reload); what this page saw of the old game is gone, and its count of
   * moves starts again from the `at` of the output that answers the `hello` to come. */
  function newGame(m) {
    if (m.seat !== null && m.seat !== undefined) {
      seat = String(m.seat);
      params.set("seat", seat);
      history.replaceState(null, "", location.pathname + location.search + "#" + params.toString());
    }
    body.dataset.game = String(m.game);
    app.newGame = true;
    app.seen = null;
    app.answered = false;
    app.view = null;
    app.rematchAsked = false;
    app.recovering = false;
    app.selected = [];
    app.commandPending = false;
    closeChoices();
    hint("");
    $("log").replaceChildren();
    $("rematch-status").textContent = "";
    $("after").hidden = true;
    draw();
  }

  /** The table asked who sits down (`player`), or refused the name given (`name`, in the
   * host's words): a name box, then a join again. */
  function askName(code, message) {
    app.askingName = true;
    $("seat-name").hidden = false;
    $("seat-name-why").textContent =
      refusesName(code)
        ? "The host did not take this name: pick another."
        : "Who takes this seat? Pick the name the others will see: the host keeps your ratings under it, and this browser a secret key that says it is you.";
    $("seat-name-error").textContent = refusesName(code) ? message : "";
    const input = $("seat-name-input");
    if (!input.value) input.value = (identity() && identity().name) || "";
    input.focus();
    if (app.ws) app.ws.close();
  }

  function output(m) {
    // The output answering a join carries the host's own count: a host that lost its last
    // moves in a crash counts fewer than we saw, and the moves after its count are new ones.
    if (typeof m.at === "number") {
      app.seen = app.answered ? Math.max(app.seen === null ? 0 : app.seen, m.at) : m.at;
      app.answered = true;
    }
    const lines = m.json || [];
    let chatOnly = lines.length > 0;
    // The answer to the command this page sent carries its id.
    const answered = m.id !== undefined && m.id === app.commandPending;
    // A return's \`state\` comes with the board as a terminal draws it: the page draws its own.
    const board = lines.some((line) => line.state);
    for (const line of lines) {
      if (line.chat) addChat(line.chat.player, line.chat.text);
      else chatOnly = false;
      if (line.error) hint(line.error + (app.instead || ""), true);
      if (line.bye) app.stopped = "you left the game";
    }
    if (!chatOnly) for (const text of m.text || []) if (!(board && text.includes("\n"))) addLog(text);
    if (answered) {
      app.commandPending = false;
      app.instead = "";
    }
    // A change comes with the view it leads to: drawn as it is, nothing is asked for.
    if (m.view) app.view = m.view;
    if (m.view || answered) draw();
  }

  // ----- drawing -----
  function showDepth(depth) {
    const rules = app.view.rules;
    const shown = depth * rules.depth_scale;
    return rules.depth_unit ? `${shown} ${rules.depth_unit}` : String(shown);
  }

  /** A card as it is read out: "5 of hearts" (the suit decides doubling). */
  function cardLabel(text) {
    const suit = SUITS[text.slice(-1)] || ["?", "?"];
    return `${text.slice(0, -1)} of ${suit[1]}`;
  }

  function cardNode(text, props = {}, small = false, corner = null) {
    const rank = text.slice(0, -1);
    const suit = SUITS[text.slice(-1)] || ["?", "?"];
    const red = text.endsWith("H") || text.endsWith("D");
    const label = cardLabel(text);
    const classes = ["card", red ? "red" : "", small ? "small" : "", props.class || ""].join(" ").trim();
    const tag = props.onclick ? "button" : "span";
    return el(
      tag,
      // A span is read by its label only as an image. Every card is a cell of its group: one
      // Tab reaches the group, the arrow keys its cards (see rove).
      { role: tag === "span" ? "img" : null, ...props, class: classes, "aria-label": props["aria-label"] || label, "data-card": text, "data-cell": true, type: tag === "button" ? "button" : null },
      // The slot's name as the moves say it ("play 7H t1").
      corner ? el("span", { class: "slot", "aria-hidden": "true" }, corner) : null,
      el("span", { class: "rank" }, rank),
      el("span", { class: "suit", "aria-hidden": "true" }, suit[0]),
    );
  }

  /** A control that cannot be used now but stays reachable (and read) by keyboard: a
   * `disabled` button takes no focus, so a card could not be read out. */
  function inert(node, off) {
    if (off) node.setAttribute("aria-disabled", "true");
    else node.removeAttribute("aria-disabled");
    return node;
  }

  /** One Tab stop per group (`data-rove`): the group's cell last focused (or its first) takes
   * Tab, the others -1; the arrow keys, Home and End move inside it. Without it the table, the
   * cards in front and the moves took up to dozens of Tabs. */
  function cells(group) {
    return [...group.querySelectorAll("[data-cell]")].filter((n) => !n.disabled);
  }

  function rove(group) {
    const items = cells(group);
    if (!items.length) return;
    let at = items.indexOf(document.activeElement);
    if (at < 0) at = Math.min(Number(group.dataset.at || 0), items.length - 1);
    group.dataset.at = String(at);
    items.forEach((n, i) => {
      n.tabIndex = i === at ? 0 : -1;
    });
  }

  function roveAll() {
    for (const group of document.querySelectorAll("[data-rove]")) rove(group);
  }

  function phase() {
    if (app.deadEnd) return "dead-end";
    if (app.gathering) return "seats";
    const v = app.view;
    if (!app.joined || !v) return app.everJoined ? "offline" : "join";
    if (v.state.over) return "over";
    if (app.commandPending) return "busy";
    if (v.moves.length > 0) return "yours";
    return v.question ? "question" : "waiting";
  }

  /** What has the focus, as something the next drawing can find again. */
  function focusKey() {
    const a = document.activeElement;
    if (!a || a === body) return null;
    if (a.id) return `#${a.id}`;
    for (const key of ["data-command", "data-answer", "data-slot", "data-index"]) {
      if (a.hasAttribute(key)) return `${a.closest("[id]") ? "#" + a.closest("[id]").id + " " : ""}[${key}="${CSS.escape(a.getAttribute(key))}"]`;
    }
    return null;
  }

  /** Puts the focus back after a drawing replaced the focused element (it fell to the page
   * after every move): on the same control if it is there, else on the first card to play,
   * else on the turn line. */
  function refocus(key, p) {
    const a = document.activeElement;
    // Kept where it is, unless it waits on the turn line and it is now this seat's turn.
    if (a && a !== body && !(a === $("turn") && p === "yours")) return;
    const same = key && document.querySelector(key);
    const target =
      (same && !same.disabled && same.offsetParent !== null && same) ||
      document.querySelector("#hand button.playable:not([aria-disabled]), #table button.playable:not([aria-disabled])") ||
      $("turn");
    target.focus({ preventScroll: true });
  }

  function draw(given) {
    const v = app.view;
    const key = given === undefined ? focusKey() : given;
    const hadFocus = key !== null;
    const p = phase();
    body.dataset.phase = p;
    // The tab says when it is this seat's move (seen from another tab).
    document.title = p === "yours" ? "▶ your move · Diving Suits" : p === "over" ? "game over · Diving Suits" : "Diving Suits";
    if (!v || p === "dead-end") return;
    $("game").hidden = false;
    const st = v.state;
    body.dataset.at = String(st.turn);
    const me = v.seat === null ? null : st.players[v.seat - 1];
    let turn;
    // Everyone who won: the winner and their team, or a shared win.
    const winners = st.winners && st.winners.length ? st.winners : st.winner ? [st.winner] : [];
    const names = (list) => (list.length < 2 ? list.join("") : `${list.slice(0, -1).join(", ")} and ${list[list.length - 1]}`);
    if (st.over) {
      if (winners.length) {
        const mine = me && winners.includes(me.name);
        const others = winners.filter((n) => !me || n !== me.name);
        turn = mine
          ? `you won${others.length ? ` with ${names(others)}` : ""}! (turn ${st.turn})`
          : `${names(winners)} won (turn ${st.turn})`;
      } else turn = `the game is a draw (turn ${st.turn})`;
    } else if (me && st.current === me.name) {
      turn = `turn ${st.turn} — your move`;
    } else {
      turn = `turn ${st.turn} — ${st.current} to play`;
    }
    // The order of play, when a house rule changed it.
    if (!st.over && st.next) turn += `, then ${st.next}${st.backwards ? " (play goes the other way round)" : ""}`;
    $("turn").textContent = turn;
    $("turn").classList.toggle("over", st.over);
    drawAfter(v, me);
    drawDivers(v);
    drawTable(v, p);
    drawHand(v, p, me);
    drawMoves(v, p);
    drawHelp(v);
    if (hadFocus) refocus(key, p);
    roveAll();
  }

  /** Once the game is over: Rematch for a seat, and the ruleset's leaderboard. */
  function drawAfter(v, me) {
    $("after").hidden = !v.state.over;
    $("rematch").hidden = !me;
    $("rematch").disabled = app.rematchAsked || !app.joined;
    $("rematch").textContent = app.rematchAsked ? "Rematch asked" : "Rematch";
    $("after-ratings").href = app.ruleset ? `/#ratings=${encodeURIComponent(app.ruleset)}` : "/";
  }

  /** A diver's depth or oxygen: a meter named by the diver and the gauge (`ann: oxygen`), so
   * that the meters of several divers are told apart out of context. */
  function gauge(kind, label, diver, value, max, text) {
    const percent = max > 0 ? Math.max(0, Math.min(100, (100 * value) / max)) : 0;
    const fill = el("div", { class: "fill" });
    // Through the CSSOM: the page's policy allows no inline style attribute.
    fill.style.width = `${percent}%`;
    let level = "";
    if (kind === "oxygen") level = value / max > 0.5 ? "" : value / max > 0.25 ? "low" : "danger";
    return el(
      "div",
      { class: `gauge ${kind} ${level}`.trim() },
      el("span", {}, label),
      el(
        "div",
        { class: "bar", role: "meter", "aria-label": `${diver}: ${label}`, "aria-valuemin": 0, "aria-valuemax": max, "aria-valuenow": value, "aria-valuetext": text },
        fill,
      ),
      el("span", { class: "value" }, text),
    );
  }

  function drawDivers(v) {
    const st = v.state;
    const rules = v.rules;
    const items = st.players.map((pl) => {
      const notes = [];
      if (v.seat === pl.seat) notes.push("you");
      if (pl.team) notes.push(`team ${pl.team}`);
      if (pl.bot) notes.push(`bot: ${pl.bot}`);
      notes.push(`${pl.hand_size} card${pl.hand_size === 1 ? "" : "s"}`);
      const front = pl.front.length
        ? el(
            "div",
            { class: "front" },
            "in front:",
            pl.front.map((c) => {
              const rank = c.slice(0, -1);
              const meaning = v.front[rank] || "";
              const label = `in front of ${pl.name}: ${cardLabel(c)}${meaning ? ` (${meaning})` : ""}`;
              return el("span", { class: "front-card" }, cardNode(c, { title: meaning, "aria-label": label }, true), " ", meaning);
            }),
          )
        : null;
      const fronts = pl.front.length ? `; in front: ${pl.front.map(cardLabel).join(", ")}` : "";
      const said =
        `${pl.name} (${notes.join(", ")})${pl.name === st.current && !st.over ? ", to play" : ""}: ` +
        `depth ${showDepth(pl.depth)} of ${showDepth(rules.max_depth)}, oxygen ${pl.oxygen} of ${rules.max_oxygen}${fronts}`;
      return el(
        "li",
        { class: `diver${pl.name === st.current && !st.over ? " current" : ""}`, "data-seat": pl.seat, "data-depth": pl.depth, "data-oxygen": pl.oxygen, "data-cell": true, "aria-label": said },
        el("div", { class: "name" }, pl.name, " ", el("span", { class: "note" }, `(${notes.join(", ")})`)),
        el(
          "div",
          { class: "gauges" },
          gauge("depth", "depth", pl.name, pl.depth, rules.max_depth, `${showDepth(pl.depth)} / ${showDepth(rules.max_depth)}`),
          gauge("oxygen", "oxygen", pl.name, pl.oxygen, rules.max_oxygen, `${pl.oxygen} / ${rules.max_oxygen}`),
        ),
        front,
      );
    });
    $("divers").replaceChildren(...items);
  }

  function playsOf(v, card, slot) {
    return v.moves.filter((m) => m.kind === "play" && m.card === card && m.slot === slot);
  }

  function cardTitle(v, card, plays) {
    const rank = card.slice(0, -1);
    const parts = plays.map((m) => `${m.command}${m.preview ? " → " + m.preview : ""}`);
    if (v.card_help[rank]) parts.push(v.card_help[rank]);
    return parts.join("\n");
  }

  function drawTable(v, p) {
    const st = v.state;
    const slots = st.table.map((card, i) => {
      if (!card)
        return el(
          "span",
          // The name begins with what the slot shows ("t1"): said aloud, it finds the slot.
          { class: "card empty", role: "img", "aria-label": `t${i + 1} empty, table slot ${i + 1}`, "data-cell": true, "data-slot": i + 1 },
          el("span", { class: "slot", "aria-hidden": "true" }, `t${i + 1}`),
          "—",
        );
      const plays = playsOf(v, card, i + 1);
      const playable = p === "yours" && plays.length > 0 && !app.recovering;
      const node = cardNode(
        card,
        {
          class: playable ? "playable" : "",
          title: cardTitle(v, card, plays),
          "data-slot": i + 1,
          // What the card shows ("t1", "7"), then what it is: a voice that says the visible
          // label finds the button (WCAG 2.5.3, label in name).
          "aria-label": `t${i + 1} ${cardLabel(card)}, table slot ${i + 1}${playable ? " (playable)" : ""}`,
          onclick: () => clickCard(card, i + 1),
        },
        false,
        `t${i + 1}`,
      );
      return inert(node, !playable);
    });
    $("table").replaceChildren(...slots);
    const top = st.discard_top;
    const pile = `${st.discard_size} card${st.discard_size === 1 ? "" : "s"}`;
    $("discard").replaceChildren(top ? cardNode(top, { title: "the top of the discard pile: a card of its rank or suit played now is doubled", "aria-label": `discard top: ${cardLabel(top)} (${pile} in the pile)` }) : el("span", { class: "card empty", role: "img", "aria-label": "discard: empty", "data-cell": true }, "—"));
    $("discard-size").textContent = pile;
    $("deck").replaceChildren(el("span", { role: "img", "aria-label": `deck: ${st.deck_size} card${st.deck_size === 1 ? "" : "s"}`, "data-cell": true }, String(st.deck_size)));
  }

  function drawHand(v, p, me) {
    $("mine").hidden = !me;
    if (!me) return;
    const yours = p === "yours";
    const hand = (me.hand || []).map((card, i) => {
      const plays = playsOf(v, card, null);
      const selected = app.selected.includes(card);
      const node = cardNode(card, {
        class: yours && !app.recovering && plays.length ? "playable" : "",
        title: cardTitle(v, card, plays),
        "aria-pressed": app.recovering ? String(selected) : null,
        "aria-label": `${cardLabel(card)}${i < 9 ? ` (key ${i + 1})` : ""}`,
        "data-index": i + 1,
        onclick: () => clickCard(card, null),
      });
      return inert(node, !yours);
    });
    $("hand").replaceChildren(...hand);
    const canRecover = v.moves.some((m) => m.kind === "recover");
    const canPass = v.moves.some((m) => m.kind === "pass");
    $("recover-mode").disabled = !yours || !canRecover;
    $("recover-mode").setAttribute("aria-pressed", String(app.recovering));
    $("pass").disabled = !yours || !canPass;
    // A table made without hints refuses, and the page says why.
    $("hint-button").disabled = !yours;
    if (!yours) {
      app.recovering = false;
      app.selected = [];
    }
    if (app.recovering) showRecovery(v);
    if (v.question && !app.commandPending) showQuestion(v.question);
  }

  function moveButton(m) {
    return el(
      "button",
      // A mod's action says what it does on hover.
      { type: "button", "data-command": m.command, "data-cell": true, title: m.describe || null, onclick: () => play(m) },
      m.command,
      m.preview ? el("span", { class: "preview" }, " → " + m.preview) : null,
    );
  }

  function drawMoves(v, p) {
    const yours = p === "yours";
    const plays = v.moves.filter((m) => m.kind !== "recover");
    const recoveries = v.moves.filter((m) => m.kind === "recover");
    $("moves").replaceChildren(...plays.map((m) => el("li", {}, moveButton(m))));
    if (!v.moves.length) {
      const why = v.state.over ? "none: the game is over" : v.seat === null ? "you are watching" : `none: it is ${v.state.current}'s turn`;
      $("moves").replaceChildren(el("li", { class: "preview" }, why));
    }
    $("recoveries").hidden = recoveries.length === 0;
    $("recoveries-title").textContent = `recoveries (${recoveries.length})`;
    $("recoveries-list").replaceChildren(...recoveries.map((m) => el("li", {}, moveButton(m))));
    for (const b of document.querySelectorAll("#moves button, #recoveries-list button")) b.disabled = !yours;
  }

  function drawHelp(v) {
    // Ranks that do the same (the number cards) share one entry.
    const byText = new Map();
    const order = (rank) => ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"].indexOf(rank);
    const ranks = Object.keys(v.card_help).sort((a, b) => order(a) - order(b));
    for (const rank of ranks) {
      const text = v.card_help[rank];
      byText.set(text, [...(byText.get(text) || []), rank]);
    }
    const items = [...byText].flatMap(([text, ranks]) => [el("dt", {}, ranks.join(", ")), el("dd", {}, text)]);
    $("help").replaceChildren(...items);
  }

  function addLog(text) {
    const log = $("log");
    const turn = /^(turn \d+|-- turn)/i.test(text) || /^—/.test(text);
    // A text of several lines (the board a return is sent) keeps its lines.
    log.append(el("li", { class: `${turn ? "turn" : ""}${text.includes("\n") ? " block" : ""}`.trim() }, text));
    while (log.children.length > 300) log.firstChild.remove();
    $("log-box").scrollTop = $("log-box").scrollHeight;
  }

  function addChat(player, text) {
    const chat = $("chat");
    chat.append(el("li", {}, el("span", { class: "who" }, player + ": "), text));
    while (chat.children.length > 200) chat.firstChild.remove();
    $("chat-box").scrollTop = $("chat-box").scrollHeight;
  }

  function hint(text, error = false) {
    $("hint").textContent = text;
    $("hint").classList.toggle("error", error);
  }

  // ----- choosing -----
  function choose(title, options) {
    const opening = $("choices").hidden;
    $("choices-title").textContent = title;
    $("choices-list").replaceChildren(...options);
    $("choices").hidden = false;
    // Focus the first choice when the box opens, not on every redraw (a chat being typed keeps it).
    const first = $("choices-list").querySelector("button:not(:disabled)");
    if (opening && first) first.focus();
  }

  function closeChoices() {
    $("choices").hidden = true;
    // Nothing stale left in the hidden box (a recovery's text stayed there).
    $("choices-title").textContent = "";
    $("choices-list").replaceChildren();
  }

  function describe(m) {
    const parts = [];
    if (m.target) parts.push(`at ${m.target}`);
    if (m.over) parts.push("with the face card on top");
    return parts.length ? parts.join(", ") : "play it";
  }

  function clickCard(card, slot) {
    const v = app.view;
    if (!v || phase() !== "yours") return;
    if (slot !== null && app.recovering) return;
    if (app.recovering && slot === null) {
      const i = app.selected.indexOf(card);
      if (i >= 0) app.selected.splice(i, 1);
      else app.selected.push(card);
      draw();
      return;
    }
    const plays = playsOf(v, card, slot);
    if (plays.length === 1) return play(plays[0]);
    if (plays.length === 0) {
      // The page knows no rule: the host says why (its answer is the shell's, "7H cannot be
      // played now: …"), and the hint adds what can be done instead.
      const recover = v.moves.some((m) => m.kind === "recover");
      app.instead = recover ? " — press r (Recover…) to select cards to recover" : "";
      command(`play ${card}${slot ? ` t${slot}` : ""}`);
      return;
    }
    choose(
      `play ${card}${slot ? ` from table slot ${slot}` : ""}: choose`,
      plays.map((m) =>
        el(
          "button",
          { type: "button", "data-command": m.command, "data-cell": true, onclick: () => play(m) },
          describe(m),
          m.preview ? el("span", { class: "preview" }, " → " + m.preview) : null,
        ),
      ),
    );
  }

  function sameSet(a, b) {
    return a.length === b.length && a.every((c) => b.includes(c));
  }

  function showRecovery(v) {
    const matching = v.moves.filter((m) => m.kind === "recover" && sameSet(m.cards, app.selected));
    if (!app.selected.length) {
      choose("recover: select the cards to discard (the last one you select ends on top)", []);
      return;
    }
    if (!matching.length) {
      choose(`recover ${app.selected.join(" ")}: not a legal recovery`, []);
      return;
    }
    const line = (m) => `recover ${app.selected.join(" ")}${m.over ? " over" : ""}`;
    choose(
      `recover ${app.selected.join(" ")}`,
      matching.map((m) =>
        el(
          "button",
          { type: "button", "data-command": line(m), "data-recover": true, "data-cell": true, onclick: () => finishRecovery(line(m)) },
          m.over ? "recover, the K on top" : "recover",
          m.preview ? el("span", { class: "preview" }, " → " + m.preview) : null,
        ),
      ),
    );
    // Keep the focus on the hand while selecting.
  }

  function finishRecovery(line) {
    app.recovering = false;
    app.selected = [];
    command(line);
  }

  function toggleRecovery() {
    if (phase() !== "yours" || $("recover-mode").disabled) return;
    app.recovering = !app.recovering;
    app.selected = [];
    if (!app.recovering) closeChoices();
    draw();
  }

  function showQuestion(q) {
    choose(
      q.text,
      q.options.map((name) => el("button", { type: "button", "data-answer": name, "data-cell": true, onclick: () => command(name) }, name)),
    );
  }

  // ----- input -----
  $("recover-mode").addEventListener("click", toggleRecovery);
  /** The listed pass, when there is one. */
  function pass() {
    const m = app.view && app.view.moves.find((move) => move.kind === "pass");
    if (m) play(m);
  }

  $("pass").addEventListener("click", pass);
  $("hint-button").addEventListener("click", () => command("hint"));
  $("choices-cancel").addEventListener("click", () => {
    app.recovering = false;
    app.selected = [];
    closeChoices();
    draw();
  });
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-text").value.trim();
    if (text && send({ type: "say", text })) $("chat-text").value = "";
  });

  document.addEventListener("focusin", (e) => {
    const group = e.target.closest && e.target.closest("[data-rove]");
    if (!group || !e.target.hasAttribute("data-cell")) return;
    const at = cells(group).indexOf(e.target);
    if (at >= 0) group.dataset.at = String(at);
    rove(group);
  });

  const STEPS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  document.addEventListener("keydown", (e) => {
    const group = e.target.hasAttribute && e.target.hasAttribute("data-cell") && e.target.closest("[data-rove]");
    if (group && (e.key in STEPS || e.key === "Home" || e.key === "End") && !e.ctrlKey && !e.metaKey && !e.altKey) {
      const items = cells(group);
      const at = items.indexOf(e.target);
      const next = e.key === "Home" ? 0 : e.key === "End" ? items.length - 1 : (at + STEPS[e.key] + items.length) % items.length;
      e.preventDefault();
      items[next].focus();
    }
  });

  // A seat opened elsewhere is taken back by joining again, as the link says.
  $("dead-end-back").addEventListener("click", () => location.reload());

  $("rematch").addEventListener("click", () => {
    if (app.rematchAsked || !send({ type: "rematch" })) return;
    app.rematchAsked = true;
    draw();
  });
  onName("seat-name-form", "seat-name-input", "seat-name-error", () => {
    app.askingName = false;
    app.stopped = null;
    $("seat-name").hidden = true;
    setConn("connecting", "connecting…");
    connect();
  });

  document.addEventListener("keydown", (e) => {
    // The game's keys are the seat's: the lobby has only its forms.
    if (!room) return;
    const typing = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement;
    if (typing) {
      if (e.key === "Escape") e.target.blur();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "/") {
      e.preventDefault();
      $("chat-text").focus();
    } else if (e.key === "Escape") {
      $("choices-cancel").click();
    } else if (e.key === "r") {
      toggleRecovery();
    } else if (e.key === "p") {
      if (!$("pass").disabled) pass();
    } else if (e.key === "Enter" && app.recovering) {
      const go = document.querySelector("#choices-list button[data-recover]");
      if (go) {
        e.preventDefault();
        go.click();
      }
    } else if (/^[1-9]$/.test(e.key)) {
      const card = document.querySelector(`#hand button[data-index="${e.key}"]`);
      if (card && !card.disabled) {
        card.focus();
        card.click();
      }
    }
  });

  // ----- start -----
  $("nav").hidden = false;
  setConn("connecting", "connecting…");
  window.addEventListener("hashchange", () => location.reload());
  connect();
}
