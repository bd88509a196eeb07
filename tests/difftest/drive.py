"""Differential driver: runs the real binary over a pipe and compares with ref.Game."""
import json, os, random, subprocess, sys, itertools
from collections import Counter
sys.path.insert(0, os.path.dirname(__file__))
import ref

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get('DIVING', os.path.join(HERE, '..', '..', 'target', 'release', 'diving'))
# Deck and save files go to a scratch folder, never into the repository.
OUT = os.environ.get('DIFFTEST_OUT', '/tmp/diving-difftest')
for sub in ('decks', 'saves'):
    os.makedirs(os.path.join(OUT, sub), exist_ok=True)
NAMES = ['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus', 'hal']


class Proc:
    def __init__(self, names, deckfile, extra=()):
        self.p = subprocess.Popen([BIN, '--json', '--players', ','.join(names), '--deck', '@' + deckfile] + list(extra),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        self.transcript = []

    def send(self, line):
        """send a command followed by `state`; return (list of objects before the state, state)"""
        self.transcript.append(line)
        self.p.stdin.write(line + '\nstate\n')
        self.p.stdin.flush()
        objs = []
        while True:
            l = self.p.stdout.readline()
            if not l:
                raise RuntimeError('EOF from game; stderr=' + self.p.stderr.read())
            o = json.loads(l)
            if 'state' in o:
                return objs, o['state']
            objs.append(o)

    def raw(self, line, until_key):
        self.transcript.append(line)
        self.p.stdin.write(line + '\n')
        self.p.stdin.flush()
        objs = []
        while True:
            o = json.loads(self.p.stdout.readline())
            objs.append(o)
            if until_key in o:
                return objs

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(timeout=20)
        return rc


def norm_state(s):
    return dict(turn=s['turn'], current=s['current'], winner=s['winner'], winners=s['winners'], draw=s['draw'],
                deck_size=s['deck_size'], deck=s['deck'], discard_size=s['discard_size'],
                discard_top=s['discard_top'], discard=s.get('discard'), table=s['table'],
                players=[dict(name=p['name'], depth=p['depth'], oxygen=p['oxygen'], hand=p['hand'], front=p['front'])
                         for p in s['players']])


def diff(a, b, path=''):
    out = []
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            out += diff(a.get(k, '<missing>'), b.get(k, '<missing>'), path + '.' + k)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and a and isinstance(a[0], dict):
        for k, (x, y) in enumerate(zip(a, b)):
            out += diff(x, y, path + '[%d]' % k)
    elif a != b:
        out.append('%s: ref=%s game=%s' % (path, a, b))
    return out


def parse_move_cmd(g, cmd):
    """normalize a game's 'moves' entry into a comparable key"""
    w = cmd.split()
    if w[0] == 'pass':
        return ('pass',)
    if w[0] == 'recover':
        over = w[-1] == 'over'
        cards = w[1:-1] if over else w[1:]
        return ('recover', tuple(sorted(cards)), over)
    c = w[1]
    slot = None
    t = None
    over = False
    for x in w[2:]:
        if x == 'over':
            over = True
        elif x[0] == 't' and x[1:].isdigit():
            slot = int(x[1:]) - 1
        else:
            t = [p['name'] for p in g.players].index(x)
    return ('play', c, slot, t, over)


def ref_move_key(g, mv):
    if mv[0] == 'recover':
        return ('recover', tuple(sorted(mv[1])), mv[2])
    if mv[0] == 'play':
        _, c, slot, t, over = mv
        i = g.current
        # target omitted by game when only one option / self (Q)
        if ref.rank(c) == 'Q' and not ref.is_number(c):
            t = None
        return ('play', c, slot, t, over)
    return mv


EXTRA = []
if os.environ.get('TINY'):
    ref.HAND = 5
    ref.DECKS = 1
    EXTRA = ['--ruleset', os.path.join(HERE, 'tiny.toml')]


class Reporter:
    def __init__(self):
        self.issues = []

    def add(self, kind, info):
        self.issues.append((kind, info))


def dive_value(g, m):
    c = m[1]
    if not ref.is_number(c):
        return 0
    top = g.discard[-1] if g.discard else None
    v = ref.value(c)
    if top and (ref.suit(top) == ref.suit(c) or (ref.is_number(top) and ref.rank(top) == ref.rank(c))):
        v *= 2
    fr = [ref.rank(x) for x in g.players[g.current]['front']]
    if 'J' in fr:
        return -v
    if 'Q' in fr:
        v += 8
    return v


def choose_move(g, rng, moves):
    p = g.players[g.current]
    if os.environ.get('TINY2'):
        hp = [m for m in moves if m[0] == 'play' and m[2] is None]
        hf = [m for m in hp if not ref.is_number(m[1])]
        if hf: return rng.choice(hf)
        if hp and rng.random() < 0.9: return rng.choice(hp)
        if any(m[0] == 'pass' for m in moves): return ('pass',)
    if os.environ.get('TINY') and rng.random() < 0.7:
        faces = [m for m in moves if m[0] == 'play' and not ref.is_number(m[1])]
        if faces:
            return rng.choice(faces)
    if rng.random() < 0.6:
        plays = [m for m in moves if m[0] == 'play']
        recs = [m for m in moves if m[0] == 'recover' and not m[2]]
        best = max(plays, key=lambda m: dive_value(g, m), default=None)
        cost = ref.band_cost(min(100, p['depth'] + (dive_value(g, best) if best else 0)))
        if best and (p['oxygen'] > cost or p['depth'] + dive_value(g, best) >= 100 or not recs) and dive_value(g, best) > 0:
            if rng.random() < 0.25:
                faces = [m for m in plays if not ref.is_number(m[1])]
                if faces:
                    return rng.choice(faces)
            return best
        if recs:
            def gain(m):
                gg = ref.recovery_gain(m[1])
                return (10 if gg == 'max' else gg, -len(m[1]))
            m = max(recs, key=gain)
            over = any(ref.rank(x) == 'K' for x in p['front']) and rng.random() < 0.5
            cards = list(m[1]); rng.shuffle(cards)
            return ('recover', tuple(cards), over)
        if plays:
            return rng.choice(plays)
    plays = [m for m in moves if m[0] == 'play']
    recs = [m for m in moves if m[0] == 'recover']
    if not plays and not recs:
        return moves[0]
    r = rng.random()
    if recs and (p['oxygen'] <= 3 and r < 0.6 or r < 0.12 or not plays):
        # prefer sensible recoveries: same-suit groups sometimes
        if rng.random() < 0.5:
            bysuit = {}
            for m in recs:
                if len(set(ref.suit(c) for c in m[1])) == 1:
                    bysuit.setdefault(len(m[1]), []).append(m)
            if bysuit:
                k = max(bysuit)
                m = rng.choice(bysuit[k])
            else:
                m = rng.choice(recs)
        else:
            m = rng.choice(recs)
        # random order of discarded cards
        cards = list(m[1])
        rng.shuffle(cards)
        return ('recover', tuple(cards), m[2])
    # plays: weight face cards & table a bit
    return rng.choice(plays)


def run_game(seed, nplayers, rep, max_moves=600, check_moves_every=7, illegal_rate=0.08, undo_rate=0.02, save_rate=0.005):
    rng = random.Random(seed)
    names = NAMES[:nplayers]
    deck = ref.full_deck(nplayers)
    rng.shuffle(deck)
    deckfile = os.path.join(OUT, 'decks', 'seed%d.deck' % seed)
    os.makedirs(os.path.dirname(deckfile), exist_ok=True)
    with open(deckfile, 'w') as f:
        f.write(' '.join(deck) + '\n')
    g = ref.Game(names, deck)
    proc = Proc(names, deckfile, EXTRA)
    first = proc.p.stdout.readline()  # turn_started
    pending = {'objs': None, 'state': None}

    def oracle(pool):
        # reconstruct the game's post-reshuffle order: cards drawn after 'reshuffled' + final deck
        objs, st = pending['objs'], pending['state']
        k = max(i for i, o in enumerate(objs) if o.get('event') == 'reshuffled') if any(o.get('event') == 'reshuffled' for o in objs) else None
        if k is None:
            rep.add('no reshuffled event', dict(seed=seed, cmds=list(proc.transcript)))
            return list(st['deck'])
        drawn = [o['card'] for o in objs[k + 1:] if o.get('event') in ('drew', 'refilled') and o.get('card')]
        return drawn + list(st['deck'])
    g.shuffle_oracle = oracle
    nmoves = 0
    ok = True
    for step in range(max_moves):
        if g.winner is not None:
            break
        moves = g.legal_moves()
        # compare legal moves occasionally
        if step % check_moves_every == 0:
            o = proc.raw('moves', 'moves')
            gm = set(parse_move_cmd(g, c) for c in o[-1]['moves'])
            rm = set(ref_move_key(g, m) for m in moves)
            # the game lists recovery subsets without 'over' variants, and J-over variants maybe not
            rm_c, gm_c = rm, gm
            if rm_c != gm_c:
                rep.add('moves differ', dict(seed=seed, players=nplayers, cmds=list(proc.transcript),
                                             ref_only=sorted(map(str, rm_c - gm_c)), game_only=sorted(map(str, gm_c - rm_c))))
                ok = False
                break
        # illegal commands
        if rng.random() < illegal_rate:
            bad = make_illegal(g, rng)
            if bad:
                before = g.snapshot()
                objs, st = proc.send(bad)
                if not (len(objs) == 1 and set(objs[0]) == {'error'}):
                    rep.add('illegal accepted / bad error', dict(seed=seed, cmd=bad, cmds=list(proc.transcript), out=objs))
                    ok = False
                    break
                ref.COV['illegal_checked'] += 1
                d = diff(before, norm_state(st))
                if d:
                    rep.add('state changed by rejected cmd', dict(seed=seed, cmd=bad, cmds=list(proc.transcript), diff=d))
                    ok = False
                    break
        mv = choose_move(g, rng, moves)
        cmd = g.cmd(mv)
        prev = g.clone()
        objs, st = proc.send(cmd)
        pending['objs'], pending['state'] = objs, st
        nonev = [o for o in objs if 'event' not in o and 'error' not in o]
        if nonev:
            rep.add('non-event object in output', dict(seed=seed, cmd=cmd, objs=nonev))
        errs = [o for o in objs if 'error' in o]
        if errs:
            rep.add('legal move rejected', dict(seed=seed, players=nplayers, cmd=cmd, cmds=list(proc.transcript), err=errs))
            ok = False
            break
        try:
            g.apply(mv)
        except AssertionError as e:
            rep.add('ref assertion', dict(seed=seed, cmd=cmd, cmds=list(proc.transcript), err=str(e)))
            ok = False
            break
        nmoves += 1
        d = diff(g.snapshot(), norm_state(st))
        if d:
            rep.add('state differs', dict(seed=seed, players=nplayers, cmd=cmd, cmds=list(proc.transcript), diff=d, events=objs))
            ok = False
            break
        if rng.random() < undo_rate:
            objs, st = proc.send('undo')
            ref.COV['undo_checked'] += 1
            d = diff(prev.snapshot(), norm_state(st))
            if d:
                rep.add('undo state differs', dict(seed=seed, players=nplayers, cmds=list(proc.transcript), diff=d, out=objs))
                ok = False
                break
            g = prev
            g.shuffle_oracle = oracle
        if rng.random() < save_rate:
            sf = os.path.join(OUT, 'saves', 'seed%d.json' % seed)
            os.makedirs(os.path.dirname(sf), exist_ok=True)
            o = proc.raw('save ' + sf, 'saved')
            r = subprocess.run([BIN, '--json', '--load', sf], input='state\n', capture_output=True, text=True)
            ref.COV['save_load_checked'] += 1
            sts = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
            sts = [x['state'] for x in sts if 'state' in x]
            if r.returncode != 0 or not sts or diff(g.snapshot(), norm_state(sts[-1])):
                rep.add('save/load differs', dict(seed=seed, cmds=list(proc.transcript), rc=r.returncode, err=r.stderr[:500],
                                                  diff=diff(g.snapshot(), norm_state(sts[-1])) if sts else None))
                ok = False
                break
    # after a win: play commands must be errors
    if ok and g.winner is not None:
        for c in ['play ' + (g.players[g.current]['hand'] or ['AS'])[0], 'recover ' + (g.players[g.current]['hand'] or ['AS'])[0], 'pass']:
            objs, st = proc.send(c)
            if not (len(objs) == 1 and 'error' in objs[0]):
                rep.add('play after win accepted', dict(seed=seed, cmd=c, cmds=list(proc.transcript), out=objs))
                ok = False
    rc = proc.close()
    if rc != 0:
        rep.add('exit code', dict(seed=seed, rc=rc))
    return ok, nmoves, g.winner is not None, g.reshuffles


def make_illegal(g, rng):
    i = g.current
    p = g.players[i]
    names = [q['name'] for q in g.players]
    all_cards = [r + s for s in ref.SUITS for r in ref.RANKS]
    choices = []
    notmine = [c for c in all_cards if c not in p['hand'] and c not in g.table]
    if notmine:
        choices.append('play ' + rng.choice(notmine))
        choices.append('recover ' + rng.choice(notmine))
    if p['hand']:
        choices.append('pass')
    for c in set(p['hand']):
        if not ref.is_number(c):
            r = ref.rank(c)
            if r == 'J':
                tg = g.face_targets(i, c)
                bad = [j for j in range(len(names)) if j not in tg]
                if bad:
                    choices.append('play %s %s' % (c, names[rng.choice(bad)]))
                if not tg:
                    choices.append('play %s' % c)
                if len(tg) >= 2:
                    choices.append('play %s' % c)  # ambiguous target in script mode
            if r == 'K':
                tg = g.face_targets(i, c)
                bad = [j for j in range(len(names)) if j not in tg]
                if bad:
                    choices.append('play %s %s' % (c, names[rng.choice(bad)]))
                if len(tg) >= 2:
                    choices.append('play %s' % c)
            if r == 'Q' and not g.face_targets(i, c):
                choices.append('play %s' % c)
        else:
            fr = [ref.rank(x) for x in p['front']]
            if 'Q' in fr and 'J' not in fr:
                choices.append('play %s %s' % (c, names[i]))  # push self
                if len(names) > 2:
                    choices.append('play %s' % c)  # missing push target
            if 'J' not in fr:
                choices.append('play %s over' % c)
    if p['hand'] and not any(ref.rank(x) == 'K' for x in p['front']):
        choices.append('recover %s over' % p['hand'][0])
    if p['hand']:
        choices.append('recover %s %s' % (p['hand'][0], p['hand'][0]) if p['hand'].count(p['hand'][0]) == 1 else 'recover')
    choices.append('play')
    choices.append('play %s t%d' % (rng.choice(all_cards), rng.choice([5, 9])))
    tc = [s for s, c in enumerate(g.table) if c is not None]
    if tc:
        s = rng.choice(tc)
        other = [c for c in all_cards if c != g.table[s]]
        choices.append('play %s t%d' % (rng.choice(other), s + 1))
    return rng.choice(choices)


if __name__ == '__main__':
    start = int(sys.argv[1]); n = int(sys.argv[2])
    rep = Reporter()
    games = moves = wins = resh = bad = 0
    for seed in range(start, start + n):
        np_ = 2 + seed % 7  # 2..8
        if os.environ.get('TINY'): np_ = 8
        ok, m, w, r = run_game(seed, np_, rep)
        games += 1; moves += m; wins += w; resh += r
        if not ok:
            bad += 1
    print(json.dumps(dict(games=games, moves=moves, wins=wins, reshuffles=resh, failed=bad)))
    print(json.dumps(dict(ref.COV)))
    for k, info in rep.issues:
        print('ISSUE', k, json.dumps(info)[:3000])
