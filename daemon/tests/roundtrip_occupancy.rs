//! The occupancy-only inference (TabuTronic Sentio) against simulated games: simulate →
//! keep only which squares are occupied → `infer::occupancy`. A move counts as right when it
//! is exact, or flagged with the truth among its choices (a promotion's piece, a drop's kind
//! the hand and the square cannot tell, a move of a piece whose kind is still open); a board
//! that stops (stalled for the arbiter, or a move never recognised) is short, not wrong;
//! anything else is wrong. A kind settled by a later move corrects the move it settles (as
//! the daemon publishes a correction), which then counts as exact only if the settled kind
//! is the truth. Printed per profile: complete boards, moves by kind of verdict,
//! the first wrong moves, and the share of drops that need the arbiter.
//!
//! The `with_the_arbiter` runs add the arbiter the daemon alerts (`support/occupancy_arbiter.rs`):
//! he enters the moves of a board that stalled or waits, and its readings since are read
//! again; his moves count as exact, and they are counted.
//!
//! `cargo test` runs a sample (12 random games per profile, every legal real game of the
//! corpus, clean and noisy) and asserts no wrong move; `BUGBRIDGE_FULL=N cargo test --release
//! -p bugbridge --test roundtrip_occupancy -- --nocapture` (N ≥ 300) runs N random games per
//! profile and prints the figures (and every wrong move it finds). `OCC_DEBUG="random 8
//! clean"` runs only that game and prints its occupancy changes, decisions, each board's hands
//! and what it stalls or waits on and its position after each change, and the moves; `OCC_STALLS=1` prints
//! why each board that is not complete stopped and the moves it missed (`(x)`: a capture).

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/occupancy.rs"]
mod occupancy;
#[path = "support/occupancy_arbiter.rs"]
mod occupancy_arbiter;
#[path = "support/occupancy_judge.rs"]
mod occupancy_judge;

use corpus::real_games;
use occupancy::{occupancy_of, occupancy_snapshots};
use occupancy_arbiter::{Arbiter, Read};
use occupancy_judge::{
    BoardVerdict, Tally, board_moves, judge_board, occupancy_trace, record_against, settle,
};

use bugbridge::infer::occupancy::{OccupancyInference, OccupancyMove};
use bugbridge::rules::{BoardId, ByBoard, Move, Ruleset};
use bugbridge::simulate::{Profile, SimGame, random_game, simulate};

/// How a game is read: by the inference alone, or with an arbiter who enters the moves of
/// a board the daemon alerts him about (see `support/occupancy_arbiter.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    Alone,
    WithArbiter,
}

impl Reading {
    /// What the figures' line adds to its name.
    fn suffix(self) -> &'static str {
        match self {
            Reading::Alone => "",
            Reading::WithArbiter => ", with the arbiter",
        }
    }
}

/// When each board's clock was pressed in a simulated trace: every change of the side
/// whose time runs.
fn presses(trace: &[(u64, bugbridge::infer::SensorEvent)]) -> ByBoard<Vec<u64>> {
    let mut out: ByBoard<Vec<u64>> = ByBoard::new_with(|_| Vec::new());
    let mut running: ByBoard<Option<Option<bugbridge::rules::Color>>> = ByBoard::new_with(|_| None);
    for (t, ev) in trace {
        if let bugbridge::infer::SensorEvent::Clock {
            board, running: r, ..
        } = ev
        {
            if running[*board].is_some_and(|before| before != *r) {
                out[*board].push(*t);
            }
            running[*board] = Some(*r);
        }
    }
    out
}

fn run_one(game: &SimGame, profile: Profile, seed: u64, tally: &mut Tally, name: &str) {
    run_read(game, profile, seed, tally, name, Reading::Alone);
}

