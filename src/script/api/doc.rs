//! The documentation of every function the API registers, for the editor's definition file
//! (`diving mod api`, a LuaCATS `---@meta` file): its parameters, returns and one line. The
//! file is made from the names the sandbox actually registers ([`super::registered`]), each
//! looked up here; a registered name missing here is left out of the file, which the test
//! `tests/modding/mod_api_file.rs` catches.

/// One documented function or value.
pub struct Doc {
    /// `diving.effect` or `ctx:depth`.
    pub name: &'static str,
    /// LuaCATS parameters, `name type` each, comma-separated (without `ctx` or `self`).
    pub params: &'static str,
    /// LuaCATS return types, comma-separated (empty: none).
    pub returns: &'static str,
    /// One line.
    pub doc: &'static str,
}

const fn d(name: &'static str, params: &'static str, returns: &'static str, doc: &'static str) -> Doc {
    Doc { name, params, returns, doc }
}

/// Every function and value of `diving` and `ctx`, in the order of MODDING.md.
pub const DOCS: &[Doc] = &[
    d("diving.manifest", "m diving.Manifest", "", "Says who the mod is and what it needs; the first call of the file."),
    d("diving.version", "", "", "The mod API version (a number): 1."),
    d("diving.rules", "", "", "The ruleset's numbers, read-only."),
    d("diving.rank", "card string", "integer", "The rank of a card as a number: diving.rank(\"QS\") == 12."),
    d("diving.suit", "card string", "string", "The suit letter of a card: diving.suit(\"10H\") == \"H\"."),
    d(
        "diving.value",
        "card string",
        "integer?",
        "What the ruleset makes a card's rank worth (standard: A = 1 … 10), or nil for a face card worth nothing.",
    ),
    d("diving.effect", "rank diving.Rank, spec diving.EffectSpec", "", "Gives rank a new effect."),
    d(
        "diving.describe",
        "rank diving.Rank, text string",
        "",
        "Says in a player's words what rank does (help, board, rules page).",
    ),
    d(
        "diving.wrap",
        "rank diving.Rank, resolve diving.Resolve",
        "",
        "Wraps the effect of rank, keeping who it can target.",
    ),
    d(
        "diving.action",
        "name string, spec diving.ActionSpec",
        "",
        "Adds an action a player can take instead of playing (typed as its name).",
    ),
    d(
        "diving.on_turn_start",
        "fn fun(ctx: diving.Ctx, player: integer)",
        "",
        "Adds a handler run when a turn starts (turn 1 included).",
    ),
    d(
        "diving.on_after_move",
        "fn fun(ctx: diving.Ctx, player: integer, from: integer, to: integer)",
        "",
        "Adds a handler run after a diver moved, before the win check and breathing.",
    ),
    d(
        "diving.card_value",
        "fn fun(ctx: diving.Ctx, player: integer, card: string, previous: function): integer",
        "",
        "Replaces what a card is worth when player plays it (before doubling).",
    ),
    d(
        "diving.oxygen_cost",
        "fn fun(ctx: diving.Ctx, player: integer, depth: integer, previous: function): integer",
        "",
        "Replaces the oxygen a move to depth costs.",
    ),
    d(
        "diving.recovery_gain",
        "fn fun(ctx: diving.Ctx, player: integer, cards: string[], previous: function): integer|\"max\"",
        "",
        "Replaces the oxygen a recovery with cards gains.",
    ),
    d(
        "diving.rescue",
        "fn fun(ctx: diving.Ctx, player: integer, previous: function)",
        "",
        "Replaces the rescue of a diver out of air.",
    ),
    d(
        "diving.win_check",
        "fn fun(ctx: diving.Ctx, player: integer, previous: function): boolean",
        "",
        "Replaces the check of whether a diver has won after moving.",
    ),
    d(
        "diving.next_turn",
        "fn fun(ctx: diving.Ctx, player: integer, previous: function): integer",
        "",
        "Replaces who moves after player's turn (the turn order).",
    ),
    d(
        "diving.on_draw",
        "fn fun(ctx: diving.Ctx, player: integer, card: string, cause: \"replacement\"|\"recovery\"|\"effect\"), options { ranks: diving.Rank[] }?",
        "",
        "Adds a handler run after a card is drawn into a hand (with options.ranks, only for cards of those ranks, each shown to the table first).",
    ),
    d(
        "diving.on_breathe",
        "fn fun(ctx: diving.Ctx, player: integer, from: integer, to: integer, cause: \"move\"|\"effect\")",
        "",
        "Adds a handler run after a diver spent oxygen, before a rescue at 0.",
    ),
    d(
        "diving.on_rescue",
        "fn fun(ctx: diving.Ctx, player: integer)",
        "",
        "Adds a handler run after a diver was rescued.",
    ),
    d(
        "diving.on_reshuffle",
        "fn fun(ctx: diving.Ctx, cards: integer)",
        "",
        "Adds a handler run after the discards were shuffled into a new deck.",
    ),
    d(
        "diving.on_recover",
        "fn fun(ctx: diving.Ctx, player: integer, cards: string[], gain: integer|\"max\", from: integer, to: integer)",
        "",
        "Adds a handler run after a recovery and its draws.",
    ),
    d(
        "diving.on_turn_end",
        "fn fun(ctx: diving.Ctx, player: integer)",
        "",
        "Adds a handler run when a player's action is done.",
    ),
    d(
        "diving.on_jolt",
        "fn fun(ctx: diving.Ctx, player: integer, from: integer, to: integer)",
        "",
        "Adds a handler run after a J turned player's number card upwards (from → to).",
    ),
    d(
        "diving.on_quick",
        "fn fun(ctx: diving.Ctx, player: integer, from: integer, to: integer, target: integer, target_from: integer, target_to: integer)",
        "",
        "Adds a handler run after a Quick: player moved from → to and pushed target down.",
    ),
    d(
        "diving.on_knot",
        "fn fun(ctx: diving.Ctx, player: integer, cards: string[])",
        "",
        "Adds a handler run after a K cancelled the oxygen of player's recovery with cards.",
    ),
    d("ctx:players", "", "integer", "How many players."),
    d("ctx:current", "", "integer", "Whose turn it is."),
    d("ctx:turn", "", "integer", "The turn number, from 1."),
    d("ctx:name", "p integer", "string", "Player p's name."),
    d("ctx:depth", "p integer", "integer", "Player p's depth."),
    d("ctx:oxygen", "p integer", "integer", "Player p's oxygen."),
    d("ctx:hand_size", "p integer", "integer", "How many cards player p holds."),
    d("ctx:hand", "p integer", "string[]", "The current player's hand (any other hand is secret: an error)."),
    d("ctx:front", "p integer", "string[]", "The cards in front of player p, oldest first."),
    d("ctx:has_front", "p integer, rank diving.Rank", "boolean", "Whether a card of rank lies in front of player p."),
    d("ctx:discard_top", "", "string?", "The top card of the discard pile, or nil."),
    d("ctx:deck_size", "", "integer", "How many cards are left to draw."),
    d("ctx:max_depth", "", "integer", "The bottom."),
    d("ctx:max_oxygen", "", "integer", "Full oxygen."),
    d("ctx:is_over", "", "boolean", "Whether the game has ended."),
    d("ctx:pending", "p integer", "diving.Pending", "The tricks waiting in front of player p: jolt, quick, knot."),
    d("ctx:under_quick", "p integer", "boolean", "Whether player p's next number card is a Quick."),
    d("ctx:winner", "", "integer?", "The winner's number, or nil."),
    d(
        "ctx:dive",
        "p integer, distance integer",
        "",
        "Moves player p down by distance (negative: up), then the hooks and breathing.",
    ),
    d("ctx:breathe", "p integer", "", "Player p spends oxygen for their depth, and is rescued at 0."),
    d("ctx:rescue", "p integer", "", "Rescues player p through the rescue hook."),
    d("ctx:check_win", "p integer", "boolean", "Runs the win check for p; true if the game is over."),
    d("ctx:set_depth", "p integer, depth integer", "", "Puts p at exactly depth: no hooks, no breathing."),
    d("ctx:set_oxygen", "p integer, oxygen integer", "", "Sets p's oxygen: no rescue."),
    d("ctx:discard", "card string", "", "Puts a card that is in play on the discard pile."),
    d("ctx:place_front", "p integer, card string", "", "Puts a card that is in play in front of player p."),
    d(
        "ctx:take_front",
        "p integer, rank diving.Rank",
        "string?",
        "Takes the card of rank from in front of p (now in play), or nil.",
    ),
    d(
        "ctx:take_hand",
        "card string",
        "boolean",
        "Takes card from the current player's hand (now in play); false if it is not there.",
    ),
    d("ctx:draw", "p integer", "boolean", "Player p draws a card; false if there was nothing to draw."),
    d(
        "ctx:card_value",
        "p integer, card string",
        "integer",
        "What card is worth when p plays it now, before doubling (the ruleset's value, or a mod's).",
    ),
    d(
        "ctx:number_value",
        "p integer, card string",
        "integer",
        "The value number card card has when p plays it now (doubled on a match).",
    ),
    d("ctx:next_player", "p integer", "integer", "The player after p round the table, in the direction play goes now."),
    d("ctx:is_reversed", "", "boolean", "Whether play goes round the table the other way."),
    d("ctx:reverse", "", "", "Turns the direction of play round, from the next turn on."),
    d("ctx:give_turn", "p integer", "", "Gives the next turn to p (the current player: another turn)."),
    d("ctx:team", "p integer", "integer?", "Player p's team number, or nil when the game is not played in teams."),
    d("ctx:same_team", "p integer, q integer", "boolean", "Whether p and q play for one team (p and p do)."),
    d("ctx:winners", "", "integer[]", "Everyone who won (the winner's team, a shared win), in seat order."),
    d("ctx:set_teams", "teams integer[]", "", "Sets the teams: a team number (1, 2 …) per player, in seat order."),
    d(
        "ctx:win",
        "players integer|integer[]",
        "",
        "Ends the game won by a player or several together (and each one's team).",
    ),
    d("ctx:end_in_draw", "", "", "Ends the game in a draw: nobody wins."),
    d("ctx:discard_pile", "", "string[]", "The discard pile, bottom first (face up: everyone sees it)."),
    d(
        "ctx:take_discard",
        "p integer, card string?",
        "string",
        "Takes the discard top (or the named card of the pile) into p's hand; returns it.",
    ),
    d(
        "ctx:return_to_deck",
        "card string",
        "boolean",
        "Shuffles a card in play, or of the current player's hand, back into the deck; false if it is neither.",
    ),
    d("ctx:shuffle_deck", "", "", "Shuffles the deck with the game's seeded random numbers."),
    d("ctx:random", "n integer", "integer", "A whole number from 1 to n, from the game's seeded random numbers."),
    d(
        "ctx:say",
        "text string",
        "",
        "Adds a line to the game log, read by a player only if it may see every hidden card this mod knows.",
    ),
    d(
        "ctx:reveal",
        "p integer, card string",
        "",
        "Shows the table that card is in p's hand: public from now on, and no longer this mod's secret.",
    ),
];

