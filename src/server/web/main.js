// Diving Suits, the browser page: the lobby at `/`, a seat at `/ROOM`. Each is a module of
// its own (lobby.js, seat.js) over what they share (page.js) and what the host says of the wire
// (wire.js); neither holds a rule.

import { startLobby } from "./lobby.js";
import { startSeat } from "./seat.js";

const room = location.pathname.replace(/^\/+/, "").replace(/\/+$/, "");
if (room) startSeat();
else startLobby();