fn run_read(
    game: &SimGame,
    profile: Profile,
    seed: u64,
    tally: &mut Tally,
    name: &str,
    reading: Reading,
) {
    let debug = std::env::var("OCC_DEBUG").is_ok_and(|d| d == format!("{name} {profile}"));
    if std::env::var("OCC_DEBUG").is_ok() && !debug {
        return;
    }
    let mut inf = OccupancyInference::from_game(game.start.clone(), Ruleset::default());
    let occ: ByBoard<u64> = ByBoard::new_with(|b| game.start.board(b).board().occupied().0);
    let mut decided = Vec::new();
    let mut settled = Vec::new();
    let trace = simulate(game, profile, seed);
    let mut arbiter = (reading == Reading::WithArbiter).then(|| {
        Arbiter::new(
            &game.start,
            game.moves.iter().map(|m| (m.board, m.mv)),
            presses(&trace),
        )
    });
    let snapshots = occupancy_of(game, trace);
    let mut reading = Read {
        inf: &mut inf,
        decided: &mut decided,
        settled: &mut settled,
        debug,
    };
    reading.all(occ, snapshots, arbiter.as_mut(), true);
    if let Some(arbiter) = &arbiter {
        tally.entered += arbiter.entered.len();
        tally.refused_entries += arbiter.refused;
        tally.games_entered += usize::from(!arbiter.entered.is_empty());
    }
    decided.extend(inf.finish());
    settle(&mut inf, &mut decided, &mut settled, debug);
    if debug {
        for b in BoardId::ALL {
            let mine: Vec<String> = decided
                .iter()
                .filter(|m| m.board == b)
                .map(|m| format!("{}:{:?}", m.t, m.mv))
                .collect();
            println!("decided {b}: {}", mine.join(" "));
        }
        let mut g = game.start.clone();
        for (i, m) in game.moves.iter().enumerate() {
            g.play(m.board, &m.mv, 0);
            let p = g.board(m.board.other()).pockets();
            println!(
                "truth {i} {} {:?}   other hands w{:?} b{:?} {}",
                m.board,
                m.mv,
                p.white,
                p.black,
                bugbridge::rules::notation::bfen::write_board_fen(g.board(m.board), None)
            );
        }
    }
    for b in BoardId::ALL {
        let got: Vec<&OccupancyMove> = decided.iter().filter(|m| m.board == b).collect();
        let want: Vec<&Move> = game
            .moves
            .iter()
            .filter(|m| m.board == b)
            .map(|m| &m.mv)
            .collect();
        let label = format!("{name} seed {seed} ({profile}) board {b}");
        let verdict = judge_board(tally, &got, &want, want.len(), &settled, &label);
        if verdict == BoardVerdict::Short && std::env::var("OCC_STALLS").is_ok() {
            println!(
                "SHORT {name} {profile} {b} {}/{} {:?}",
                got.len(),
                want.len(),
                inf.stalled(b)
            );
            let miss: Vec<String> = want
                .iter()
                .skip(got.len())
                .take(3)
                .map(|m| format!("{m:?}{}", if m.is_capture() { "(x)" } else { "" }))
                .collect();
            println!(
                "MISS {name} {profile} {b} {} waiting {:?}",
                miss.join(" | "),
                inf.waiting(b)
            );
        }
    }
}

fn full() -> Option<u64> {
    let n = std::env::var("BUGBRIDGE_FULL").ok()?.parse::<u64>().ok()?;
    (n > 0).then_some(n.max(300))
}

fn check(tally: &Tally, what: &str, complete_share: f64) {
    if std::env::var("OCC_DEBUG").is_ok() {
        println!("{}", tally.line(what));
        return;
    }
    assert!(
        tally.moves >= 50,
        "{what}: only {} moves recognised",
        tally.moves
    );
    println!("{}", tally.line(what));
    for w in &tally.wrong {
        println!("  wrong: {w}");
    }
    if full().is_some() {
        // The full run measures: its figures (wrong moves included) are printed.
        return;
    }
    assert!(
        tally.wrong.is_empty(),
        "{what}:\n{}",
        tally.wrong.join("\n")
    );
    let share = tally.exact_boards as f64 / tally.boards.max(1) as f64;
    assert!(
        share >= complete_share,
        "{what}: only {:.1} % of the boards complete",
        100.0 * share
    );
}

fn random_games(profile: Profile, complete_share: f64) {
    random_games_read(profile, complete_share, Reading::Alone);
}

fn random_games_read(profile: Profile, complete_share: f64, reading: Reading) {
    let count = full().unwrap_or(12);
    let mut tally = Tally::default();
    for seed in 0..count {
        let g = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
        run_read(
            &g,
            profile,
            7000 + seed,
            &mut tally,
            &format!("random {seed}"),
            reading,
        );
    }
    check(
        &tally,
        &format!("random, {profile}{}", reading.suffix()),
        complete_share,
    );
}

fn real_games_run(profile: Profile, complete_share: f64) {
    real_games_read(profile, complete_share, Reading::Alone);
}

