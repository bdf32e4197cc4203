//! Text from logs on its way out: one neutraliser for terminals (and text-based CI logs), and the escapers of
//! the machine formats that are not JSON (JSON is escaped by serde_json, which keeps the exact text).
//!
//! A log line is attacker-controllable input as far as a terminal is concerned: it may carry ANSI escape
//! sequences (colours, cursor moves, OSC 8 hyperlinks, window-title writes), BEL, backspaces, C1 controls (a
//! raw U+009B is a CSI on some terminals), or Unicode bidirectional overrides that make a line read
//! differently from what it is ("Trojan Source"). [`sanitize`] shows each of them as a visible Rust-style escape
//! (`\u{1b}`, `\u{202e}`), so nothing in a log can act on the terminal, and nothing is hidden either.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal as is: C0 controls but tab (ESC starts every escape sequence, so
/// escaping it neutralises the sequence), DEL, C1 controls, bidi embeddings, overrides and isolates, the
/// implicit direction marks, and the Unicode line and paragraph separators.
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(
            c,
            '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{061c}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// Makes log text safe to print on a terminal: control characters, escape sequences and bidi controls are
/// shown escaped (`\u{1b}[31m`), everything else is kept.
pub fn sanitize(text: &str) -> String {
    sanitize_cow(text).into_owned()
}

/// [`sanitize`] without a copy when nothing needs escaping.
pub fn sanitize_cow(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether XML 1.0 allows `c` at all (`Char` production; surrogates cannot occur in a Rust string).
fn xml_allowed(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}' | '\u{10000}'..)
}

/// Text for an XML attribute value or element content: the five markup characters as entities; characters
/// XML cannot carry (most C0 controls, U+FFFE, U+FFFF) and those [`sanitize`] neutralises are written as
/// visible escapes, so nothing is dropped silently and no `]]>` or `<![CDATA[` can end or open a section.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Line breaks are kept in element text, but attribute values would normalise them to spaces.
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c if !xml_allowed(c) || is_unsafe(c) => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// A GitHub Actions workflow command's message (`::error ...::MESSAGE`): `%`, CR and LF percent-encoded
/// (as `@actions/core` does), after [`sanitize`] has neutralised everything but line breaks (the Actions
/// log viewer interprets ANSI colours).
pub fn github_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if is_unsafe(c) => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// A workflow command's property value (`file=`, `title=`): as [`github_data`], plus `:` and `,`, which would
/// otherwise end the value or the property list.
pub fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str =
        "a\x1b[31mred\x07 \u{202e}txt.exe %0A ::error::boom <![CDATA[ x ]]> \u{9b}2J\x7f\r\nz";

    #[test]
    fn sanitize_escapes_control_characters() {
        assert_eq!(sanitize("a\x1b[31mred\u{7}\tz"), "a\\u{1b}[31mred\\u{7}\tz");
        let s = sanitize(HOSTILE);
        assert!(!s.chars().any(is_unsafe), "{s:?}");
        assert!(s.contains("\\u{1b}[31m") && s.contains("\\u{7}") && s.contains("\\u{202e}"));
        assert!(s.contains("\\u{9b}") && s.contains("\\u{7f}") && s.contains("\\r\\n"));
        assert!(matches!(sanitize_cow("plain text"), Cow::Borrowed(_)));
    }

    #[test]
    fn xml_escapes_markup_and_drops_nothing_silently() {
        let x = xml(HOSTILE);
        assert!(
            !x.contains('<') && !x.contains('>') && !x.contains("]]>"),
            "{x}"
        );
        assert!(x.contains("&lt;![CDATA[") && x.contains("]]&gt;"));
        assert!(x
            .chars()
            .all(|c| xml_allowed(c) && !is_unsafe(c) && c != '\n'));
        assert!(x.contains("\\u{1b}[31m") && x.contains("&#13;&#10;"));
        assert_eq!(xml("\u{fffe}&\"'"), "\\u{fffe}&amp;&quot;&apos;");
    }

    #[test]
    fn github_escaping_follows_actions_core() {
        assert_eq!(github_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
        assert_eq!(github_property("a:b,c%"), "a%3Ab%2Cc%25");
        let d = github_data(HOSTILE);
        assert!(!d.contains('\n') && !d.contains('\r') && !d.contains('\x1b'));
        assert!(d.contains("%250A"), "a literal %0A stays literal: {d}");
        let p = github_property(HOSTILE);
        assert!(!p.contains("::") && !p.contains(','), "{p}");
    }
}
