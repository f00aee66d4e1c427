use super::*;

const EXAMPLE: &str = r#"{"t":0,"ev":"meta","ruleset":"fide","time_control":"180+0","tags":{"BlackA":"Bob","BlackB":"Dee","WhiteA":"Ann","WhiteB":"Cid"}}
{"t":0,"board":"A","ev":"board","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"}
{"t":0,"board":"B","ev":"board","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"}
{"t":0,"board":"A","ev":"clock","white":180,"black":180,"running":"white"}
{"t":0,"board":"B","ev":"clock","white":180,"black":180,"running":"white"}
{"t":1450,"board":"A","ev":"square","sq":"e2","piece":null}
{"t":1610,"board":"A","ev":"square","sq":"e4","piece":"P"}
{"t":1790,"board":"A","ev":"clock","white":178.5,"black":180,"running":"black"}
{"t":1800,"board":"B","ev":"link","up":false}
{"t":1900,"board":"A","ev":"operator","action":"promotion","number":23,"piece":"N","side":"white"}
{"t":2000,"ev":"operator","action":"result","reason":"resignation","result":"1-0"}
"#;

fn write_all(lines: &[TraceLine]) -> String {
    let mut w = TraceWriter::new(Vec::new());
    for l in lines {
        w.write(l).expect("write to Vec");
    }
    String::from_utf8(w.into_inner()).expect("utf8")
}

#[test]
fn read_write_read_round_trips_byte_for_byte() {
    let lines = parse_trace(EXAMPLE).expect("example parses");
    assert_eq!(lines.len(), 11);
    let text = write_all(&lines);
    assert_eq!(text, EXAMPLE);
    assert_eq!(parse_trace(&text).expect("reparse"), lines);
}

#[test]
fn events_have_the_expected_content() {
    let lines = parse_trace(EXAMPLE).expect("example parses");
    assert_eq!(
        lines[6].event,
        TraceEvent::Square {
            board: BoardId::A,
            sq: "e4".parse().expect("sq"),
            piece: SensorPiece::from_char('P'),
        }
    );
    assert_eq!(
        lines[7].event,
        TraceEvent::Clock {
            board: BoardId::A,
            white: 178.5,
            black: 180.0,
            running: Some(Side::Black)
        }
    );
    match &lines[9].event {
        TraceEvent::Operator {
            board,
            action,
            fields,
        } => {
            assert_eq!(*board, Some(BoardId::A));
            assert_eq!(action, "promotion");
            assert_eq!(fields.get("number"), Some(&serde_json::json!(23)));
        }
        other => panic!("not an operator line: {other:?}"),
    }
}

#[test]
fn clock_numbers_are_integers_when_whole_else_shortest_decimal() {
    let line = TraceLine {
        t: 5,
        event: TraceEvent::Clock {
            board: BoardId::B,
            white: 178.0,
            black: 0.1,
            running: None,
        },
    };
    assert_eq!(
        line_to_string(&line),
        r#"{"t":5,"board":"B","ev":"clock","white":178,"black":0.1,"running":null}"#
    );
}

#[test]
fn blank_lines_are_ignored_but_counted() {
    let text = "\n  \n{\"t\":0,\"board\":\"A\",\"ev\":\"link\",\"up\":true}\r\n\n{\"t\":1,\"ev\":\"nope\"}\n";
    let results: Vec<_> = TraceReader::new(text.as_bytes()).collect();
    assert_eq!(results.len(), 2);
    assert!(results[0].is_ok());
    let err = results[1].as_ref().expect_err("unknown ev");
    assert_eq!(err.line, 5);
}

fn error_of(text: &str) -> TraceError {
    match TraceReader::new(text.as_bytes()).find_map(Result::err) {
        Some(e) => e,
        None => panic!("no error for {text:?}"),
    }
}

