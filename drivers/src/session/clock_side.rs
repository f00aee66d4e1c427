//! Which side of the clock White sits on, learnt from play.
//!
//! A DGT clock knows only left and right; which of them is White's depends on how the
//! clock was put on the table, and the rules put each table's two clocks on the outside
//! ends of its two boards, so White sits on the left on one board and on the right on the
//! other. The evidence is in the sensor facts, with no chess rules: the player whose time
//! runs is the one who moves, so the colour of the pieces put down while a side's time ran
//! (and then pressed) is that side's colour.
//!
//! [`SideLearner`] follows the board (the `board`/`square` events, normal frame) and the
//! judged running side of each clock reading, and says when the labelling of clock lines
//! must change ([`Decision`]):
//!
//! * Before any press the labelling is a prior: the configured side; under `auto`, the
//!   side whose time runs first from the start position is White's (only White can move
//!   from there); with nothing seen yet, the left.
//! * At a game's first press with evidence the side is decided from play, whatever the
//!   prior said (a configured side is overruled, and the daemon says so).
//! * At each later press the evidence is checked again: one press against the decision is
//!   logged; two presses in a row against it change it (a knocked piece or a takeback is not
//!   enough).
//! * The board back in the start position is a new game: its first press decides afresh,
//!   so a clock turned round between games is noticed then.
//!
//! The evidence of a press is what was put down since the previous press: the colours with
//! a piece on a square that did not show it before (net, so a piece put back on its own
//! square, a j'adoube, is nothing; a capture lifts the opponent's piece but puts down only
//! the mover's). Those moves queue in the order they arrived (one entry per colour in a
//! row), and each press takes the oldest: the opponent's premove made before the press is
//! the next press's move, even when the mover's next move is made before that press too.
//! A press with nothing put down but a piece lifted is a piece still in hand (or read late):
//! the next piece of that colour put down completes that move, not a later one.

use crate::dgt::ClockSide;
use crate::trace::{BoardId, Placement, Square, TraceEvent};

/// The labelling of clock lines changes, or is stated: White's time is on `white_side`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decision {
    /// White's side from here on.
    pub(crate) white_side: ClockSide,
    /// What it was decided from, for people.
    pub(crate) evidence: String,
}

/// The side whose time runs and the board when it started running.
#[derive(Debug, Clone)]
struct Interval {
    side: ClockSide,
    base: Placement,
}

/// Learns White's side of one board's clock; see the module documentation.
#[derive(Debug, Clone)]
pub(crate) struct SideLearner {
    board: BoardId,
    configured: Option<ClockSide>,
    white_side: ClockSide,
    /// A decision (or the prior) has been stated: clock lines may be labelled.
    announced: bool,
    /// Play contradicted the configured side: later games start from play's decision.
    overruled: bool,
    placement: Placement,
    /// Event counter, and when each square last changed (to tell which piece came first).
    seq: u32,
    changed_at: [u32; 64],
    /// The side of the last running reading (`None`: stopped or not known).
    running: Option<ClockSide>,
    interval: Option<Interval>,
    /// Moves put down and not yet taken by a press, oldest first (one per colour in a row).
    queue: std::collections::VecDeque<Moved>,
    /// A press came with a piece of this colour lifted and none put down (White: `true`).
    in_hand: Option<bool>,
    /// This game's first press has decided.
    decided_in_game: bool,
    /// Presses in a row whose evidence contradicts the decision.
    against: u8,
}

/// A move seen on the board: its colour (White: `true`) and the squares pieces were put on.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Moved {
    white: bool,
    squares: Vec<Square>,
}

/// The most moves kept waiting for presses: more is noise, not play.
const MAX_QUEUE: usize = 3;

impl SideLearner {
    /// A learner for `board`, with the configured side (`None` = auto).
    pub(crate) fn new(board: BoardId, configured: Option<ClockSide>) -> Self {
        SideLearner {
            board,
            configured,
            white_side: configured.unwrap_or(ClockSide::Left),
            announced: false,
            overruled: false,
            placement: Placement::empty(),
            seq: 0,
            changed_at: [0; 64],
            running: None,
            interval: None,
            queue: std::collections::VecDeque::new(),
            in_hand: None,
            decided_in_game: false,
            against: 0,
        }
    }

