//! serde's type errors in the words of a scenario: `invalid value: integer `-1`, expected u32`
//! becomes `-1 is out of range: expected an integer from 0 to 4294967295`. The field path is
//! added by the caller ([`super::parse_at`]); an unknown key gets the whole list of allowed keys
//! and the nearest one; other messages pass unchanged.

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

/// The rewritten message, or `message` itself. `also` are keys the caller took out of the table
/// before serde read the rest: an unknown key's message lists them too, so that it names every
/// key the table allows.
pub(crate) fn plain_with(message: &str, also: &[&str]) -> String {
    unknown_field(message, also).or_else(|| rewrite(message)).unwrap_or_else(|| message.to_string())
}

/// serde's `unknown field `queu`, expected one of `a`, `b`` (or `expected `a``, or `there are no
/// fields`) with `also` added to the allowed keys and the closest one suggested.
fn unknown_field(message: &str, also: &[&str]) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (key, expected) = rest.split_once('`')?;
    let mut allowed: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    for k in also {
        if !allowed.contains(k) {
            allowed.push(k);
        }
    }
    if allowed.is_empty() {
        return None;
    }
    let list = allowed.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ");
    let what = if allowed.len() == 1 { "expected" } else { "expected one of" };
    let hint = closest(key, &allowed).map(|k| format!("; did you mean `{k}`?")).unwrap_or_default();
    Some(format!("unknown field `{key}`, {what} {list}{hint}"))
}

/// The allowed key nearest to `key` by edit distance, if it is near enough to be a slip of the
/// keyboard: at most one edit for short keys, two from six letters on.
fn closest<'a>(key: &str, allowed: &[&'a str]) -> Option<&'a str> {
    let limit = if key.chars().count() >= 6 { 2 } else { 1 };
    allowed
        .iter()
        .map(|k| (edit_distance(key, k), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
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
    use super::plain_with;

    fn plain(message: &str) -> String {
        plain_with(message, &[])
    }

    #[test]
    fn an_unknown_key_lists_every_allowed_key_and_suggests_the_nearest() {
        assert_eq!(
            plain_with("unknown field `queu`, expected one of `bottleneck_rate`, `access_rate`", &["queue", "loss"]),
            "unknown field `queu`, expected one of `bottleneck_rate`, `access_rate`, `queue`, `loss`; did you mean `queue`?"
        );
        assert_eq!(
            plain("unknown field `durtion`, expected one of `name`, `duration`, `seed`"),
            "unknown field `durtion`, expected one of `name`, `duration`, `seed`; did you mean `duration`?"
        );
        // Far from every key: no guess. One allowed key: "expected", as serde says it.
        assert_eq!(
            plain("unknown field `colour`, expected one of `name`, `count`"),
            "unknown field `colour`, expected one of `name`, `count`"
        );
        assert_eq!(
            plain("unknown field `ab`, expected `a`"),
            "unknown field `ab`, expected `a`; did you mean `a`?"
        );
        assert_eq!(
            plain_with("unknown field `x`, there are no fields", &["kind"]),
            "unknown field `x`, expected `kind`"
        );
    }

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