/// The type declarations the functions above name, written before them.
pub const TYPES: &str = r#"---@alias diving.Rank integer|"A"|"2"|"3"|"4"|"5"|"6"|"7"|"8"|"9"|"10"|"J"|"Q"|"K"

---@class diving.Play
---@field player integer who plays
---@field card string the card, e.g. "7H"
---@field rank integer its rank as a number
---@field suit string its suit letter
---@field from "hand"|"table"
---@field slot integer? the table slot when from is "table"
---@field target integer? the chosen target
---@field on_top boolean whether the face card goes on top

---@alias diving.Resolve fun(ctx: diving.Ctx, play: diving.Play, previous: fun(ctx: diving.Ctx, play: diving.Play))

---@class diving.EffectSpec
---@field resolve diving.Resolve carries out the play (required)
---@field targets? "none"|"other"|fun(ctx: diving.Ctx, player: integer, card: string, offered: integer[]): integer[]?, (string|table<integer, string>)?
---@field playable? fun(ctx: diving.Ctx, player: integer, card: string): boolean, string?

---@class diving.ActionArgs
---@field player integer who takes the action
---@field target integer? the diver named, under the name `args` gives it
---@field card string? the hand card named, under the name `args` gives it

---@class diving.ActionSpec
---@field args? table<string, "other"|"other?"|"diver"|"diver?"|"card"|"card?"> one named diver or hand card, e.g. { target = "other" }
---@field describe? string one line for the help: "buddy PLAYER: pass 1 oxygen to another diver"
---@field legal? fun(ctx: diving.Ctx, args: diving.ActionArgs): boolean, string? whether it may be taken, and why not
---@field resolve fun(ctx: diving.Ctx, args: diving.ActionArgs) carries it out (required)

---@class diving.Manifest
---@field name string lower-case letters, digits, - and _
---@field version string a semantic version
---@field api integer the mod API version it is written for
---@field requires? table<string, string> mods loaded before this one, with version ranges
---@field conflicts? table<string, string> mods that cannot be loaded with this one
---@field after? string[] mods this one loads after, when the ruleset loads them
---@field before? string[] mods this one loads before, when the ruleset loads them
---@field description? string

---@class diving.Pending
---@field jolt boolean
---@field quick boolean
---@field knot boolean

---@class diving.Rules
---@field min_players integer
---@field max_players integer
---@field decks integer?
---@field hand_size integer
---@field table_size integer
---@field max_depth integer
---@field max_oxygen integer
---@field quick_extra integer
---@field quick_push integer
---@field max_turns integer
---@field depth_unit string
---@field depth_scale integer
---@field values table<string, integer> what each rank is worth, by symbol: values.A, values["10"], values.K
"#;