    /// White's side as it stands.
    pub(crate) fn white_side(&self) -> ClockSide {
        self.white_side
    }

    /// The side the configuration named (`None`: auto).
    pub(crate) fn configured(&self) -> Option<ClockSide> {
        self.configured
    }

    /// A sensor event the session emitted (normal frame); other kinds are ignored.
    pub(crate) fn sensed(&mut self, ev: &TraceEvent) {
        let changed: Vec<Square> = match ev {
            TraceEvent::Board { placement, .. } => {
                let changed = placement.diff(&self.placement).map(|(sq, _)| sq).collect();
                self.placement = *placement;
                changed
            }
            TraceEvent::Square { sq, piece, .. } => {
                self.placement.set(*sq, *piece);
                vec![*sq]
            }
            _ => return,
        };
        self.seq = self.seq.saturating_add(1);
        for sq in changed {
            self.changed_at[sq.index() as usize] = self.seq;
        }
        if self.placement == Placement::start() {
            // A new game (or a first move taken back): its first press decides afresh.
            self.decided_in_game = false;
            self.against = 0;
            self.queue.clear();
            self.in_hand = None;
            if let Some(i) = &mut self.interval {
                i.base = self.placement;
            }
        }
    }

    /// The clock stopped reporting for a while (its link or the board's): the next
    /// running reading starts afresh instead of counting as a press.
    pub(crate) fn restart(&mut self) {
        self.running = None;
        self.interval = None;
        self.queue.clear();
        self.in_hand = None;
    }

    /// A clock reading whose running side was judged `running` (`lever`: the side the lever
    /// lets run, which a stopped clock starts with): returns a decision to state before the
    /// reading is labelled, when the labelling changes or is first stated.
    pub(crate) fn reading(
        &mut self,
        running: Option<ClockSide>,
        lever: ClockSide,
    ) -> Option<Decision> {
        let previous = std::mem::replace(&mut self.running, running);
        let was = self.announced.then_some(self.white_side);
        let decision = match (previous, running) {
            // Stopped: the interval pauses (a clock stopped mid-move keeps its evidence).
            (_, None) => None,
            (Some(a), Some(b)) if a == b => None,
            (Some(pressed), Some(next)) => {
                let d = self.press(pressed);
                self.start_interval(next);
                d
            }
            (None, Some(side)) => {
                if self.interval.as_ref().is_none_or(|i| i.side != side) {
                    self.start_interval(side);
                }
                self.first_run(side)
            }
        };
        let decision = match decision {
            Some(d) => Some(d),
            None if !self.announced => {
                let evidence = match self.configured {
                    Some(_) => "as configured; not yet checked against play".into(),
                    None if running.is_none() && self.placement == Placement::start() => {
                        // A stopped clock starts the side its lever lets run.
                        self.white_side = lever;
                        format!(
                            "the clock stands with its lever letting the {} side run first \
                             from the start position, where only White can move; to be \
                             checked when it runs",
                            lever.name()
                        )
                    }
                    None => format!(
                        "nothing seen yet: White taken to be on the {} until the clock runs \
                         from the start position or a move is pressed",
                        self.white_side.name()
                    ),
                };
                Some(Decision {
                    white_side: self.white_side,
                    evidence,
                })
            }
            None => None,
        };
        if let Some(d) = &decision {
            self.announced = true;
            // What listen shows on stderr, and the daemon logs.
            match was {
                Some(was) if was != d.white_side => {
                    tracing::info!(board = %self.board, white_side = d.white_side.name(), was = was.name(), evidence = %d.evidence, "White's side of the clock changed");
                }
                _ => {
                    tracing::info!(board = %self.board, white_side = d.white_side.name(), evidence = %d.evidence, "White's side of the clock");
                }
            }
        }
        decision
    }

    fn start_interval(&mut self, side: ClockSide) {
        self.interval = Some(Interval {
            side,
            base: self.placement,
        });
    }

