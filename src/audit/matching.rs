//! Comparing a rule's template with a Java statement's: by their literal parts, holes matching anything.

use super::java::{pieces_display, Piece, Statement, Template};
use crate::grammar::{template_parts, Rule};
use regex::Regex;

/// A rule's template as pieces: `{name:type}`, `{}` and `{_}` are holes.
pub fn rule_pieces(rule: &Rule) -> Vec<Piece> {
    template_parts(&rule.template)
        .into_iter()
        .map(|p| p.map_or(Piece::Hole, Piece::Lit))
        .collect()
}

/// A Java template as an anchored regex: literals as they are (a space run matching any run of spaces), each
/// hole any text, across lines. It must end where a line ends, as a rule's template must.
pub fn java_regex(pieces: &[Piece]) -> Option<Regex> {
    let mut re = String::from(r"\A");
    for p in pieces {
        match p {
            Piece::Hole => re.push_str("(?s:.*?)"),
            Piece::Lit(s) => {
                let mut last_space = false;
                for c in s.chars() {
                    if c == ' ' {
                        if !last_space {
                            re.push_str(" *");
                        }
                        last_space = true;
                    } else {
                        last_space = false;
                        re.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
                    }
                }
            }
        }
    }
    re.push_str(r"[ \t]*(?:\n|\z)");
    Regex::new(&re).ok()
}

/// Words of a template's literal parts, each hole one `{}` word.
pub fn words(pieces: &[Piece]) -> Vec<String> {
    pieces_display(pieces)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// `2 * LCS / (|a| + |b|)` over words: 1 for the same words, 0 for none in common.
pub fn similarity(a: &[String], b: &[String]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    2.0 * lcs(a, b).len() as f64 / (a.len() + b.len()) as f64
}

/// Index pairs of a longest common subsequence.
fn lcs(a: &[String], b: &[String]) -> Vec<(usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut t = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i][j] = if a[i] == b[j] {
                t[i + 1][j + 1] + 1
            } else {
                t[i + 1][j].max(t[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n && j < m {
        if a[i] == b[j] {
            out.push((i, j));
            i += 1;
            j += 1;
        } else if t[i + 1][j] >= t[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

/// A word diff from the rule's template to the Java one: `[-gone-]` and `{+new+}`.
pub fn word_diff(rule: &[String], java: &[String]) -> String {
    let mut out: Vec<String> = Vec::new();
    let (mut i, mut j) = (0, 0);
    let flush = |out: &mut Vec<String>, del: &[String], ins: &[String]| {
        if !del.is_empty() {
            out.push(format!("[-{}-]", del.join(" ")));
        }
        if !ins.is_empty() {
            out.push(format!("{{+{}+}}", ins.join(" ")));
        }
    };
    for (a, b) in lcs(rule, java)
        .into_iter()
        .chain([(rule.len(), java.len())])
    {
        flush(&mut out, &rule[i..a], &java[j..b]);
        if a < rule.len() {
            out.push(rule[a].clone());
        }
        i = a + 1;
        j = b + 1;
    }
    out.join(" ")
}

/// The least word similarity for a statement whose regex takes a rule's samples to be that rule's statement:
/// a template of holes and punctuation (`"{}: {}"`) takes almost anything.
const SAME_MIN_SIMILARITY: f64 = 0.5;

/// Is `st` the statement `rule` was written from? The same literal words are; else one of the rule's samples
/// (real messages) must be a message the Java template can print, and, unless `st` is where the rule cites,
/// their literal words must mostly agree: a template of holes and punctuation (`"{}: {}"`) prints anything.
pub fn same_template(rule: &Rule, rule_words: &[String], st: &Statement, at_cite: bool) -> bool {
    let Template::Pieces(pieces) = &st.template else {
        return false;
    };
    let java_words = words(pieces);
    if java_words == rule_words {
        return true;
    }
    let has_literal = |alnum: bool| {
        pieces.iter().any(|p| {
            matches!(p, Piece::Lit(s) if s.chars().any(|c| if alnum { c.is_alphanumeric() } else { !c.is_whitespace() }))
        })
    };
    let specific = has_literal(true) && similarity(rule_words, &java_words) >= SAME_MIN_SIMILARITY;
    if !(specific || at_cite && has_literal(false)) {
        return false;
    }
    java_regex(pieces).is_some_and(|re| rule.samples.iter().any(|s| re.is_match(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn java_holes_take_any_text_and_space_runs_any_spaces() {
        let re = java_regex(&[
            Piece::Lit("term:  ".into()),
            Piece::Hole,
            Piece::Lit(" done".into()),
        ])
        .unwrap();
        assert!(re.is_match("term: 5 (t:1, i:2) done"));
        assert!(re.is_match("term: 5 done\n\tat stack.Frame"));
        assert!(!re.is_match("term: 5 done later"));
        assert!(!re.is_match("index: 5 done"));
    }

    #[test]
    fn diff_marks_removed_and_added_words() {
        let rule = w("Replaced DB with checkpoint, term: {}, index: {}");
        let java = w("Replaced DB with snapshot, term: {}, index: {}");
        assert_eq!(
            word_diff(&rule, &java),
            "Replaced DB with [-checkpoint,-] {+snapshot,+} term: {}, index: {}"
        );
        let s = similarity(&rule, &java);
        assert!(s > 0.8 && s < 1.0, "{s}");
        assert_eq!(similarity(&rule, &rule), 1.0);
        assert_eq!(word_diff(&w("a b"), &w("a b c")), "a b {+c+}");
    }
}
