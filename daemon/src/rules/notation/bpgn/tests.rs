//! Reader unit tests: the variations of the format, and errors that name their place.

use super::*;
use crate::rules::{MatchResult, Team};

fn one(text: &str) -> BpgnGame {
    let mut games = parse_bpgn(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(games.len(), 1, "{text}");
    games.remove(0)
}

fn error(text: &str) -> ParseBpgnError {
    parse_bpgn(text).expect_err(text)
}

fn tokens(game: &BpgnGame) -> Vec<String> {
    game.moves
        .iter()
        .map(|m| format!("{} {}", m.token, m.san_text))
        .collect()
}

#[test]
fn tokens_stuck_to_clocks_and_moves_are_split() {
    let g = one("1B. Nf3{117.807}3B. Nf3{117.807} 1a.e5 {12}");
    assert_eq!(tokens(&g), ["1B. Nf3", "3B. Nf3", "1a. e5"]);
    assert_eq!(g.moves[0].clock, Some(117.807));
    assert_eq!(g.moves[2].clock, Some(12.0));
    assert_eq!(g.result, None);
}

#[test]
fn crlf_wrapping_and_several_tags_per_line_read_alike() {
    let lf = "[WhiteA \"a\"][WhiteAElo \"1\"]\n[Result \"1-0\"]\n\n1A. e4 {119.5} 1a. e5 {119.9}\n{x resigns} 1-0";
    let crlf = "[WhiteA \"a\"][WhiteAElo \"1\"]\r\n[Result \"1-0\"]\r\n1A. e4 {119.5} \r\n1a. e5\r\n{119.9} \r\n{x resigns} 1-0 \r\n";
    assert_eq!(one(lf), one(crlf));
    let g = one(lf);
    assert_eq!(
        g.tags,
        [
            ("WhiteA".to_owned(), "a".to_owned()),
            ("WhiteAElo".to_owned(), "1".to_owned()),
            ("Result".to_owned(), "1-0".to_owned())
        ]
    );
    assert_eq!(g.end_comment.as_deref(), Some("x resigns"));
    assert_eq!(g.result, Some(MatchResult::Won(Team::WhiteA)));
}

#[test]
fn comments_variations_and_draw_offers_stay_off_the_main_line() {
    let text = "1A. e4 {298} {C: kibitz  text} {A:!} {D:} 1a. e5 {297} (1a. c5 {290} (1a. e6) 2A. Nf3) (=) $1 2A. Nf3 {296} *";
    let g = one(text);
    assert_eq!(tokens(&g), ["1A. e4", "1a. e5", "2A. Nf3"]);
    assert_eq!(
        g.moves[0].annotations,
        [
            Annotation::Comment("C: kibitz text".into()),
            Annotation::Comment("A:!".into()),
            Annotation::Comment("D:".into()),
        ]
    );
    assert_eq!(
        g.moves[1].annotations,
        [
            Annotation::Variation("1a. c5 {290} (1a. e6) 2A. Nf3".into()),
            Annotation::DrawOffer,
            Annotation::Nag(1),
        ]
    );
    assert_eq!(g.result, Some(MatchResult::Unfinished));
    assert_eq!(one(&write_bpgn(&g)), g);
}

#[test]
fn a_second_number_comment_is_a_comment() {
    let g = one("1A. e4 {298} {297}");
    assert_eq!(g.moves[0].clock, Some(298.0));
    assert_eq!(g.moves[0].annotations, [Annotation::Comment("297".into())]);
}

#[test]
fn several_games_and_games_without_moves() {
    let text = "[Event \"1\"]\n{C: no moves}\n{x resigns} 1-0\n\n[Event \"2\"]\n1A. e4 {1} *\n[Event \"3\"]\n1A. d4\n";
    let games = parse_bpgn(text).expect("three games");
    assert_eq!(games.len(), 3);
    assert!(games[0].moves.is_empty());
    assert_eq!(
        games[0].preamble,
        [Annotation::Comment("C: no moves".into())]
    );
    assert_eq!(games[0].end_comment.as_deref(), Some("x resigns"));
    assert_eq!(games[1].tag("Event"), Some("2"));
    assert_eq!(games[2].tag("Event"), Some("3"));
    assert_eq!(games[2].result, None);
    assert!(parse_bpgn("").expect("empty").is_empty());
    assert!(parse_bpgn(" \r\n\n").expect("blank").is_empty());
}

#[test]
fn setup_and_fen_tags_give_the_start() {
    let fen = "8/8/8/8/8/8/8/4K2k/Qn b - - 10 20 | 8/8/8/8/8/8/8/4K2k w - - 1 2";
    for setup in ["Setup", "SetUp"] {
        let g = one(&format!("[{setup} \"1\"]\n[FEN \"{fen}\"]\n*"));
        assert_eq!(g.setup.as_deref(), Some(fen));
    }
    let g = one(&format!("[SetUp \"0\"]\n[FEN \"{fen}\"]\n*"));
    assert_eq!(g.setup, None);
}

#[test]
fn san_is_kept_as_written_and_read() {
    let g = one("1A. p@e4 1a. 0-0 2A. e8Q+ 2a. Nf3!?");
    let written: Vec<&str> = g.moves.iter().map(|m| m.san_text.as_str()).collect();
    assert_eq!(written, ["p@e4", "0-0", "e8Q+", "Nf3!?"]);
    let canonical: Vec<String> = g.moves.iter().map(|m| m.san.to_string()).collect();
    assert_eq!(canonical, ["P@e4", "O-O", "e8=Q+", "Nf3"]);
}

#[test]
fn errors_name_line_column_and_what_was_expected() {
    let cases: [(&str, usize, usize, &str); 12] = [
        ("[Event \"x", 1, 10, "'\"' closing the tag value"),
        ("[Event x]", 1, 8, "'\"' opening the tag value"),
        ("[Event \"x\"\n", 2, 1, "']' closing the tag"),
        ("[ \"x\"]", 1, 3, "a tag name after '['"),
        (
            "\n\n1A. e4 {1",
            3,
            8,
            "'}' closing the comment opened at line 3, column 8",
        ),
        ("1A. e4 e5", 1, 8, "a move number like 12A. before the move"),
        ("1A. e4\n  1a.", 2, 3, "a SAN move after the move number"),
        ("1A. {1}", 1, 5, "a SAN move after 1A."),
        ("1A. e4 2a. Zz9", 1, 13, "a SAN move (a destination square)"),
        (
            "12. e4",
            1,
            1,
            "a move number with its board letter, like 12A. or 12b.",
        ),
        ("1A. e4 )", 1, 8, "a move, a comment or a result"),
        (
            "1A. e4\n(1a. e5 (1a. d5)",
            2,
            1,
            "')' closing this variation",
        ),
    ];
    for (text, line, column, expected) in cases {
        let e = error(text);
        assert_eq!(
            (e.line, e.column, e.expected.as_str()),
            (line, column, expected),
            "{text:?}: {e}"
        );
        assert!(
            e.to_string()
                .starts_with(&format!("line {line}, column {column}: expected "))
        );
    }
    let e = error("[FEN \"8/8 w\"]\n*");
    assert_eq!((e.line, e.column), (1, 1));
    assert!(e.expected.starts_with("a BFEN in the FEN tag"), "{e}");
}

#[test]
fn team_result_falls_back_to_the_last_move() {
    // No player tags: the last move (on board B) decides the board.
    let g = one("1B. e4 {1} 1b. e5 {1} {someone forfeits on time} 0-1");
    assert_eq!(g.named_loser(), None);
    assert_eq!(g.ended_board(), Some(BoardId::B));
    assert_eq!(g.team_result(), MatchResult::Won(Team::WhiteA));
    let g = one("[Result \"1/2-1/2\"] 1B. e4 {1}");
    assert_eq!(g.team_result(), MatchResult::Draw);
}

#[test]
fn nothing_panics_on_truncated_or_mangled_input() {
    let text = "[Event \"x\"][WhiteA \"a\"]\r\n{C: c}\n1A. e4{119.5} 1a. e5 (1a. c5 {x}) 1B. N@f3+ {C: y} {a resigns} 1-0";
    for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
        let _ = parse_bpgn(&text[..end]);
        let _ = parse_bpgn(&text[end..]);
    }
    for junk in [
        "}",
        "]",
        "(",
        ")",
        "{",
        "[",
        "$",
        "$x",
        "1A.",
        "99999999999A. e4",
        "\u{feff}*",
        "ä@e4",
    ] {
        let _ = parse_bpgn(junk);
    }
}