fn real_games_read(profile: Profile, complete_share: f64, reading: Reading) {
    let games = real_games();
    assert!(games.len() >= 10, "only {} legal real games", games.len());
    let mut tally = Tally::default();
    for (name, game) in &games {
        run_read(game, profile, 1, &mut tally, name, reading);
    }
    check(
        &tally,
        &format!("real, {profile}{}", reading.suffix()),
        complete_share,
    );
}

#[test]
fn random_games_clean_no_wrong_move() {
    random_games(Profile::Clean, 0.5);
}

#[test]
fn random_games_noisy_no_wrong_move() {
    random_games(Profile::Noisy, 0.0);
}

/// With an arbiter who enters the moves of each board the daemon alerts him about, noisy
/// boards are followed to the end: the readings since are read again from his moves.
#[test]
fn random_games_noisy_with_the_arbiter_no_wrong_move() {
    random_games_read(Profile::Noisy, 0.5, Reading::WithArbiter);
}

#[test]
fn random_games_clean_with_the_arbiter_no_wrong_move() {
    random_games_read(Profile::Clean, 0.9, Reading::WithArbiter);
}

#[test]
fn real_games_noisy_with_the_arbiter_no_wrong_move() {
    real_games_read(Profile::Noisy, 0.5, Reading::WithArbiter);
}

/// Random games whose boards once went wrong, noisy unless said. With `BUGBRIDGE_FULL=1000`:
/// a capture set straight onto its victim while the opponent adjusted another piece it
/// could take (430, 482), a drop's piece read, lost and read again taken for a victim
/// (724), a piece of open kind that took as a pawn read as another kind's step while a
/// piece was dropped where it seemed to land (631). With `BUGBRIDGE_FULL=3000`:
/// side-by-side readings of a capturer held still that took a reading still waiting on its
/// own held piece as refuted (1335, 1413, 1714), or one whose look-alike move was withheld
/// (1451). While a still board was read for a capture and its reply: a slow capture whose
/// other victim only a piece of open kind made illegal (454), a victim ruled out for want
/// of one reply when the capturer moved again (712), and clean, a king's step that a
/// placeholder kind made illegal read as the king taking and a drop (164, 220). A piece
/// lifted and put back, or a quiet move landing late, that was a capture set straight
/// and a drop where it stood or landed (134, 1037, 1138, 1277, 1314, 1619, 2360, 2474,
/// 2498, 2669, 2788, 2973); and clean, a promoted piece's earlier kinds kept in the way of
/// reading its kinds now (2360). While replies were read with pieces of open kind about: a
/// piece of open kind held still, taken as set onto its victim, put back and moved
/// elsewhere (594); a put-back and a late quiet move taken as such while other readings
/// ran on the other board (557, 2704); a reading that could not rule out a victim taken
/// as refuted for falling behind (1349); a slide read by a side-by-side reading (607); a
/// capture by a piece of open kind as another kind whose victim only flickered, the piece
/// set straight onto another victim (479, 1134, 2584, 2688). With `BUGBRIDGE_FULL=6000`:
/// a late quiet move read for sure by the other board's side-by-side readings while the
/// main reading stalled on it, a drop after it then read from a hand the capture it may
/// have been would have filled (5193); a drop read while a piece that could have been
/// set straight onto a victim was lifted and put back, the opponent's drop and a drop where
/// it stood (5823). With `BUGBRIDGE_FULL=3000`: a capturer set straight onto its victim
/// taken while the opponent had lifted and put back a piece that could take in turn, a
/// pawn dropped where it stood (1928); a quiet move that reads like a capture and a drop
/// made final by the board resting on it, not withheld as the next move would have (1703).
/// And clean, a dropped pawn
/// that promoted, its kind told later by a move only the promoted piece makes, taken as a
/// piece put down as that kind, whose capture gave the partner that kind and not a pawn
/// (1237), and a dropped piece that stepped onto the last rank kept with kinds its step
/// ruled out, one of which made the next move beside it illegal: read as a drop (2637).
/// With `BUGBRIDGE_FULL=6000`: a capturer set straight onto its victim, then another piece
/// it could take read empty and full again long after its lift, by a flicker (1897, 2595,
/// 5919, 5941; and 2765, a piece of open kind): read as that piece pulled out from under the
/// capturer. (With pieces of open kind about, where the captures cannot be followed side by
/// side, the opponent's j'adoube of such a piece 0.6 s after the capturer's lift, read empty
/// 0.6 s, is taken for the capture (4600, one board in 12 000 noisy): a player holding his
/// piece that long before he takes is far more common, and stalling on it lost real games.)
#[test]
fn games_that_once_went_wrong() {
    let mut tally = Tally::default();
    let noisy = [
        430, 482, 631, 724, 1335, 1413, 1451, 1714, 454, 712, 134, 1037, 1138, 1277, 1314, 1619,
        2360, 2474, 2498, 2669, 2788, 2973, 594, 557, 2704, 1349, 607, 479, 1134, 2584, 2688, 5193,
        5823, 1928, 1703, 1897, 2595, 2765, 5919, 5941,
    ];
    let games = noisy
        .into_iter()
        .map(|s| (s, Profile::Noisy))
        .chain([164, 220, 2360, 1237, 2637].map(|s| (s, Profile::Clean)));
    for (seed, profile) in games {
        let g = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
        run_one(
            &g,
            profile,
            7000 + seed,
            &mut tally,
            &format!("random {seed}"),
        );
    }
    assert!(tally.wrong.is_empty(), "{}", tally.wrong.join("\n"));
    assert!(tally.moves >= 60, "only {} moves recognised", tally.moves);
}