    /// The clock started with `side` running: from the start position, before this
    /// game's first press, the prior labels it.
    fn first_run(&mut self, side: ClockSide) -> Option<Decision> {
        if self.decided_in_game || self.placement != Placement::start() {
            return None;
        }
        let (prior, evidence) = match self.configured {
            None => (
                side,
                format!(
                    "the {} side's time ran first from the start position, where only White \
                     can move; to be checked at the first press",
                    side.name()
                ),
            ),
            Some(c) if !self.overruled => (c, "as configured; not yet checked against play".into()),
            Some(_) => (
                self.white_side,
                "as play showed in an earlier game; to be checked at the first press".into(),
            ),
        };
        if prior == self.white_side && self.announced {
            return None;
        }
        self.white_side = prior;
        Some(Decision {
            white_side: prior,
            evidence,
        })
    }

    /// The side `pressed` pressed: whose move was it?
    ///
    /// Two readings: the oldest move not yet pressed (the queue), and the first move put down
    /// since the last press. They differ after a premove (the queue is right) or after a
    /// stray piece of the other colour put down first (the queue is shifted by one, and stays
    /// so). When they differ, the one that agrees with the side in force is taken (the queue
    /// is re-synchronised when it was the other), and the press counts neither way.
    fn press(&mut self, pressed: ClockSide) -> Option<Decision> {
        let interval = self.interval.take().filter(|i| i.side == pressed)?;
        let put = put_down(&interval.base, &self.placement, &self.changed_at);
        let mut moves = put.moves;
        if let Some(white) = self.in_hand.take()
            && moves.first().is_some_and(|m| m.white == white)
        {
            // The piece in hand at the last press, put down now: that press's move.
            moves.remove(0);
        }
        let first = moves.first().cloned();
        for m in &moves {
            match self.queue.back_mut() {
                Some(last) if last.white == m.white => last.squares.extend(m.squares.clone()),
                _ => self.queue.push_back(m.clone()),
            }
        }
        while self.queue.len() > MAX_QUEUE {
            self.queue.pop_front();
        }
        let implied = |m: &Moved| if m.white { pressed } else { pressed.other() };
        let mover = match (self.queue.pop_front(), first) {
            (None, _) => {
                self.in_hand = put.lifted;
                tracing::debug!(board = %self.board, side = pressed.name(), "press with no piece put down: no evidence of the clock side");
                return None;
            }
            (Some(oldest), Some(first)) if oldest.white != first.white => {
                let queued_agrees = implied(&oldest) == self.white_side;
                if !queued_agrees {
                    self.queue = moves.into_iter().skip(1).collect();
                }
                if self.decided_in_game {
                    self.against = 0;
                } else {
                    tracing::debug!(board = %self.board, side = pressed.name(), "press with moves of both colours: no evidence of the clock side");
                }
                return None;
            }
            (Some(oldest), _) => oldest,
        };
        let implied = implied(&mover);
        let squares: Vec<String> = mover.squares.iter().map(ToString::to_string).collect();
        let evidence = format!(
            "{} put down on {} while the {} side's time ran, then pressed",
            if mover.white { "White" } else { "Black" },
            squares.join(", "),
            pressed.name()
        );
        if !self.decided_in_game {
            self.decided_in_game = true;
            self.against = 0;
            return Some(self.decide(implied, format!("{evidence} (the game's first press)")));
        }
        if implied == self.white_side {
            self.against = 0;
            return None;
        }
        self.against += 1;
        if self.against < 2 {
            tracing::info!(board = %self.board, white_side = self.white_side.name(), %evidence, "one press against the clock side in force; kept");
            return None;
        }
        self.against = 0;
        Some(self.decide(
            implied,
            format!("{evidence} (the second press in a row against the side in force)"),
        ))
    }

    fn decide(&mut self, side: ClockSide, evidence: String) -> Decision {
        if self.configured.is_some_and(|c| c != side) {
            self.overruled = true;
        }
        self.white_side = side;
        Decision {
            white_side: side,
            evidence,
        }
    }
}

/// What changed between `base` and `now`: the moves put down, in the order they arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PutDown {
    moves: Vec<Moved>,
    /// Nothing put down, and pieces of one colour lifted: that colour (White: `true`).
    lifted: Option<bool>,
}