#[test]
fn only_the_final_move_repeated_at_a_time_forfeit_is_skipped() {
    let rules = crate::rules::Ruleset::default();
    let stop = |text: &str| {
        replay::replay(&one(text), rules)
            .expect("replay")
            .stop
            .map(|s| s.to_string())
    };
    // Anywhere else a repeated move is reported with its token.
    assert_eq!(
        stop("1A. e4 1A. e4 1a. e5 1B. d4 *").as_deref(),
        Some("1A. e4: repeated-move")
    );
    assert_eq!(
        stop("1A. e4{119} 1B. Nf3{117.807}1B. Nf3{117.807} 1b. e5{119} *").as_deref(),
        Some("1B. Nf3: repeated-move")
    );
    // The final move repeated, but no time forfeit: not the artifact.
    assert_eq!(
        stop("1A. e4 1a. e5 1B. d4 1a. e5 {x resigns} 1-0").as_deref(),
        Some("1a. e5: repeated-move")
    );
    // The final token repeats a move that is not the mover's last one.
    assert_eq!(
        stop("1A. e4 1a. e5 2A. d4 2a. d5 1a. e5 {x forfeits on time} 1-0").as_deref(),
        Some("1a. e5: repeated-move")
    );
    // The 2010 exports' artifact: the final token, at a time forfeit, adjacent or not.
    for text in [
        "1A. e4{119} 1B. Nf3{117.807} 1b. e5{119} 1B. Nf3{117.807} {x forfeits on time} 0-1",
        "1A. e4{119} 1B. Nf3{117.807} 1B. Nf3{117.807} {x forfeits on time} 0-1",
    ] {
        let g = one(text);
        let r = replay::replay(&g, rules).expect("replay");
        assert!(r.is_legal(), "{text}: {:?}", r.stop);
        assert_eq!(r.skipped.len(), 1, "{text}");
        assert_eq!(r.skipped[0].index, g.moves.len() - 1);
    }
}