/// Random games whose boards once went wrong with the arbiter only (noisy, `BUGBRIDGE_FULL=6000`):
/// a capturer set straight onto its victim, then a flicker long after its lift on another
/// piece it could take, read as that piece pulled out from under it (1114, 1414, 1482, 3486,
/// 3824); a rook set straight onto a pawn with check, the pawn's recapture set straight and
/// a pawn dropped where the pawn stood, read as the rook taking another pawn and a pawn
/// step, the check ruling out the capture for want of one reply (1569); a drop read late (its
/// supply seen after the opponent's capture with its victim lifted, and a drop where the
/// capturer stood), read as the drop alone (1729); a capture set straight, the opponent's
/// drop with check, the king taking it and a drop where the capturer stood, read as the
/// king's step alone though a piece stood on its square before it left (4270); a piece of
/// open kind set straight onto a piece only another of its kinds takes and the opponent's
/// drop, read as its quiet move, its placeholder taking nothing (3114); a quiet move withheld
/// as a look-alike and a drop after it at the end of the game, made final as read (2400: the
/// arbiter, told of a board resting on a look-alike, now enters its moves); a drop read and
/// not handed on whose piece of open kind outlived the arbiter's entry, a second with the same
/// time beside it once read again (259); a queen lifted and put back that may have been set
/// straight onto one of four pieces and a pawn dropped where it stood, read again after the
/// arbiter's entry as put back for sure because one of the four captures gave check, which
/// no drop there answers: that capture is ruled out, not the doubt (2669); while the
/// readings of a bishop's victim ran side by side, a queen lifted and set down 10 s later
/// where it could have gone read as its quiet move in one of them, where it had been set
/// straight onto the bishop and a knight dropped there, the drop after that waiting for
/// its supply (5064).
#[test]
fn games_that_once_went_wrong_with_the_arbiter() {
    let mut tally = Tally::default();
    for seed in [
        1114, 1414, 1482, 3486, 3824, 1569, 1729, 4270, 3114, 2400, 259, 2669, 5064,
    ] {
        let g = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
        run_read(
            &g,
            Profile::Noisy,
            7000 + seed,
            &mut tally,
            &format!("random {seed}"),
            Reading::WithArbiter,
        );
    }
    assert!(tally.wrong.is_empty(), "{}", tally.wrong.join("\n"));
    assert!(tally.moves >= 60, "only {} moves recognised", tally.moves);
}

#[test]
fn real_games_clean_no_wrong_move() {
    real_games_run(Profile::Clean, 0.6);
}

#[test]
fn real_games_noisy_no_wrong_move() {
    real_games_run(Profile::Noisy, 0.1);
}

/// The occupancy trace a Sentio table would journal for `game`.
fn game_trace(game: &SimGame, profile: Profile, seed: u64) -> String {
    occupancy_trace(
        ByBoard::new_with(|b| game.start.board(b).board().occupied().0),
        occupancy_snapshots(game, profile, seed),
    )
}

