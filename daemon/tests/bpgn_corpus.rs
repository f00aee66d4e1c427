//! The real-game corpus (`tests/data/bpgn/`, sources in `tests/data/bpgn/SOURCES.md`) through the BPGN
//! reader, writer and replay, and `bugbridge check` over it.

use std::path::{Path, PathBuf};

use bugbridge::check;
use bugbridge::rules::notation::bfen::{parse_bfen, write_bfen};
use bugbridge::rules::notation::bpgn::{BpgnGame, canonical_tags, parse_bpgn, replay, write_bpgn};
use bugbridge::rules::{BoardId, ByBoard, MatchResult, Ruleset, RulesetName, Team};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bpgn")
}

/// Every corpus file, relative to the data directory, sorted.
fn corpus() -> Vec<String> {
    let mut files = Vec::new();
    for sub in std::fs::read_dir(data_dir()).expect("data dir") {
        let sub = sub.expect("entry").path();
        if sub.is_dir() {
            for f in std::fs::read_dir(&sub).expect("subdir") {
                let f = f.expect("entry").path();
                let rel = f.strip_prefix(data_dir()).expect("prefix");
                files.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    files
}

fn read(rel: &str) -> Vec<BpgnGame> {
    let bytes = std::fs::read(data_dir().join(rel)).expect("corpus file");
    parse_bpgn(&String::from_utf8_lossy(&bytes)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn rules() -> Ruleset {
    Ruleset::default()
}

/// What `check` says of each file: the 14 legal games with their plies and team result,
/// the corrupt ones with the exact move and reason.
const EXPECTED: [(&str, &str); 18] = [
    (
        "bpgn-standard-samples/VampireGod-Setup-BFEN-2002.bpgn",
        "13 plies, 0-1",
    ),
    (
        "bpgn-standard-samples/raven-Gnejs-1996.bpgn",
        "88 plies, 0-1",
    ),
    ("bugaboo/test.bpgn", "139 plies, 0-1"),
    ("lwerdna-chess/534.bpgn", "illegal: 1b. e5: out-of-turn"),
    // 171 tokens: the repeated `40B. Q@f6` is an export artifact, skipped.
    (
        "lwerdna-chess/ambiguous_Nx_34B.bpgn",
        "170 plies, 0-1 (repeated final move skipped)",
    ),
    ("lwerdna-chess/bugdb_2307758.bpgn", "173 plies, 0-1"),
    ("lwerdna-chess/bugdb_2308617.bpgn", "83 plies, 1-0"),
    ("lwerdna-chess/enpassant_14A.bpgn", "126 plies, 0-1"),
    ("lwerdna-chess/foo.bpgn", "79 plies, 1-0"),
    ("lwerdna-chess/immediate_resign.bpgn", "0 plies, 1-0"),
    (
        "lwerdna-chess/nonexistent_pawn_drop_19A.bpgn",
        "illegal: 19A. P@e7+: drop-not-in-hand",
    ),
    ("lwerdna-chess/queencastle.bpgn", "34 plies, *"),
    // 145 tokens: the repeated `41b. b5` is skipped.
    (
        "lwerdna-chess/repeated_move_on_time_forfeit.bpgn",
        "144 plies, 1-0 (repeated final move skipped)",
    ),
    ("pychess-variants/1283326.bpgn", "8 plies, *"),
    ("pychess-variants/1934301.bpgn", "110 plies, 0-1"),
    ("pychess-variants/1934461.bpgn", "125 plies, 1-0"),
    ("pychess-variants/1934587.bpgn", "90 plies, 1-0"),
    ("pychess-variants/1934660.bpgn", "107 plies, 1-0"),
];

fn expected_line(dir: &str, rel: &str, what: &str) -> String {
    match what.strip_prefix("illegal: ") {
        Some(rest) => format!("illegal {dir}/{rel} #1: {rest}"),
        None => format!("ok {dir}/{rel} #1: {what}"),
    }
}

#[test]
fn the_corpus_is_complete() {
    let names: Vec<&str> = EXPECTED.iter().map(|(f, _)| *f).collect();
    assert_eq!(corpus(), names);
}

#[test]
fn check_reports_every_file_exactly() {
    let dir = data_dir();
    let paths: Vec<PathBuf> = EXPECTED.iter().map(|(f, _)| dir.join(f)).collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = check::run(&paths, RulesetName::Fide, false, &mut out, &mut err);
    let out = String::from_utf8(out).expect("utf-8");
    let want: Vec<String> = EXPECTED
        .iter()
        .map(|(f, what)| expected_line(&dir.display().to_string(), f, what))
        .collect();
    assert_eq!(out.lines().collect::<Vec<_>>(), want);
    assert!(err.is_empty(), "{}", String::from_utf8_lossy(&err));
    assert_eq!(status, 1, "two corrupt games");
}

#[test]
fn check_of_the_legal_files_exits_0() {
    let dir = data_dir();
    let paths: Vec<PathBuf> = EXPECTED
        .iter()
        .filter(|(_, w)| !w.starts_with("illegal"))
        .map(|(f, _)| dir.join(f))
        .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        check::run(&paths, RulesetName::Fide, false, &mut out, &mut err),
        0
    );
    assert_eq!(String::from_utf8_lossy(&out).lines().count(), 16);
}

#[test]
fn check_positions_prints_a_bfen_per_move() {
    let path = data_dir().join("lwerdna-chess/foo.bpgn");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = check::run(
        std::slice::from_ref(&path),
        RulesetName::Fide,
        true,
        &mut out,
        &mut err,
    );
    assert_eq!(status, 0);
    let out = String::from_utf8(out).expect("utf-8");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 79);
    let file = path.display().to_string();
    assert_eq!(
        lines[0],
        format!(
            "{file} #1\t1A.\te3\trnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b KQkq - 118.819 120 | rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 120 120"
        )
    );
    let last: Vec<&str> = lines[78].split('\t').collect();
    assert_eq!(
        &last[..3],
        &[format!("{file} #1").as_str(), "21b.", "P@c4#"]
    );
}

#[test]
fn check_positions_stops_at_the_illegal_move() {
    let path = data_dir().join("lwerdna-chess/nonexistent_pawn_drop_19A.bpgn");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = check::run(
        std::slice::from_ref(&path),
        RulesetName::Fide,
        true,
        &mut out,
        &mut err,
    );
    assert_eq!(status, 1);
    let out = String::from_utf8(out).expect("utf-8");
    let last = out.lines().last().expect("lines");
    assert!(last.contains("\t19A.\tP@e7+\t"), "{last}");
    assert_eq!(
        String::from_utf8(err).expect("utf-8"),
        format!(
            "illegal {} #1: 19A. P@e7+: drop-not-in-hand\n",
            path.display()
        )
    );
}

#[test]
fn check_names_a_missing_file_and_exits_2() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let paths = [PathBuf::from("no/such/file.bpgn")];
    assert_eq!(
        check::run(&paths, RulesetName::Fide, false, &mut out, &mut err),
        2
    );
    assert!(out.is_empty());
    let err = String::from_utf8(err).expect("utf-8");
    assert!(err.starts_with("no/such/file.bpgn: cannot read:"), "{err}");
}

#[test]
fn check_names_line_column_and_expectation_of_unreadable_text() {
    let dir = std::env::temp_dir().join(format!("bugbridge-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("broken.bpgn");
    std::fs::write(&path, "[Event \"x\"]\n\n1A. e4 {119.5} 1a. e5 {119\n").expect("write");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = check::run(
        std::slice::from_ref(&path),
        RulesetName::Fide,
        false,
        &mut out,
        &mut err,
    );
    assert_eq!(status, 1);
    let err = String::from_utf8(err).expect("utf-8");
    assert_eq!(
        err,
        format!(
            "{}:3:23: expected '}}' closing the comment opened at line 3, column 23, found the end of the text\n",
            path.display()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_file_round_trips_through_the_writer() {
    for rel in corpus() {
        for game in read(&rel) {
            let text = write_bpgn(&game);
            let movetext = text.lines().skip_while(|l| l.starts_with('['));
            assert!(
                movetext.clone().all(|l| l.chars().count() <= 80),
                "{rel}\n{text}"
            );
            assert!(!text.contains('\r'));
            let again = parse_bpgn(&text).unwrap_or_else(|e| panic!("{rel}: {e}\n{text}"));
            assert_eq!(again.len(), 1, "{rel}");
            let again = &again[0];
            assert_eq!(again.tags, canonical_tags(&game), "{rel}");
            assert_eq!(again.setup, game.setup, "{rel}");
            assert_eq!(again.preamble, game.preamble, "{rel}");
            assert_eq!(again.moves, game.moves, "{rel}");
            assert_eq!(again.end_comment, game.end_comment, "{rel}");
            assert_eq!(again.result, game.result, "{rel}");
            assert_eq!(again.team_result(), game.team_result(), "{rel}");
            assert_eq!(write_bpgn(again), text, "{rel}: the writer is stable");
        }
    }
}

#[test]
fn the_writer_emits_the_canonical_layout() {
    let game = &read("lwerdna-chess/foo.bpgn")[0];
    let text = write_bpgn(game);
    let lag = format!("[Lag \"{}\"]", game.tag("Lag").expect("Lag"));
    let head: Vec<&str> = text.lines().take(14).collect();
    assert_eq!(
        head,
        [
            "[Event \"FICS rated bughouse match\"]",
            "[Date \"2010-07-26\"]",
            "[WhiteA \"johnthegreat\"]",
            "[BlackA \"Conquerer\"]",
            "[WhiteB \"YScorpion\"]",
            "[BlackB \"TheLagger\"]",
            "[WhiteAElo \"2190\"]",
            "[BlackAElo \"1644\"]",
            "[WhiteBElo \"2423\"]",
            "[BlackBElo \"1853\"]",
            "[TimeControl \"120+0\"]",
            "[Result \"0-1\"]",
            "[Time \"16:15:59\"]",
            lag.as_str(),
        ]
    );
    let movetext: Vec<&str> = text.lines().skip(15).collect();
    assert!(
        movetext[0].starts_with(
            "{C:This is game number 532 at http://www.bughousedb.com} 1A. e3 {118.819}"
        ),
        "{}",
        movetext[0]
    );
    assert!(text.ends_with(" 0-1\n"), "{text}");
    let one_line = text.replace('\n', " ");
    assert!(
        one_line.ends_with("21b. P@c4# {76.443} {YScorpion checkmated} 0-1 "),
        "{text}"
    );
}

#[test]
fn every_position_is_a_bfen_that_round_trips() {
    for rel in corpus() {
        for game in read(&rel) {
            let replayed = replay(&game, rules()).unwrap_or_else(|e| panic!("{rel}: {e}"));
            for text in
                std::iter::once(&replayed.start_bfen).chain(replayed.moves.iter().map(|m| &m.bfen))
            {
                let parsed = parse_bfen(text, rules()).unwrap_or_else(|e| panic!("{rel}: {e}"));
                let written = write_bfen(
                    ByBoard {
                        a: &parsed.a.position,
                        b: &parsed.b.position,
                    },
                    ByBoard {
                        a: parsed.a.times,
                        b: parsed.b.times,
                    },
                );
                assert_eq!(&written, text, "{rel}");
                assert_eq!(parse_bfen(&written, rules()).ok(), Some(parsed), "{rel}");
            }
            // The last BFEN describes the boards as they stand.
            if let Some(last) = replayed.moves.last() {
                let parsed = parse_bfen(&last.bfen, rules()).expect("bfen");
                for b in BoardId::ALL {
                    let stands = replayed.game.board(b);
                    let read = &parsed[b].position;
                    assert_eq!(read.board(), stands.board(), "{rel}");
                    assert_eq!(read.pockets(), stands.pockets(), "{rel}");
                    assert_eq!(read.promoted(), stands.promoted(), "{rel}");
                    assert_eq!(read.turn(), stands.turn(), "{rel}");
                    assert_eq!(read.castling_rights(), stands.castling_rights(), "{rel}");
                }
            }
        }
    }
}

#[test]
fn written_san_matches_the_exports() {
    // Disambiguation (by file, by rank, none against a pinned knight), `+` and bughouse
    // `#` computed by the writer agree with what FICS wrote, move for move.
    for rel in corpus() {
        for game in read(&rel) {
            let replayed = replay(&game, rules()).expect("replay");
            for m in &replayed.moves {
                if rel.ends_with("raven-Gnejs-1996.bpgn") && m.token.to_string() == "29a." {
                    // The 1996 sample writes the final mate as `N@e5+` (README: "inconsistent").
                    assert_eq!(
                        (m.san_text.as_str(), m.canonical_san.as_str()),
                        ("N@e5+", "N@e5#")
                    );
                    continue;
                }
                assert_eq!(m.canonical_san, m.san_text, "{rel} {}", m.token);
            }
        }
    }
}

#[test]
fn the_pinned_knight_does_not_disambiguate() {
    let game = &read("lwerdna-chess/ambiguous_Nx_34B.bpgn")[0];
    let replayed = replay(game, rules()).expect("replay");
    let m = replayed
        .moves
        .iter()
        .find(|m| m.token.to_string() == "34B.")
        .expect("34B.");
    assert_eq!(m.san_text, "Nxg3");
    assert_eq!(m.mv.uci(), "h5g3");
    assert_eq!(m.canonical_san, "Nxg3");
}

#[test]
fn repeated_final_moves_are_skipped_with_a_note() {
    for (rel, token) in [
        ("lwerdna-chess/ambiguous_Nx_34B.bpgn", "40B."),
        ("lwerdna-chess/repeated_move_on_time_forfeit.bpgn", "41b."),
    ] {
        let game = &read(rel)[0];
        let replayed = replay(game, rules()).expect("replay");
        assert!(replayed.is_legal(), "{rel}");
        assert_eq!(replayed.skipped.len(), 1, "{rel}");
        let skipped = &replayed.skipped[0];
        assert_eq!(skipped.token.to_string(), token);
        assert_eq!(skipped.index, game.moves.len() - 1);
        assert!(skipped.note.contains("export artifact"), "{}", skipped.note);
    }
    // 534.bpgn also repeats `23b. N@f4+`, but it stops earlier at its missing `1B.`.
    let game = &read("lwerdna-chess/534.bpgn")[0];
    let last_two: Vec<String> = game.moves[game.moves.len() - 2..]
        .iter()
        .map(|m| format!("{} {}", m.token, m.san_text))
        .collect();
    assert_eq!(last_two, ["23b. N@f4+", "23b. N@f4+"]);
}

#[test]
fn the_missing_first_move_on_b_is_reported_out_of_turn() {
    // 534.bpgn has no `1B.`: Black on B "moves first", which is the honest report.
    let game = &read("lwerdna-chess/534.bpgn")[0];
    assert!(!game.moves.iter().any(|m| m.token.to_string() == "1B."));
    let replayed = replay(game, rules()).expect("replay");
    let stop = replayed.stop.expect("illegal");
    assert_eq!(stop.to_string(), "1b. e5: out-of-turn");
    assert_eq!(
        replayed.moves.len(),
        3,
        "1A. e4, 1a. e6, then 1b. e5 played out of turn"
    );
}

#[test]
fn results_are_per_board_in_the_file_and_per_team_in_the_model() {
    // foo.bpgn: YScorpion, White on B, is mated by `21b. P@c4#`; the file says 0-1 (board B's
    // White lost), so WhiteA's team (johnthegreat with TheLagger) won: 1-0.
    let game = &read("lwerdna-chess/foo.bpgn")[0];
    assert_eq!(game.tag("WhiteB"), Some("YScorpion"));
    assert_eq!(game.end_comment.as_deref(), Some("YScorpion checkmated"));
    assert_eq!(game.result, Some(MatchResult::Won(Team::BlackA)));
    assert_eq!(game.raw_result(), MatchResult::Won(Team::BlackA));
    assert_eq!(game.ended_board(), Some(BoardId::B));
    assert_eq!(game.team_result(), MatchResult::Won(Team::WhiteA));
    // A game decided on board A reads the same either way.
    let game = &read("lwerdna-chess/bugdb_2308617.bpgn")[0];
    assert_eq!(game.ended_board(), Some(BoardId::A));
    assert_eq!(game.team_result(), game.raw_result());
    // The mate on board B is the rules core's bughouse mate too.
    let game = &read("lwerdna-chess/foo.bpgn")[0];
    let replayed = replay(game, rules()).expect("replay");
    let end = replayed.game.end().expect("mate");
    assert_eq!(end.board, Some(BoardId::B));
    assert_eq!(end.result, MatchResult::Won(Team::WhiteA));
}

#[test]
fn the_setup_game_starts_from_its_bfen() {
    let game = &read("bpgn-standard-samples/VampireGod-Setup-BFEN-2002.bpgn")[0];
    let fen = "r1b1k1nr/ppp1qpPp/2n5/1B1p1n1N/3P4/2P5/P1P1QPnP/R1BK2NR/PPBpp b kq - 142 164 | 2Nrkb1r/pPpbqppp/2p5/8/3N4/2P1B3/P1P1QPpP/R3K2R/Ppb w KQk - 142 163";
    assert_eq!(game.setup.as_deref(), Some(fen));
    let replayed = replay(game, rules()).expect("replay");
    let both = |text: &str| parse_bfen(text, rules()).expect("bfen");
    assert_eq!(both(&replayed.start_bfen), both(fen));
    assert!(replayed.is_legal());
    assert_eq!(replayed.moves[0].token.to_string(), "14B.");
    // The first move's BFEN keeps board A's setup times and board B's new White time.
    let first = &replayed.moves[0].bfen;
    assert!(first.contains(" b kq - 142 164 | "), "{first}");
    assert!(first.ends_with(" b KQk - 140 163"), "{first}");
}

#[test]
fn every_format_variation_is_read() {
    // Tags several per line, all kept in order.
    let game = &read("lwerdna-chess/534.bpgn")[0];
    let names: Vec<&str> = game.tags.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "Event",
            "Date",
            "Time",
            "TimeControl",
            "WhiteA",
            "WhiteAElo",
            "WhiteB",
            "WhiteBElo",
            "BlackA",
            "BlackAElo",
            "BlackB",
            "BlackBElo",
            "Lag",
            "Result"
        ]
    );
    // Clocks keep the written value; the header comment is kept.
    assert_eq!(game.moves[0].clock, Some(119.521));
    assert_eq!(
        game.preamble,
        [bugbridge::rules::notation::bpgn::Annotation::Comment(
            "C:This is game number 534 at http://www.bughousedb.com".to_owned()
        )]
    );
    // CRLF and a trailing space before the line end (2012 export).
    let game = &read("lwerdna-chess/bugdb_2308617.bpgn")[0];
    assert_eq!(game.moves.len(), 83);
    assert_eq!(game.end_comment.as_deref(), Some("BugBug checkmated"));
    // No final newline, sub-second clocks (2014-2022 exports).
    let game = &read("pychess-variants/1934660.bpgn")[0];
    assert_eq!(game.moves.last().and_then(|m| m.clock), Some(17.075));
    // `{R:..}` kept with its move, the end comment on the next line.
    let game = &read("pychess-variants/1283326.bpgn")[0];
    let last = game.moves.last().expect("moves");
    assert_eq!(
        last.annotations,
        [bugbridge::rules::notation::bpgn::Annotation::Comment(
            "R: carlosfenix requests to abort the game.".to_owned()
        )]
    );
    assert_eq!(game.end_comment.as_deref(), Some("Game aborted on move 1"));
    assert_eq!(game.result, Some(MatchResult::Unfinished));
    // Wrapped movetext with integer clocks (1996 standard sample).
    let game = &read("bpgn-standard-samples/raven-Gnejs-1996.bpgn")[0];
    assert_eq!(game.moves.len(), 88);
    assert_eq!(game.moves[0].clock, Some(298.0));
    // A game without moves.
    let game = &read("lwerdna-chess/immediate_resign.bpgn")[0];
    assert!(game.moves.is_empty());
    assert_eq!(
        game.end_comment.as_deref(),
        Some("kennyforchessnet resigns")
    );
}

#[test]
fn check_reports_a_repeated_move_with_its_token_and_notes_the_skipped_artifact() {
    let dir = std::env::temp_dir().join(format!("bugbridge-corpus-rep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let cases = [
        (
            "1A. e4 1A. e4 1a. e5 1B. d4 *",
            "illegal {f} #1: 1A. e4: repeated-move",
        ),
        (
            "1A. e4 1a. e5 1B. d4 1B. d4 {x resigns} 0-1",
            "illegal {f} #1: 1B. d4: repeated-move",
        ),
        (
            "1A. e4 1a. e5 1B. d4 1B. d4 {x forfeits on time} 0-1",
            "ok {f} #1: 3 plies, 1-0 (repeated final move skipped)",
        ),
    ];
    for (i, (text, want)) in cases.into_iter().enumerate() {
        let path = dir.join(format!("{i}.bpgn"));
        std::fs::write(&path, text).expect("write");
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let status = check::run(
            std::slice::from_ref(&path),
            RulesetName::Fide,
            false,
            &mut out,
            &mut err,
        );
        let want = want.replace("{f}", &path.display().to_string());
        assert_eq!(String::from_utf8_lossy(&out), format!("{want}\n"), "{text}");
        assert_eq!(status, u8::from(want.starts_with("illegal")), "{text}");
    }
    // 50 MB of `1A. e4` in the report, in small: one move, then the repeats.
    let path = dir.join("many.bpgn");
    std::fs::write(&path, "1A. e4 ".repeat(1000)).expect("write");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(
        check::run(
            std::slice::from_ref(&path),
            RulesetName::Fide,
            false,
            &mut out,
            &mut err
        ),
        1
    );
    assert!(
        String::from_utf8_lossy(&out).ends_with(": 1A. e4: repeated-move\n"),
        "{}",
        String::from_utf8_lossy(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