#[test]
fn replay_names_unresolvable_moves() {
    let rules = crate::rules::Ruleset::default();
    // No piece can make the move: bad piece movement.
    let g = one("1A. Nd5 *");
    let stop = replay::replay(&g, rules)
        .expect("replay")
        .stop
        .expect("stop");
    assert_eq!(stop.to_string(), "1A. Nd5: bad-piece-movement");
    // Two knights fit.
    let fen = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1 | 4k3/8/8/8/8/8/8/4K3 w - - 0 1";
    let g = one(&format!("[SetUp \"1\"][FEN \"{fen}\"] 1A. Nd2 *"));
    let stop = replay::replay(&g, rules)
        .expect("replay")
        .stop
        .expect("stop");
    assert_eq!(stop.to_string(), "1A. Nd2: ambiguous-san");
    // A capture is handed to the partner, who may drop it.
    let g = one("1A. e4 1a. d5 2A. exd5 1B. e4 1b. P@e5 *");
    let r = replay::replay(&g, rules).expect("replay");
    assert!(r.is_legal(), "{:?}", r.stop);
    assert_eq!(
        r.moves[2].outcome.handoff.map(|(s, _)| s.tag()),
        Some("BlackB".into())
    );
}

#[test]
fn bugbridge_files_state_the_team_result_and_are_read_as_written() {
    // Decided on board B, no player named: a FICS export's `0-1` is board B's White losing,
    // a win of WhiteA's team; bugbridge's own file means WhiteA's team lost.
    let moves = "1B. e4 {1} 1b. e5 {1} {board B: checkmate} 0-1";
    let fics = one(&format!("[Site \"freechess.org\"]\n{moves}"));
    assert!(fics.is_fics_export());
    assert_eq!(fics.team_result(), MatchResult::Won(Team::WhiteA));
    // Without a FICS marker, another writer's file follows the standard: the team result.
    let standard = one(moves);
    assert!(!standard.is_fics_export());
    assert_eq!(standard.result_rule(), super::ResultRule::Standard);
    assert_eq!(standard.team_result(), MatchResult::Won(Team::BlackA));
    // A decisive [Result] wins over a `*` terminator; an end comment naming the winner.
    let viewer = one(
        "[WhiteA \"w\"][BlackA \"x\"][WhiteB \"y\"][BlackB \"z\"][Result \"0-1\"]\n\
         1B. e4 {1} 1b. e5 {1} {x won with their bughouse partner} *",
    );
    assert_eq!(viewer.raw_result(), MatchResult::Won(Team::BlackA));
    assert_eq!(
        viewer.named_winner().map(|s| s.tag()),
        Some("BlackA".into())
    );
    assert_eq!(viewer.team_result(), MatchResult::Won(Team::BlackA));
    let ours = one(&format!("[Recorder \"{}\"]\n{moves}", recorder_value()));
    assert!(ours.states_team_result());
    assert_eq!(ours.team_result(), MatchResult::Won(Team::BlackA));
    // Another program's recorder tag is not ours.
    let other = one(&format!(
        "[Recorder \"bugbridgeX 1\"]\n[Event \"FICS rated bughouse match\"]\n{moves}"
    ));
    assert_eq!(other.team_result(), MatchResult::Won(Team::WhiteA));
}