/// `replay` reads occupancy traces: the record it makes from the real games' clean traces
/// moves the game's squares (never others), its kinds are the game's wherever no
/// `kind-undetermined` alert says otherwise, and most boards come back whole.
#[test]
fn replay_reads_occupancy_traces_into_the_record() {
    use bugbridge::infer::{AlertCode, Inference};
    let games = real_games();
    let (mut boards, mut whole, mut flagged) = (0, 0, 0);
    let mut wrong = Vec::new();
    for (name, game) in &games {
        let text = game_trace(game, Profile::Clean, 1);
        let replayed = bugbridge::cli::replay::replay_text(&text, None)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let undetermined = replayed
            .decisions
            .iter()
            .filter(|d| matches!(d, Inference::Alert(a) if a.code == AlertCode::KindUndetermined))
            .count();
        flagged += undetermined;
        for b in BoardId::ALL {
            boards += 1;
            let (got, want) = board_moves(replayed.game.record(), game, b);
            assert!(got.len() <= want.len(), "{name} board {b}: extra moves");
            let kinds_differ =
                record_against(&got, &want, &format!("{name} board {b}"), &mut wrong);
            assert!(
                kinds_differ <= undetermined,
                "{name} board {b}: {kinds_differ} kinds differ, {undetermined} alerts"
            );
            whole += usize::from(got.len() == want.len());
        }
    }
    println!(
        "replay of occupancy traces, real games, clean: {boards} boards, {whole} whole, {flagged} kind-undetermined alerts"
    );
    let mut back = ReadBacks::default();
    for (name, game) in &games {
        back.read(&game_trace(game, Profile::Clean, 1), name);
    }
    back.check("real games, clean", 0.75);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(whole * 2 >= boards, "{whole} of {boards} boards whole");
}

/// How the BPGN of a replayed trace reads back.
#[derive(Debug, Default)]
struct ReadBacks {
    games: usize,
    /// Read back whole, move for move as recorded.
    whole: usize,
    /// Read back as recorded up to a move the record holds as illegal (alerted): a drop
    /// supplied by a capture on a board that stalled before it (the partner's board
    /// recorded nothing since), or a move that a stall left unexplained.
    to_flagged: usize,
    /// Why the record holds those moves illegal.
    reasons: std::collections::BTreeMap<String, usize>,
    /// Read otherwise: a SAN that is not the move in its position, a move the record
    /// holds legal that is not.
    wrong: Vec<String>,
}

