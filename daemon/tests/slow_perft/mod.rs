//! A second, slow and obviously-correct Koedem move generator for one board, sharing no
//! code with the rules core: a 64-square mailbox, pieces walked square by square, its own
//! FEN reader. It exists to check the counts of `docs/perft-koedem.md`.
//!
//! The perft convention is the rules core's (see `Position::perft`): a captured piece goes
//! to the capturer's own holdings (a promoted piece as a pawn, a king as a king); a player
//! holding a king may only drop it; kings may be captured and left attacked; promotion is
//! to a queen, rook, bishop or knight (a grab is a promotion seen from one board);
//! castling needs its right and an empty path, attacks do not matter; a rook dropped on its
//! corner regains the right while its king has never moved.

/// White or Black: 0 or 1.
type Side = usize;

const PAWN: u8 = 0;
const KNIGHT: u8 = 1;
const BISHOP: u8 = 2;
const ROOK: u8 = 3;
const QUEEN: u8 = 4;
const KING: u8 = 5;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Man {
    side: Side,
    role: u8,
    promoted: bool,
}

/// One board, as plain as it gets.
#[derive(Clone, Debug)]
pub(crate) struct Slow {
    squares: [Option<Man>; 64],
    /// Holdings: `hand[side][role]`.
    hand: [[u32; 6]; 2],
    turn: Side,
    /// Castling rights by rook square: a1, h1, a8, h8.
    rights: [bool; 4],
    king_unmoved: [bool; 2],
    ep: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlowMove {
    Step {
        from: usize,
        to: usize,
        promotion: Option<u8>,
    },
    EnPassant {
        from: usize,
        to: usize,
    },
    Castle {
        king: usize,
        rook: usize,
    },
    Drop {
        role: u8,
        to: usize,
    },
}

fn sq(file: i32, rank: i32) -> Option<usize> {
    ((0..8).contains(&file) && (0..8).contains(&rank)).then(|| (rank * 8 + file) as usize)
}

fn file_of(s: usize) -> i32 {
    (s % 8) as i32
}

fn rank_of(s: usize) -> i32 {
    (s / 8) as i32
}

fn role_of_letter(c: char) -> Option<u8> {
    match c.to_ascii_lowercase() {
        'p' => Some(PAWN),
        'n' => Some(KNIGHT),
        'b' => Some(BISHOP),
        'r' => Some(ROOK),
        'q' => Some(QUEEN),
        'k' => Some(KING),
        _ => None,
    }
}

const ROOK_CORNERS: [usize; 4] = [0, 7, 56, 63];

fn king_home(side: Side) -> usize {
    if side == 0 { 4 } else { 60 }
}

impl Slow {
    /// Reads `placement[holdings] side castling ep ...` (promoted pieces marked `~`).
    pub(crate) fn from_fen(fen: &str) -> Slow {
        let mut fields = fen.split_whitespace();
        let board = fields.next().expect("placement");
        // Holdings as `[Kq]` (crazyhouse) or as a ninth rank (`/Kq`, BFEN).
        let (placement, holdings) = match board.find('[') {
            Some(i) => (&board[..i], board[i + 1..].trim_end_matches(']')),
            None => match board.match_indices('/').nth(7) {
                Some((i, _)) => (&board[..i], &board[i + 1..]),
                None => (board, ""),
            },
        };
        let mut squares = [None; 64];
        let mut rank = 7;
        let mut file = 0;
        for c in placement.chars() {
            match c {
                '/' => {
                    rank -= 1;
                    file = 0;
                }
                '1'..='8' => file += c as i32 - '0' as i32,
                '~' => {
                    let s = sq(file - 1, rank).expect("promoted square");
                    if let Some(m) = squares[s].as_mut() {
                        let m: &mut Man = m;
                        m.promoted = true;
                    }
                }
                _ => {
                    let role = role_of_letter(c).expect("piece letter");
                    let side = usize::from(c.is_ascii_lowercase());
                    squares[sq(file, rank).expect("square")] = Some(Man {
                        side,
                        role,
                        promoted: false,
                    });
                    file += 1;
                }
            }
        }
        let mut hand = [[0; 6]; 2];
        for c in holdings.chars() {
            let role = role_of_letter(c).expect("holding letter");
            hand[usize::from(c.is_ascii_lowercase())][role as usize] += 1;
        }
        let turn = usize::from(fields.next() == Some("b"));
        let castling = fields.next().unwrap_or("-");
        let mut rights = [false; 4];
        for (i, letter) in ['Q', 'K', 'q', 'k'].into_iter().enumerate() {
            let side = i / 2;
            let rook = ROOK_CORNERS[i];
            let king_ok =
                squares[king_home(side)].is_some_and(|m| m.side == side && m.role == KING);
            let rook_ok = squares[rook].is_some_and(|m| m.side == side && m.role == ROOK);
            rights[i] = castling.contains(letter) && king_ok && rook_ok;
        }
        let king_unmoved = [rights[0] || rights[1], rights[2] || rights[3]];
        let ep = match fields.next() {
            Some(t) if t.len() == 2 => {
                let b = t.as_bytes();
                sq(i32::from(b[0] - b'a'), i32::from(b[1] - b'1'))
            }
            _ => None,
        };
        Slow {
            squares,
            hand,
            turn,
            rights,
            king_unmoved,
            ep,
        }
    }

