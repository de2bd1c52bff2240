//! serde's type errors in the words of a scenario: `invalid value: integer `-1`, expected u32`
//! becomes `-1 is out of range: expected an integer from 0 to 4294967295`. The field path is
//! added by the caller ([`super::parse_at`]); messages that are not type errors pass unchanged.

/// What a Rust type a scenario field deserialises into allows, in words.
fn allowed(rust_type: &str) -> Option<String> {
    let range = |lo: i128, hi: i128| Some(format!("an integer from {lo} to {hi}"));
    match rust_type {
        "u8" => range(0, u8::MAX.into()),
        "u16" => range(0, u16::MAX.into()),
        "u32" => range(0, u32::MAX.into()),
        "u64" | "usize" => range(0, u64::MAX.into()),
        "i32" => range(i32::MIN.into(), i32::MAX.into()),
        "i64" => range(i64::MIN.into(), i64::MAX.into()),
        "f32" | "f64" => Some("a number".into()),
        "a boolean" => Some("true or false".into()),
        _ => None,
    }
}

/// The rewritten message, or `message` itself.
pub(crate) fn plain(message: &str) -> String {
    rewrite(message).unwrap_or_else(|| message.to_string())
}

fn rewrite(message: &str) -> Option<String> {
    let (head, expected) = message.rsplit_once(", expected ")?;
    let allowed = allowed(expected)?;
    let (kind, got) = head
        .strip_prefix("invalid value: ")
        .map(|g| (true, g))
        .or_else(|| head.strip_prefix("invalid type: ").map(|g| (false, g)))?;
    // serde writes the value as "integer `-1`", "floating point `1.5`", "string \"x\"", or a
    // bare kind ("map", "sequence", "boolean `true`").
    let value = match (got.split_once('`'), got.strip_prefix("string ")) {
        (Some((_, v)), _) => v.trim_end_matches('`').to_string(),
        (None, Some(v)) => v.to_string(),
        (None, None) => got.to_string(),
    };
    let verdict = if kind {
        "is out of range"
    } else if allowed.starts_with("an integer") && got.starts_with("floating point") {
        "is not an integer"
    } else {
        "is the wrong type"
    };
    Some(format!("{value} {verdict}: expected {allowed}"))
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn integer_and_number_errors_name_the_allowed_range() {
        assert_eq!(
            plain("invalid value: integer `-1`, expected u32"),
            "-1 is out of range: expected an integer from 0 to 4294967295"
        );
        assert_eq!(
            plain("invalid type: floating point `1.5`, expected u16"),
            "1.5 is not an integer: expected an integer from 0 to 65535"
        );
        assert_eq!(
            plain("invalid value: integer `70000`, expected u16"),
            "70000 is out of range: expected an integer from 0 to 65535"
        );
        assert_eq!(
            plain("invalid type: string \"x\", expected f64"),
            "\"x\" is the wrong type: expected a number"
        );
        assert_eq!(
            plain("invalid type: map, expected usize"),
            "map is the wrong type: expected an integer from 0 to 18446744073709551615"
        );
        assert_eq!(
            plain("invalid type: integer `1`, expected a boolean"),
            "1 is the wrong type: expected true or false"
        );
        // Anything else is left as it is.
        assert_eq!(
            plain("unknown field `w_q`, expected one of `a`, `b`"),
            "unknown field `w_q`, expected one of `a`, `b`"
        );
        assert_eq!(
            plain("invalid type: integer `1`, expected a queue limit"),
            "invalid type: integer `1`, expected a queue limit"
        );
    }
}