#[test]
fn games_are_read_one_at_a_time_and_absurd_ones_are_refused() {
    // A reader yields the games before an error, then the error, then nothing.
    let text = "1A. e4 *\n[Event \"2\"]\n1A. d4 {x\n";
    let mut games = BpgnReader::new(text.as_bytes());
    assert_eq!(games.next().map(|g| g.map(|g| g.moves.len())), Some(Ok(1)));
    let e = games.next().expect("an error").expect_err("unterminated");
    assert_eq!((e.line, e.column), (3, 8));
    assert!(games.next().is_none());

    // Too many moves: refused at the first move over the limit.
    let many = "1A. e4 ".repeat(MAX_GAME_MOVES + 1);
    let e = error(&format!("[Event \"x\"]\n{many}"));
    assert_eq!(
        e.expected,
        format!("a game of at most {MAX_GAME_MOVES} moves")
    );
    assert_eq!((e.line, e.column), (2, 1 + 7 * MAX_GAME_MOVES));

    // Too much text (one huge comment): refused, naming where the game starts.
    let huge = "x".repeat(usize::try_from(MAX_GAME_CHARS).unwrap() + 1);
    let e = error(&format!("1A. e4 *\n\n  [Event \"y\"] 1A. e4 {{{huge}}} *"));
    assert_eq!((e.line, e.column), (3, 3), "{e}");
    assert!(e.to_string().contains("a game of at most"), "{e}");

    // A multi-byte character split across the reader's chunks reads whole.
    // (`é` starts on the chunk's last byte.)
    let padding = " ".repeat(64 * 1024 - "[Event \"".len() - 1);
    let g = one(&format!("{padding}[Event \"é€😀\"] *"));
    assert_eq!(g.tag("Event"), Some("é€😀"));
}