    fn own(&self, s: usize, side: Side) -> bool {
        self.squares[s].is_some_and(|m| m.side == side)
    }

    /// Every move of the side to move (see the module docs).
    fn moves(&self) -> Vec<SlowMove> {
        let us = self.turn;
        let mut out = Vec::new();
        if self.hand[us][KING as usize] > 0 {
            for to in 0..64 {
                if self.squares[to].is_none() {
                    out.push(SlowMove::Drop { role: KING, to });
                }
            }
            return out;
        }
        for from in 0..64 {
            let Some(man) = self.squares[from] else {
                continue;
            };
            if man.side != us {
                continue;
            }
            let (f, r) = (file_of(from), rank_of(from));
            let mut targets = Vec::new();
            match man.role {
                PAWN => {
                    self.pawn_moves(from, &mut out);
                    continue;
                }
                KNIGHT => {
                    for (df, dr) in [
                        (1, 2),
                        (2, 1),
                        (2, -1),
                        (1, -2),
                        (-1, -2),
                        (-2, -1),
                        (-2, 1),
                        (-1, 2),
                    ] {
                        targets.extend(sq(f + df, r + dr));
                    }
                }
                KING => {
                    for df in -1..=1 {
                        for dr in -1..=1 {
                            if (df, dr) != (0, 0) {
                                targets.extend(sq(f + df, r + dr));
                            }
                        }
                    }
                }
                _ => {
                    let diagonal = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
                    let straight = [(1, 0), (-1, 0), (0, 1), (0, -1)];
                    let dirs: Vec<(i32, i32)> = match man.role {
                        BISHOP => diagonal.to_vec(),
                        ROOK => straight.to_vec(),
                        _ => diagonal.iter().chain(straight.iter()).copied().collect(),
                    };
                    for (df, dr) in dirs {
                        let mut k = 1;
                        while let Some(s) = sq(f + df * k, r + dr * k) {
                            targets.push(s);
                            if self.squares[s].is_some() {
                                break;
                            }
                            k += 1;
                        }
                    }
                }
            }
            for to in targets {
                if !self.own(to, us) {
                    out.push(SlowMove::Step {
                        from,
                        to,
                        promotion: None,
                    });
                }
            }
        }
        self.castles(&mut out);
        for role in [PAWN, KNIGHT, BISHOP, ROOK, QUEEN] {
            if self.hand[us][role as usize] == 0 {
                continue;
            }
            for to in 0..64 {
                let back = rank_of(to) == 0 || rank_of(to) == 7;
                if self.squares[to].is_none() && !(role == PAWN && back) {
                    out.push(SlowMove::Drop { role, to });
                }
            }
        }
        out
    }

    fn pawn_moves(&self, from: usize, out: &mut Vec<SlowMove>) {
        let us = self.turn;
        let dir = if us == 0 { 1 } else { -1 };
        let (f, r) = (file_of(from), rank_of(from));
        let last = if us == 0 { 7 } else { 0 };
        let start = if us == 0 { 1 } else { 6 };
        let push = |to: usize, out: &mut Vec<SlowMove>| {
            if rank_of(to) == last {
                for p in [QUEEN, ROOK, BISHOP, KNIGHT] {
                    out.push(SlowMove::Step {
                        from,
                        to,
                        promotion: Some(p),
                    });
                }
            } else {
                out.push(SlowMove::Step {
                    from,
                    to,
                    promotion: None,
                });
            }
        };
        if let Some(one) = sq(f, r + dir)
            && self.squares[one].is_none()
        {
            push(one, out);
            if r == start
                && let Some(two) = sq(f, r + 2 * dir)
                && self.squares[two].is_none()
            {
                push(two, out);
            }
        }
        for df in [-1, 1] {
            if let Some(to) = sq(f + df, r + dir) {
                if self.squares[to].is_some_and(|m| m.side != us) {
                    push(to, out);
                }
                if self.ep == Some(to) {
                    out.push(SlowMove::EnPassant { from, to });
                }
            }
        }
    }