#[test]
fn every_error_names_its_line_and_kind() {
    let ok = "{\"t\":0,\"board\":\"A\",\"ev\":\"link\",\"up\":true}\n";
    type Check = fn(&TraceErrorKind) -> bool;
    let cases: Vec<(&str, Check)> = vec![
        ("{\"t\":1,", |k| matches!(k, TraceErrorKind::Json(_))),
        ("[1,2]", |k| matches!(k, TraceErrorKind::Json(_))),
        (
            "{\"t\":1,\"board\":\"A\",\"ev\":\"dance\"}",
            |k| matches!(k, TraceErrorKind::UnknownEvent(e) if e == "dance"),
        ),
        (
            "{\"t\":1,\"board\":\"A\",\"ev\":\"square\",\"sq\":\"e9\",\"piece\":null}",
            |k| matches!(k, TraceErrorKind::BadSquare(s) if s == "e9"),
        ),
        (
            "{\"t\":1,\"board\":\"A\",\"ev\":\"square\",\"sq\":\"e4\",\"piece\":\"X\"}",
            |k| matches!(k, TraceErrorKind::BadPiece(s) if s == "X"),
        ),
        (
            "{\"t\":1,\"board\":\"A\",\"ev\":\"square\",\"sq\":\"e4\",\"piece\":\"PP\"}",
            |k| matches!(k, TraceErrorKind::BadPiece(_)),
        ),
        (
            "{\"t\":1,\"board\":\"A\",\"ev\":\"board\",\"fen\":\"8/8/8\"}",
            |k| matches!(k, TraceErrorKind::BadFen { .. }),
        ),
        ("{\"board\":\"A\",\"ev\":\"link\",\"up\":true}", |k| {
            matches!(k, TraceErrorKind::MissingField("t"))
        }),
        ("{\"t\":1,\"board\":\"A\",\"up\":true}", |k| {
            matches!(k, TraceErrorKind::MissingField("ev"))
        }),
        ("{\"t\":1,\"ev\":\"link\",\"up\":true}", |k| {
            matches!(k, TraceErrorKind::MissingField("board"))
        }),
        ("{\"t\":1,\"board\":\"A\",\"ev\":\"link\"}", |k| {
            matches!(k, TraceErrorKind::MissingField("up"))
        }),
        (
            "{\"t\":1,\"board\":\"A\",\"ev\":\"square\",\"piece\":null}",
            |k| matches!(k, TraceErrorKind::MissingField("sq")),
        ),
        (
            "{\"t\":1,\"board\":\"A\",\"ev\":\"square\",\"sq\":\"e4\"}",
            |k| matches!(k, TraceErrorKind::MissingField("piece")),
        ),
        (
            "{\"t\":1,\"board\":\"A\",\"ev\":\"clock\",\"black\":3,\"running\":null}",
            |k| matches!(k, TraceErrorKind::MissingField("white")),
        ),
        (
            "{\"t\":1,\"board\":\"A\",\"ev\":\"clock\",\"white\":3,\"black\":3}",
            |k| matches!(k, TraceErrorKind::MissingField("running")),
        ),
        (
            "{\"t\":1,\"board\":\"A\",\"ev\":\"clock\",\"white\":-3,\"black\":3,\"running\":null}",
            |k| matches!(k, TraceErrorKind::BadField { field: "white", .. }),
        ),
        (
            "{\"t\":1,\"board\":\"A\",\"ev\":\"clock\",\"white\":3,\"black\":3,\"running\":\"red\"}",
            |k| {
                matches!(
                    k,
                    TraceErrorKind::BadField {
                        field: "running",
                        ..
                    }
                )
            },
        ),
        (
            "{\"t\":1,\"board\":\"C\",\"ev\":\"link\",\"up\":true}",
            |k| matches!(k, TraceErrorKind::BadField { field: "board", .. }),
        ),
        (
            "{\"t\":-1,\"board\":\"A\",\"ev\":\"link\",\"up\":true}",
            |k| matches!(k, TraceErrorKind::BadField { field: "t", .. }),
        ),
        (
            "{\"t\":1.5,\"board\":\"A\",\"ev\":\"link\",\"up\":true}",
            |k| matches!(k, TraceErrorKind::BadField { field: "t", .. }),
        ),
        ("{\"t\":1,\"board\":\"A\",\"ev\":\"link\",\"up\":1}", |k| {
            matches!(k, TraceErrorKind::BadField { field: "up", .. })
        }),
        ("{\"t\":1,\"ev\":\"operator\"}", |k| {
            matches!(k, TraceErrorKind::MissingField("action"))
        }),
        ("{\"t\":1,\"ev\":\"meta\"}", |k| {
            matches!(k, TraceErrorKind::MetaNotFirst)
        }),
        ("{\"t\":1,\"ev\":\"meta\",\"tags\":{\"a\":1}}", |k| {
            matches!(k, TraceErrorKind::MetaNotFirst)
        }),
    ];
    for (bad, check) in cases {
        let text = format!("{ok}\n{bad}\n");
        let err = error_of(&text);
        assert_eq!(err.line, 3, "{bad}");
        assert!(check(&err.kind), "{bad}: got {:?}", err.kind);
        assert!(err.to_string().starts_with("line 3: "), "{err}");
    }
    let err = error_of("{\"t\":1,\"ev\":\"meta\",\"tags\":{\"a\":1}}\n");
    assert!(
        matches!(err.kind, TraceErrorKind::BadField { field: "tags", .. }),
        "{err:?}"
    );
}

#[test]
fn decreasing_time_is_an_error() {
    let text = "{\"t\":10,\"board\":\"A\",\"ev\":\"link\",\"up\":true}\n{\"t\":9,\"board\":\"A\",\"ev\":\"link\",\"up\":false}\n{\"t\":10,\"board\":\"A\",\"ev\":\"link\",\"up\":true}\n";
    let results: Vec<_> = TraceReader::new(text.as_bytes()).collect();
    let err = results[1].as_ref().expect_err("decreasing");
    assert_eq!(err.line, 2);
    assert!(matches!(
        err.kind,
        TraceErrorKind::DecreasingTime { t: 9, previous: 10 }
    ));
    assert!(results[2].is_ok());
}

#[test]
fn invalid_utf8_is_an_error_not_a_panic() {
    let bytes: &[u8] = b"{\"t\":1,\"board\":\"A\",\"ev\":\"link\",\"up\":true}\n\xff\xfe\n";
    let results: Vec<_> = TraceReader::new(bytes).collect();
    assert_eq!(results.len(), 2);
    assert_eq!(results[1].as_ref().expect_err("utf8").line, 2);
}

#[test]
fn a_setup_start_in_meta_round_trips_and_older_metas_read_without_one() {
    let fen = "8/8/8/8/8/8/8/4K2k/Qn b - - 10 20 | 8/8/8/8/8/8/8/4K2k w - - 1 2";
    let text = format!(
        "{{\"t\":0,\"ev\":\"meta\",\"ruleset\":\"fide\",\"setup\":{}}}\n",
        serde_json::Value::String(fen.to_owned())
    );
    let lines = parse_trace(&text).expect("a meta with a setup");
    match &lines[0].event {
        TraceEvent::Meta { setup, .. } => assert_eq!(setup.as_deref(), Some(fen)),
        other => panic!("{other:?}"),
    }
    assert_eq!(write_all(&lines), text);
    match &parse_trace(EXAMPLE).expect("example")[0].event {
        TraceEvent::Meta { setup, .. } => assert_eq!(*setup, None),
        other => panic!("{other:?}"),
    }
    let err = error_of("{\"t\":0,\"ev\":\"meta\",\"setup\":1}\n");
    assert!(err.to_string().contains("setup"), "{err}");
}