/// The pieces put down between `base` and `now`, one move per colour, the colour whose
/// first piece arrived first leading.
fn put_down(base: &Placement, now: &Placement, changed_at: &[u32; 64]) -> PutDown {
    // Per colour (index 0 White): earliest arrival, the arrival squares, a square left.
    let mut first: [Option<u32>; 2] = [None, None];
    let mut squares: [Vec<Square>; 2] = [Vec::new(), Vec::new()];
    let mut left = [false; 2];
    for sq in Square::all() {
        let (before, after) = (base.get(sq), now.get(sq));
        if before == after {
            continue;
        }
        if let Some(p) = before {
            left[usize::from(!p.is_white())] = true;
        }
        if let Some(p) = after {
            let c = usize::from(!p.is_white());
            let at = changed_at[sq.index() as usize];
            first[c] = Some(first[c].map_or(at, |f| f.min(at)));
            squares[c].push(sq);
        }
    }
    let mut order: Vec<usize> = (0..2).filter(|&c| first[c].is_some()).collect();
    order.sort_by_key(|&c| first[c]);
    let moves: Vec<Moved> = order
        .into_iter()
        .map(|c| Moved {
            white: c == 0,
            squares: std::mem::take(&mut squares[c]),
        })
        .collect();
    let lifted = match (moves.is_empty(), left) {
        (true, [true, false]) => Some(true),
        (true, [false, true]) => Some(false),
        _ => None,
    };
    PutDown { moves, lifted }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::SensorPiece;

    use ClockSide::{Left, Right};

    fn sq(s: &str) -> Square {
        Square::from_name(s).expect("square")
    }

    /// A learner fed as a session feeds it: the board's events and each reading's side.
    struct Play {
        l: SideLearner,
        decisions: Vec<Decision>,
    }

    impl Play {
        fn new(configured: Option<ClockSide>) -> Play {
            Play::from(configured, Placement::start())
        }

        fn from(configured: Option<ClockSide>, placement: Placement) -> Play {
            let mut l = SideLearner::new(BoardId::A, configured);
            l.sensed(&TraceEvent::Board {
                board: BoardId::A,
                placement,
            });
            Play {
                l,
                decisions: Vec::new(),
            }
        }

        fn put(&mut self, s: &str, piece: Option<char>) {
            self.l.sensed(&TraceEvent::Square {
                board: BoardId::A,
                sq: sq(s),
                piece: piece.and_then(SensorPiece::from_char),
            });
        }

        /// A move: lift `from`, put `piece` on `to`.
        fn mv(&mut self, from: &str, to: &str, piece: char) {
            self.put(from, None);
            self.put(to, Some(piece));
        }

        fn new_game(&mut self) {
            self.l.sensed(&TraceEvent::Board {
                board: BoardId::A,
                placement: Placement::start(),
            });
        }

        /// A reading with `running` (a stopped clock's lever on the left); the side stated
        /// before it is labelled, if any.
        fn clock(&mut self, running: Option<ClockSide>) -> Option<ClockSide> {
            let d = self.l.reading(running, running.unwrap_or(Left));
            if let Some(d) = &d {
                self.decisions.push(d.clone());
            }
            d.map(|d| d.white_side)
        }
    }

    #[test]
    fn the_first_press_from_the_start_decides_white_on_the_left() {
        let mut p = Play::new(None);
        assert_eq!(p.clock(None), Some(Left), "stated before the first line");
        assert_eq!(p.clock(Some(Left)), None, "the prior agrees: nothing new");
        p.mv("e2", "e4", 'P');
        assert_eq!(p.clock(Some(Right)), Some(Left), "decided from play");
        assert!(p.decisions[1].evidence.contains("e4"), "{:?}", p.decisions);
        p.mv("e7", "e5", 'p');
        assert_eq!(p.clock(Some(Left)), None);
        assert_eq!(p.l.white_side(), Left);
    }

    #[test]
    fn a_stopped_clock_at_the_start_is_first_read_by_its_lever() {
        let mut p = Play::new(None);
        assert_eq!(p.l.reading(None, Right).map(|d| d.white_side), Some(Right));
        assert_eq!(p.clock(Some(Right)), None, "it runs as the lever said");
        p.mv("e2", "e4", 'P');
        assert_eq!(p.clock(Some(Left)), Some(Right));
        // Configured, the lever is not read.
        let mut q = Play::new(Some(Left));
        assert_eq!(q.l.reading(None, Right).map(|d| d.white_side), Some(Left));
    }

    #[test]
    fn the_first_press_from_the_start_decides_white_on_the_right() {
        let mut p = Play::new(None);
        assert_eq!(
            p.clock(Some(Right)),
            Some(Right),
            "the side running first from the start is White's"
        );
        p.mv("d2", "d4", 'P');
        assert_eq!(p.clock(Some(Left)), Some(Right), "confirmed by play");
        p.mv("d7", "d5", 'p');
        assert_eq!(p.clock(Some(Right)), None);
        assert_eq!(p.l.white_side(), Right);
    }

    #[test]
    fn a_configured_side_is_the_prior_and_play_overrules_it() {
        let mut p = Play::new(Some(Left));
        assert_eq!(p.clock(Some(Right)), Some(Left), "the configured prior");
        p.mv("e2", "e4", 'P');
        assert_eq!(
            p.clock(Some(Left)),
            Some(Right),
            "White moved while the right time ran"
        );
        assert_eq!(p.l.configured(), Some(Left));
    }

    #[test]
    fn a_premove_before_the_press_is_the_next_presss_move() {
        let mut p = Play::new(None);
        p.clock(Some(Right));
        p.mv("e2", "e4", 'P');
        // Black answers before White presses.
        p.mv("e7", "e5", 'p');
        assert_eq!(p.clock(Some(Left)), Some(Right));
        // And White answers before Black presses, and so on: each press takes the move
        // made before the one made since.
        p.mv("g1", "f3", 'N');
        assert_eq!(p.clock(Some(Right)), None);
        p.mv("b8", "c6", 'n');
        assert_eq!(p.clock(Some(Left)), None);
        p.mv("f1", "b5", 'B');
        assert_eq!(p.clock(Some(Right)), None);
        // White presses with nothing new put down: his move was made before Black's press.
        assert_eq!(p.clock(Some(Left)), None);
        assert_eq!((p.l.white_side(), p.l.against), (Right, 0));
    }

    #[test]
    fn a_jadoube_is_no_evidence() {
        let mut p = Play::new(Some(Left));
        p.clock(Some(Left));
        p.mv("e2", "e4", 'P');
        p.clock(Some(Right));
        // Black's time: White adjusts a piece (lifted and put back), Black moves.
        p.put("d1", None);
        p.put("d1", Some('Q'));
        p.mv("c7", "c5", 'p');
        assert_eq!(p.clock(Some(Left)), None);
        p.mv("g1", "f3", 'N');
        p.clock(Some(Right));
        // Black's time again, and only a j'adoube.
        p.put("a7", None);
        p.put("a7", Some('p'));
        assert_eq!(p.clock(Some(Left)), None);
        assert_eq!((p.l.white_side(), p.l.against), (Left, 0));
    }

    #[test]
    fn a_capture_lifts_the_opponents_piece_but_counts_for_the_capturer() {
        let mut p = Play::new(None);
        p.clock(Some(Left));
        p.mv("e2", "e4", 'P');
        p.clock(Some(Right));
        p.mv("d7", "d5", 'p');
        p.clock(Some(Left));
        // White takes on d5: the victim is lifted first.
        p.put("d5", None);
        p.put("e4", None);
        p.put("d5", Some('P'));
        assert_eq!(p.clock(Some(Right)), None);
        // Black recaptures straight over the pawn (no empty reading in between).
        p.put("d8", None);
        p.put("d5", Some('q'));
        assert_eq!(p.clock(Some(Left)), None);
        assert_eq!((p.l.white_side(), p.l.against), (Left, 0));
    }

    #[test]
    fn a_piece_read_only_after_its_press_belongs_to_that_press() {
        let mut p = Play::new(None);
        p.clock(Some(Left));
        p.put("e2", None);
        // White pressed before the board read e4.
        assert_eq!(p.clock(Some(Right)), None, "nothing put down: no evidence");
        p.put("e4", Some('P'));
        p.mv("e7", "e5", 'p');
        assert_eq!(
            p.clock(Some(Left)),
            Some(Left),
            "Black's move on the right's time: White is left"
        );
    }

    #[test]
    fn a_clock_turned_between_games_is_noticed_at_the_next_games_first_press() {
        let mut p = Play::new(Some(Left));
        p.clock(Some(Left));
        p.mv("e2", "e4", 'P');
        p.clock(Some(Right));
        p.mv("e7", "e5", 'p');
        p.clock(Some(Left));
        p.clock(None);
        assert_eq!(p.l.white_side(), Left);
        // A new game: the board set up again, the clock turned round and started.
        p.new_game();
        assert_eq!(p.clock(Some(Right)), None, "the configured prior stands");
        p.mv("d2", "d4", 'P');
        assert_eq!(p.clock(Some(Left)), Some(Right), "the first press decides");
        // A third game with the clock turned back: a configured side that play overruled
        // starts from play's decision, and the first press decides again.
        p.clock(None);
        p.new_game();
        assert_eq!(
            p.clock(Some(Left)),
            None,
            "play's decision stands as the prior"
        );
        p.mv("c2", "c4", 'P');
        assert_eq!(p.clock(Some(Right)), Some(Left));
    }

    #[test]
    fn an_auto_board_takes_the_first_running_side_of_each_new_game() {
        let mut p = Play::new(None);
        assert_eq!(p.clock(Some(Left)), Some(Left));
        p.mv("e2", "e4", 'P');
        p.clock(Some(Right));
        p.clock(None);
        p.new_game();
        assert_eq!(
            p.clock(Some(Right)),
            Some(Right),
            "turned round: noticed at once"
        );
    }

    #[test]
    fn an_explicit_side_contradicted_is_followed_and_a_stray_piece_changes_nothing() {
        let mut p = Play::new(Some(Left));
        assert_eq!(p.clock(None), Some(Left));
        p.clock(Some(Right));
        p.mv("e2", "e4", 'P');
        assert_eq!(
            p.clock(Some(Left)),
            Some(Right),
            "play overrules the configuration"
        );
        p.mv("e7", "e5", 'p');
        assert_eq!(p.clock(Some(Right)), None);
        // White's time: a black pawn knocked from f7 to f6 first, then White's move.
        p.mv("f7", "f6", 'p');
        p.mv("g1", "f3", 'N');
        assert_eq!(p.clock(Some(Left)), None, "one press against is kept");
        assert_eq!((p.l.white_side(), p.l.against), (Right, 1));
        // Play goes on as before; the stray piece does not shift what follows.
        p.mv("b8", "c6", 'n');
        assert_eq!(p.clock(Some(Right)), None);
        p.mv("d2", "d4", 'P');
        assert_eq!(p.clock(Some(Left)), None);
        p.mv("d7", "d6", 'p');
        assert_eq!(p.clock(Some(Right)), None);
        assert_eq!((p.l.white_side(), p.l.against), (Right, 0));
        assert_eq!(p.decisions.len(), 2, "{:?}", p.decisions);
    }

    #[test]
    fn two_presses_in_a_row_against_the_decision_change_it() {
        // Listening started mid-game (no start position): the first press decides.
        let mut middle = Placement::start();
        middle.set(sq("e2"), None);
        middle.set(sq("e4"), SensorPiece::from_char('P'));
        let mut p = Play::from(None, middle);
        assert_eq!(p.clock(Some(Left)), Some(Left), "nothing known: stated");
        p.mv("e7", "e5", 'p');
        assert_eq!(p.clock(Some(Right)), Some(Right), "Black moved on the left");
        p.mv("g1", "f3", 'N');
        assert_eq!(p.clock(Some(Left)), None);
        // From here the evidence says the opposite, press after press.
        p.mv("b1", "c3", 'N');
        assert_eq!(p.clock(Some(Right)), None, "once is kept");
        p.mv("g8", "f6", 'n');
        assert_eq!(p.clock(Some(Left)), Some(Left), "twice in a row changes it");
    }

    #[test]
    fn a_stop_mid_move_keeps_the_evidence_and_a_restart_does_not_press() {
        let mut p = Play::new(None);
        p.clock(Some(Left));
        p.put("e2", None);
        p.clock(None);
        p.put("e4", Some('P'));
        assert_eq!(p.clock(Some(Left)), None, "resumed, not pressed");
        assert_eq!(p.clock(Some(Right)), Some(Left));
        p.l.restart();
        p.mv("e7", "e5", 'p');
        assert_eq!(
            p.clock(Some(Left)),
            None,
            "after a restart: a start, not a press"
        );
    }
}