    fn castles(&self, out: &mut Vec<SlowMove>) {
        let us = self.turn;
        let king = king_home(us);
        if !self.squares[king].is_some_and(|m| m.side == us && m.role == KING) {
            return;
        }
        for (i, &rook) in ROOK_CORNERS.iter().enumerate() {
            if i / 2 != us || !self.rights[i] {
                continue;
            }
            if !self.squares[rook].is_some_and(|m| m.side == us && m.role == ROOK) {
                continue;
            }
            let kingside = rook > king;
            let (king_to, rook_to) = if kingside {
                (king + 2, king + 1)
            } else {
                (king - 2, king - 1)
            };
            let lo = king.min(rook).min(king_to).min(rook_to);
            let hi = king.max(rook).max(king_to).max(rook_to);
            let clear = (lo..=hi).all(|s| s == king || s == rook || self.squares[s].is_none());
            if clear {
                out.push(SlowMove::Castle { king, rook });
            }
        }
    }

    fn lose_rights_at(&mut self, s: usize) {
        for (i, &corner) in ROOK_CORNERS.iter().enumerate() {
            if corner == s {
                self.rights[i] = false;
            }
        }
    }

    fn lose_side_rights(&mut self, side: Side) {
        self.rights[side * 2] = false;
        self.rights[side * 2 + 1] = false;
        self.king_unmoved[side] = false;
    }

    /// Takes what stands on `s` into the mover's holdings.
    fn capture(&mut self, s: usize) {
        if let Some(m) = self.squares[s].take() {
            let role = if m.promoted { PAWN } else { m.role };
            self.hand[self.turn][role as usize] += 1;
            self.lose_rights_at(s);
            if m.role == KING && s == king_home(m.side) {
                self.lose_side_rights(m.side);
            }
        }
    }

    fn play(&mut self, mv: SlowMove) {
        let us = self.turn;
        self.ep = None;
        match mv {
            SlowMove::Step {
                from,
                to,
                promotion,
            } => {
                let mut man = self.squares[from].take().expect("a piece on from");
                self.capture(to);
                if let Some(p) = promotion {
                    man = Man {
                        side: us,
                        role: p,
                        promoted: true,
                    };
                }
                if man.role == PAWN && (rank_of(from) - rank_of(to)).abs() == 2 {
                    self.ep = Some((from + to) / 2);
                }
                if man.role == KING {
                    self.lose_side_rights(us);
                }
                self.lose_rights_at(from);
                self.lose_rights_at(to);
                self.squares[to] = Some(man);
            }
            SlowMove::EnPassant { from, to } => {
                let man = self.squares[from].take();
                self.capture(to - 8 + 16 * us);
                self.squares[to] = man;
            }
            SlowMove::Castle { king, rook } => {
                let k = self.squares[king].take();
                let rk = self.squares[rook].take();
                let (king_to, rook_to) = if rook > king {
                    (king + 2, king + 1)
                } else {
                    (king - 2, king - 1)
                };
                self.squares[king_to] = k;
                self.squares[rook_to] = rk;
                self.lose_side_rights(us);
            }
            SlowMove::Drop { role, to } => {
                self.hand[us][role as usize] -= 1;
                self.squares[to] = Some(Man {
                    side: us,
                    role,
                    promoted: false,
                });
                if role == ROOK && self.king_unmoved[us] {
                    let home_king =
                        self.squares[king_home(us)].is_some_and(|m| m.side == us && m.role == KING);
                    for (i, &corner) in ROOK_CORNERS.iter().enumerate() {
                        if corner == to && i / 2 == us && home_king {
                            self.rights[i] = true;
                        }
                    }
                }
            }
        }
        self.turn = 1 - us;
    }

    /// Leaves of the move tree to `depth`.
    pub(crate) fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .into_iter()
            .map(|m| {
                let mut child = self.clone();
                child.play(m);
                child.perft(depth - 1)
            })
            .sum()
    }

    /// The moves of the side to move as UCI-like text (`e1g1`, `K@e4`, `e7e8q`), sorted.
    pub(crate) fn uci_moves(&self) -> Vec<String> {
        let name = |s: usize| format!("{}{}", (b'a' + (s % 8) as u8) as char, s / 8 + 1);
        let letters = ['P', 'N', 'B', 'R', 'Q', 'K'];
        let mut out: Vec<String> = self
            .moves()
            .into_iter()
            .map(|m| match m {
                SlowMove::Step {
                    from,
                    to,
                    promotion,
                } => match promotion {
                    Some(p) => format!(
                        "{}{}{}",
                        name(from),
                        name(to),
                        letters[p as usize].to_ascii_lowercase()
                    ),
                    None => format!("{}{}", name(from), name(to)),
                },
                SlowMove::EnPassant { from, to } => format!("{}{}", name(from), name(to)),
                SlowMove::Castle { king, rook } => {
                    let to = if rook > king { king + 2 } else { king - 2 };
                    format!("{}{}", name(king), name(to))
                }
                SlowMove::Drop { role, to } => format!("{}@{}", letters[role as usize], name(to)),
            })
            .collect();
        out.sort();
        out
    }
}
