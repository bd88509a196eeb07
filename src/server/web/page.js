// Diving Suits, the browser page: what its two pages share. The lobby (`/`, lobby.js) and a
// seat (`/ROOM`, seat.js) are started by main.js; both speak only the protocol (PROTOCOL.md),
// and read what they know of it from the host (wire.js, made from the host's own types).

export const $ = (id) => document.getElementById(id);
export const body = document.body;

/** An element with text children only (names and chat never become HTML). */
export function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "onclick") node.addEventListener("click", value);
    else if (key.startsWith("data-") || key.startsWith("aria-") || key === "role" || key === "title" || key === "type")
      node.setAttribute(key, value === true ? "" : String(value));
    else node[key] = value;
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// ----- who you are -----
// A player is a name and a random key this browser keeps (PROTOCOL.md, "Who you are"): no
// account, no password. The host stores the key's hash and gives the name to its first key.
const PLAYER = "diving.player";
// Where local storage is refused (a private window's policy), the identity lasts the page.
let unsaved = null;

export function identity() {
  let kept = unsaved;
  try {
    kept = JSON.parse(localStorage.getItem(PLAYER)) || unsaved;
  } catch (_) {
    // Nothing kept, or not JSON: a new key is made when a name is picked.
  }
  if (!kept || typeof kept.key !== "string" || !/^[0-9a-fA-F]{32,64}$/.test(kept.key)) return null;
  return { name: typeof kept.name === "string" ? kept.name : "", key: kept.key };
}

/** 32 random bytes as 64 hex digits, from the browser's cryptographic source. */
export function newKey() {
  const bytes = new Uint8Array(32);
  crypto.getRandomValues(bytes);
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Keeps `name` with this browser's key (made on the first name). */
// A form that asks for the player's name (a seat's, the lobby's): on submit, a name (not
// blank) is kept as this player's, the form's error cleared, and `then` goes on.
export function onName(form, input, error, then) {
  $(form).addEventListener("submit", (e) => {
    e.preventDefault();
    const name = $(input).value.trim();
    if (!name) return;
    remember(name);
    $(error).textContent = "";
    then();
  });
}

export function remember(name) {
  const known = identity();
  const me = { name, key: known ? known.key : newKey() };
  unsaved = me;
  try {
    localStorage.setItem(PLAYER, JSON.stringify(me));
  } catch (_) {
    // Kept for this page only (see `unsaved`).
  }
  return me;
}

/** Keeps `me` (`{name, key}`, from a redeemed transfer code) as this browser's player, in
 * place of the one it had. */
export function adopt(me) {
  unsaved = { name: me.name, key: me.key };
  try {
    localStorage.setItem(PLAYER, JSON.stringify(unsaved));
  } catch (_) {
    // Kept for this page only (see `unsaved`).
  }
}

/** `{name, key}` to send, or null while this browser has no name. */
export function player() {
  const me = identity();
  return me && me.name ? me : null;
}

/** The connection line at the top of the page: its kind (a `data-conn` for the style) and words. */
export function setConn(kind, text) {
  body.dataset.conn = kind;
  $("conn").textContent = text;
}