impl ReadBacks {
    /// Replays `trace` and reads its BPGN back with the project's reader.
    fn read(&mut self, trace: &str, name: &str) {
        use bugbridge::rules::Legality;
        use bugbridge::rules::notation::bpgn::{parse_bpgn, replay};
        self.games += 1;
        let replayed = bugbridge::cli::replay::replay_text(trace, None)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let text = replayed.game.bpgn();
        let parsed = parse_bpgn(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        let read = replay(&parsed[0], Ruleset::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let record = replayed.game.record();
        for (i, (m, e)) in read.moves.iter().zip(record).enumerate() {
            let stopped_here = read.stop.is_some() && i + 1 == read.moves.len();
            if !stopped_here && (m.mv != e.mv || m.canonical_san != e.san) {
                self.wrong.push(format!(
                    "{name}: move {i} reads back as {} ({}), recorded {} ({})",
                    m.canonical_san, m.mv, e.san, e.mv
                ));
                return;
            }
        }
        let Some(stop) = &read.stop else {
            if read.moves.len() == record.len() {
                self.whole += 1;
            } else {
                self.wrong.push(format!(
                    "{name}: {} moves read back, {} recorded",
                    read.moves.len(),
                    record.len()
                ));
            }
            return;
        };
        use bugbridge::rules::notation::bpgn::ReplayStop;
        let (ReplayStop::Illegal { index: at, .. }
        | ReplayStop::Repeated { index: at, .. }
        | ReplayStop::Unresolved { index: at, .. }) = *stop;
        match record.get(at) {
            Some(e) if matches!(e.legality, Legality::Illegal(_)) => {
                self.to_flagged += 1;
                if let Legality::Illegal(reason) = e.legality {
                    *self.reasons.entry(reason.code().to_owned()).or_default() += 1;
                }
            }
            e => self.wrong.push(format!(
                "{name}: stops at move {at} ({stop:?}), recorded as {:?}",
                e.map(|e| (&e.san, e.legality))
            )),
        }
    }

    /// Prints the figures and asserts that nothing reads back otherwise than recorded,
    /// and at least `whole_share` of the games whole.
    fn check(&self, what: &str, whole_share: f64) {
        println!(
            "BPGN read back, {what}: {} games, {} whole, {} up to a move the record holds illegal ({:?}), {} otherwise",
            self.games,
            self.whole,
            self.to_flagged,
            self.reasons,
            self.wrong.len()
        );
        assert!(self.wrong.is_empty(), "{what}:\n{}", self.wrong.join("\n"));
        let share = self.whole as f64 / self.games.max(1) as f64;
        assert!(
            share >= whole_share,
            "{what}: only {:.1} % read back whole",
            100.0 * share
        );
    }
}

/// The BPGN of random games replayed from their occupancy traces reads back as recorded
/// (every SAN the move in its position, also after a placeholder kind changed or a kind
/// settled later: the later moves of that piece name it by its kind now), up to a move
/// the record itself holds illegal: most games whole, clean.
#[test]
fn replayed_random_games_read_back_from_their_bpgn() {
    let (mut clean, mut noisy) = (ReadBacks::default(), ReadBacks::default());
    for seed in 0..full().unwrap_or(24) {
        let g = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
        let name = format!("random {seed}");
        clean.read(&game_trace(&g, Profile::Clean, 7000 + seed), &name);
        noisy.read(&game_trace(&g, Profile::Noisy, 7000 + seed), &name);
    }
    clean.check("random, clean", 0.75);
    noisy.check("random, noisy", 0.0);
}

/// Random clean games whose records hold a move illegal in the record's position (a pawn
/// placeholder moving as the piece it is, a placeholder queen "promoting"): their BPGN
/// reads back as recorded up to that move, never as another move there (`e6` for `c6e6`
/// read as another pawn's step: 1539, 3369, 3571, 3700), nor without it (a SAN no reader
/// parses, left out of the file: 5106).
#[test]
fn illegal_moves_of_placeholders_read_back_as_themselves() {
    let mut clean = ReadBacks::default();
    for seed in [1539, 3369, 3571, 3700, 5106] {
        let g = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
        clean.read(
            &game_trace(&g, Profile::Clean, 7000 + seed),
            &format!("random {seed}"),
        );
    }
    assert!(clean.wrong.is_empty(), "{}", clean.wrong.join("\n"));
    assert_eq!(clean.to_flagged, 5, "{:?}", clean.reasons);
}

/// A random clean game whose capture was explained while its victim's placeholder was a
/// queen, recorded after the kind search had made it a bishop again (657): the record
/// holds the capture of the piece that stands there, as its BPGN says, so the file reads
/// back whole (the partner's hand gets what the file says was taken).
#[test]
fn a_capture_recorded_after_its_victims_kind_changed_takes_what_stands_there() {
    let mut clean = ReadBacks::default();
    let seed = 657;
    let g = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
    clean.read(
        &game_trace(&g, Profile::Clean, 7000 + seed),
        &format!("random {seed}"),
    );
    assert!(clean.wrong.is_empty(), "{}", clean.wrong.join("\n"));
    assert_eq!(clean.whole, 1);
}

/// The truth among each `kind-undetermined` alert's one-click choices, and a click on it
/// records the truth: random clean games replayed, each complete board's alerts read as
/// the arbiter page gets them (`publish::event`), the true choice of each posted (as the
/// journal keeps operator actions), and the game replayed again with them.
#[test]
fn one_click_on_the_true_choice_of_each_alert_records_the_truth() {
    let plain = |san: &str| san.trim_end_matches(['+', '#']).to_owned();
    use bugbridge::infer::{AlertCode, Inference};
    use bugbridge::rules::{Color, notation::san_string};
    let (mut alerts, mut clicked, mut corrected, mut promoted_drops) = (0, 0, 0, 0);
    let mut without = Vec::new();
    // Random 632: a bishop dropped and taking on, read as a pawn's drop and promotion; the
    // later move of the piece offers the drop as a bishop.
    let seeds: Vec<u64> = match full() {
        Some(n) => (0..n).collect(),
        None => (0..12).chain([632]).collect(),
    };
    for seed in seeds {
        let g = random_game(seed, 60 + (seed % 5) as usize * 20, Ruleset::default());
        let trace = game_trace(&g, Profile::Clean, 7000 + seed);
        let replayed = bugbridge::cli::replay::replay_text(&trace, None).expect("replay");
        let record = replayed.game.record();
        let complete = |b: BoardId| {
            record.iter().filter(|e| e.board == b).count()
                == g.moves.iter().filter(|m| m.board == b).count()
        };
        // The game's move `number` of `side` on `board`, as SAN in its position.
        let truth = |board: BoardId, number: u32, side: Color| {
            let mut game = g.start.clone();
            let mut seen = 0;
            for m in &g.moves {
                let pos = game.board(m.board);
                if m.board == board && pos.mover(&m.mv) == side {
                    seen += 1;
                    if seen == number {
                        return Some(san_string(pos, &m.mv));
                    }
                }
                game.play(m.board, &m.mv, 0);
            }
            None
        };
        let end = trace
            .lines()
            .last()
            .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .and_then(|v| v["t"].as_u64())
            .expect("a last line");
        let mut posts = Vec::new();
        for d in &replayed.decisions {
            let Inference::Alert(a) = d else { continue };
            // Alerts said by the end of the input (moves withheld as look-alikes, handed on
            // only then) come after any click: a live daemon says them when the game ends.
            if a.code != AlertCode::KindUndetermined || !a.board.is_some_and(complete) || a.t >= end
            {
                continue;
            }
            alerts += 1;
            let e = bugbridge::publish::event(d).expect("an alert event");
            if e.choices.is_empty() {
                // A piece whose kind the reading still holds open though the record's
                // move that put it down is settled: the arbiter replaces by hand.
                without.push(format!("random {seed}: {}", a.detail));
                continue;
            }
            let target = |c: &bugbridge_broadcast::wire::Choice| {
                let post = serde_json::to_value(&c.post).expect("json");
                let board = if post["board"] == "A" {
                    BoardId::A
                } else {
                    BoardId::B
                };
                let side = if post["side"] == "white" {
                    Color::White
                } else {
                    Color::Black
                };
                let number = post["number"].as_u64().unwrap_or(0) as u32;
                (board, number, side)
            };
            let true_choice = e.choices.iter().find_map(|c| {
                let (board, number, side) = target(c);
                let want = plain(&truth(board, number, side)?);
                plain(&c.label)
                    .ends_with(&want)
                    .then_some((c, (board, number, side), want))
            });
            let Some((choice, at, want)) = true_choice else {
                // A dropped pawn that promoted since: its choices are the kinds the piece
                // is now, put down as such; the truth takes two corrections (the drop a
                // pawn, the promotion that piece), beyond one click.
                let promoted = e.choices.first().is_some_and(|c| {
                    let (board, number, side) = target(c);
                    truth(board, number, side).is_some_and(|t| t.starts_with("P@"))
                        && e.choices.iter().all(|c| !c.label.contains("P@"))
                });
                assert!(
                    promoted,
                    "random {seed}: the truth is not among {:?} ({})",
                    e.choices, a.detail
                );
                promoted_drops += 1;
                continue;
            };
            let mut post = serde_json::to_value(&choice.post).expect("json");
            post["t"] = serde_json::json!(end + 20_000);
            post["ev"] = serde_json::json!("operator");
            posts.push((post.to_string(), at, want));
        }
        if posts.is_empty() {
            continue;
        }
        clicked += posts.len();
        // The arbiter clicks once the boards have rested after the game.
        let lines: Vec<&str> = posts.iter().map(|(p, _, _)| p.as_str()).collect();
        let text = format!("{trace}{}\n", lines.join("\n"));
        let again = bugbridge::cli::replay::replay_text(&text, None).expect("replay");
        for (_, (board, number, side), want) in &posts {
            let got = again
                .game
                .record()
                .iter()
                .find(|e| e.board == *board && e.number == *number && e.side == *side)
                .map(|e| plain(&e.san));
            assert_eq!(
                got.as_deref(),
                Some(want.as_str()),
                "random {seed}: board {board} move {number} {side:?}"
            );
            corrected += 1;
        }
    }
    println!(
        "{alerts} kind-undetermined alerts on complete boards, {clicked} true choices clicked, {corrected} moves then recorded as played; {promoted_drops} moves of a dropped pawn that promoted since (two corrections)"
    );
    println!("{} alerts without choices: {without:#?}", without.len());
    assert!(clicked >= 10, "only {clicked} choices clicked");
    assert!(
        without.len() * 50 <= alerts,
        "{} of {alerts} alerts without choices",
        without.len()
    );
}
